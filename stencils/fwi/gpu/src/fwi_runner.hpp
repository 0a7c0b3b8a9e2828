// The FWI's host side for the GPU variants, written once over a Backend: the CUDA runtime
// (device_fwi.cpp) or the CPU emulation (emulation/emulated_fwi.cpp), so that CI runs the same
// launch sequence, buffer rotation and film indexing as the GPU against the CPU reference.
//
// A Backend has: float* alloc(n) (zeroed), release(p), zero(p, n), upload(dst, src, n),
// download(dst, src, n), launch(KernelRef, Shape, params) and synchronize().
//
// One gradient evaluation (Algorithm 1 of the study, per shot): the forward run writes P^1..P^nt
// into the film of P; Residual takes the receivers' samples out of it; the misfit's dot product
// (scale_grad) on the host or the GPU; the back-propagation, the transpose of the forward step
// (docs/fwi.md), into the film of q or three rotating buffers; Gradiente over the films, or the
// gradient accumulated on the fly; acumulador sums the shots. The update is the study's
// (Paral_max, Grad_scal, New_model): c = clamp(c - k mask g), k = first_step / max |mask g|.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <limits>
#include <vector>

#include "../kernels/kernel_set.hpp"
#include "warpmodel/fwi/cpml.hpp"
#include "warpmodel/fwi/experiment.hpp"
#include "warpmodel/fwi/gpu/fwi_run.hpp"
#include "warpmodel/fwi/gpu_variants.hpp"

namespace warpmodel::fwi::gpu {

struct Shape {
  unsigned grid_x = 1, grid_y = 1, block_x = 1, block_y = 1;
  std::size_t shared_bytes = 0;
};

// Shared memory of each kernel kind (floats, fwi_kernels.cuh).
inline std::size_t tile_bytes(int bw, int bh) { return std::size_t(bw + 2) * (bh + 2) * sizeof(float); }
inline std::size_t prop_psi_bytes(int bw, int bh) {
  return (std::size_t(bw + 4) * (bh + 4) + std::size_t(bw + 2) * bh + std::size_t(bw) * (bh + 2)) * sizeof(float);
}
inline std::size_t prop_psi_adjoint_bytes(int bw, int bh) {
  return (std::size_t(bw + 4) * (bh + 4) + std::size_t(bw + 4) * bh + std::size_t(bw) * (bh + 4) +
          std::size_t(bw + 2) * bh + std::size_t(bw) * (bh + 2)) *
         sizeof(float);
}

template <class Backend>
class FwiRunner {
 public:
  FwiRunner(Backend& backend, const Experiment& s, const GpuVariantInfo& v, const KernelSet& k)
      : b_(backend), s_(s), v_(v), k_(k) {
    const Acquisition& a = s.acquisition;
    for (std::size_t r = 1; r < a.receiver_i.size(); ++r)
      if (a.receiver_i[r] != a.receiver_i[0] + static_cast<int>(r))
        throw std::invalid_argument("the GPU variants need the receivers on consecutive columns");
    if (a.receiver_i.empty()) throw std::invalid_argument("no receivers");
    nx_ = s.grid.nx, nz_ = s.grid.nz, nt_ = s.time.nt;
    frame_ = static_cast<long long>(nx_) * nz_;
    receivers_ = static_cast<int>(a.receiver_i.size());
    const int bw = v.block_x, bh = v.block_y;
    field_shape_ = {unsigned((nx_ + bw - 1) / bw), unsigned((nz_ + bh - 1) / bh), unsigned(bw), unsigned(bh), 0};
    // The model's arrays and the constants, once.
    ax_ = allocate(nx_), bx_ = allocate(nx_), az_ = allocate(nz_), bz_ = allocate(nz_);
    velocity_ = allocate(frame_), w_ = allocate(frame_);
    gradient_ = allocate(frame_), shot_gradient_ = allocate(frame_);
    scalars_ = allocate(4);
    partials_ = allocate(kDotBlocks);
    std::vector<float> wavelet(static_cast<std::size_t>(nt_));
    for (int n = 0; n < nt_; ++n) wavelet[n] = static_cast<float>(source_sample(s, n));
    wavelet_ = allocate(nt_);
    b_.upload(wavelet_, wavelet.data(), wavelet.size());
  }
  ~FwiRunner() {
    release_work();
    for (float* p : {ax_, bx_, az_, bz_, velocity_, w_, gradient_, shot_gradient_, scalars_, partials_, wavelet_, observed_})
      if (p) free(p);
  }
  FwiRunner(const FwiRunner&) = delete;
  FwiRunner& operator=(const FwiRunner&) = delete;

  int launches() const { return launches_; }
  // Device memory held now and at most so far, bytes (the study's eq 4.1 counts the same arrays).
  long long bytes_held() const { return held_; }
  long long peak_bytes() const { return peak_; }

  // Every shot's gather at `velocity` (nx nz, m/s): [shot][n R + r], P^{n+1} at receiver r.
  std::vector<std::vector<float>> model_data(const std::vector<float>& velocity) {
    set_model(velocity);
    acquire_work();
    compute_cpml();
    std::vector<std::vector<float>> data;
    for (int shot = 0; shot < shots(); ++shot) {
      forward(shot);
      std::vector<float> gather(static_cast<std::size_t>(nt_) * receivers_);
      // The receivers' row of each frame of the film.
      std::vector<float> row(static_cast<std::size_t>(nx_));
      for (int n = 0; n < nt_; ++n) {
        b_.download(row.data(), work_.p_film + (n + 1) * frame_ + static_cast<long long>(s_.acquisition.receiver_j) * nx_,
                    row.size());
        for (int r = 0; r < receivers_; ++r) gather[static_cast<std::size_t>(n) * receivers_ + r] = row[s_.acquisition.receiver_i[r]];
      }
      data.push_back(std::move(gather));
    }
    end_evaluation();
    return data;
  }

  // E(c) = 1/2 sum_shots ||r||^2 and, into gradient (when given), dE/dc summed over the shots.
  double misfit_and_gradient(const std::vector<float>& velocity, const std::vector<std::vector<float>>& observed,
                             std::vector<float>* gradient) {
    set_model(velocity);
    set_observed(observed);
    const double e = evaluate();
    if (gradient) {
      gradient->resize(static_cast<std::size_t>(frame_));
      b_.download(gradient->data(), gradient_, gradient->size());
    }
    return e;
  }

  // The study's fixed-step inversion from `start` (clamped first); on_iteration sees each misfit.
  FwiRunResult invert(const std::vector<float>& start, const std::vector<std::vector<float>>& observed,
                      const FwiRunOptions& o, const std::function<void(int, double)>& on_iteration = {}) {
    FwiRunResult out;
    std::vector<float> c(start);
    for (float& x : c) x = std::clamp(x, static_cast<float>(o.v_min), static_cast<float>(o.v_max));
    set_model(c);
    set_observed(observed);
    const Interior in = interior(s_.grid, s_.cpml);
    VecParams mask;
    mask.n = frame_, mask.nx = nx_;
    mask.i0 = in.i0, mask.i1 = in.i1, mask.j0 = std::max(in.j0, o.mute_rows + 1), mask.j1 = in.j1;
    const int vec_blocks = static_cast<int>((frame_ + 255) / 256);
    const Shape vec{unsigned(vec_blocks), 1, 256, 1, 0};
    const Shape one_block{1, 1, unsigned(kReductionThreads), 1, kReductionThreads * sizeof(float)};
    double e = evaluate();
    out.misfit.push_back(e);
    if (on_iteration) on_iteration(0, e);
    for (int it = 1; it <= o.iterations; ++it) {
      VecParams m = mask;
      m.a = gradient_, m.out = scalars_;
      launch(k_.paral_max, one_block, m);  // Paral_max
      float largest = 0;
      b_.download(&largest, scalars_, 1);
      if (!(largest > 0) || !std::isfinite(largest)) {
        out.stopped = largest > 0 ? "the gradient is not finite" : "the gradient vanished";
        break;
      }
      const double t = o.first_step / largest;
      if (!(t < std::numeric_limits<float>::max())) {
        // A gradient of round-off (data the model already explains, to a misfit of 1e-41 on an
        // H100 at 2048 x 1024): its step overflows single precision and would make the model NaN.
        out.stopped = "the gradient is round-off (its step overflows single precision)";
        break;
      }
      m = mask;
      m.a = gradient_, m.out = shot_gradient_, m.scalar = static_cast<float>(t);
      launch(k_.grad_scal, vec, m);  // Grad_scal: the direction -t mask g
      m = mask;
      m.a = shot_gradient_, m.out = velocity_, m.out2 = w_;
      m.v_min = static_cast<float>(o.v_min), m.v_max = static_cast<float>(o.v_max);
      m.dt2 = static_cast<float>(s_.time.dt * s_.time.dt);
      launch(k_.new_model, vec, m);  // New_model
      out.steps.push_back(t);
      e = evaluate();
      out.misfit.push_back(e);
      if (on_iteration) on_iteration(it, e);
    }
    out.velocity.resize(static_cast<std::size_t>(frame_));
    b_.download(out.velocity.data(), velocity_, out.velocity.size());
    if (!keep_work_) release_work();  // recorded launches (record_launches) keep pointing at it
    return out;
  }

  // Profiling (profiles/cupti's fwi workload): one gradient evaluation at `velocity`, recording
  // the first launch of each distinct kernel (the step kernels at step nt / 2); the work arrays stay
  // allocated so that each can be launched again, alone.
  struct Recorded {
    std::string name;
    const void* function = nullptr;
    std::function<void()> launch;
  };
  const std::vector<Recorded>& record_launches(const std::vector<float>& velocity,
                                               const std::vector<std::vector<float>>& observed) {
    recorded_.clear();
    set_model(velocity);
    set_observed(observed);
    recording_ = keep_work_ = true;
    cpml_ready_ = false;
    evaluate();
    {  // the update's kernels, once each
      const Interior in = interior(s_.grid, s_.cpml);
      VecParams m;
      m.n = frame_, m.nx = nx_, m.i0 = in.i0, m.i1 = in.i1, m.j0 = in.j0, m.j1 = in.j1;
      m.a = gradient_, m.out = scalars_;
      launch(k_.paral_max, {1, 1, unsigned(kReductionThreads), 1, kReductionThreads * sizeof(float)}, m);
      m.out = shot_gradient_, m.scalar = 0.0f;  // a zero step: the model stays
      const Shape vec{unsigned((frame_ + 255) / 256), 1, 256, 1, 0};
      launch(k_.grad_scal, vec, m);
      m.a = shot_gradient_, m.out = velocity_, m.out2 = w_, m.v_min = 0.0f, m.v_max = 1e9f;
      m.dt2 = static_cast<float>(s_.time.dt * s_.time.dt);
      launch(k_.new_model, vec, m);
    }
    recording_ = false;
    b_.synchronize();
    return recorded_;
  }

 private:
  struct Work {
    float* p_film = nullptr;  // P^0 .. P^nt
    float* q_film = nullptr;  // q^0 .. q^{nt+2} (before phase 5)
    float* q[3] = {nullptr, nullptr, nullptr};  // rotating q^{k+2}, q^{k+1}, q^k (phase 5 on)
    float* psi_x[2] = {nullptr, nullptr};
    float* psi_z[2] = {nullptr, nullptr};
    float *zeta_x = nullptr, *zeta_z = nullptr;
    float* nu_x[2] = {nullptr, nullptr};
    float* nu_z[2] = {nullptr, nullptr};
    float* mu_x[2] = {nullptr, nullptr};
    float* mu_z[2] = {nullptr, nullptr};
    float* residual = nullptr;  // nt R
    bool held = false;
  };

  int shots() const { return static_cast<int>(s_.acquisition.source_i.size()); }
  float* film_frame(float* film, long long n) const { return film + n * frame_; }

  template <class Fn, class P>
  void launch(const KernelRef<Fn>& k, const Shape& shape, const P& params, bool per_step = false, int step = 0) {
    if (!k) throw std::logic_error("the variant has no kernel for this launch");
    b_.launch(k, shape, params);
    ++launches_;
    if (recording_ && (!per_step || step == nt_ / 2) &&
        std::none_of(recorded_.begin(), recorded_.end(), [&](const Recorded& r) { return r.name == k.name; })) {
      Backend* backend = &b_;
      recorded_.push_back({k.name, k.function(), [backend, k, shape, params] { backend->launch(k, shape, params); }});
    }
    if (v_.sync_each_kernel) b_.synchronize();
  }

  void set_model(const std::vector<float>& velocity) {
    if (velocity.size() != static_cast<std::size_t>(frame_)) throw std::invalid_argument("the velocity model does not match the grid");
    std::vector<float> w(velocity.size());
    for (std::size_t c = 0; c < w.size(); ++c) {
      const double cd = velocity[c] * s_.time.dt;
      w[c] = static_cast<float>(cd * cd);
    }
    b_.upload(velocity_, velocity.data(), velocity.size());
    b_.upload(w_, w.data(), w.size());
  }

  void set_observed(const std::vector<std::vector<float>>& observed) {
    if (static_cast<int>(observed.size()) != shots()) throw std::invalid_argument("observed data does not match the shots");
    const std::size_t per_shot = static_cast<std::size_t>(nt_) * receivers_;
    if (!observed_) observed_ = allocate(per_shot * static_cast<std::size_t>(shots()));
    for (int shot = 0; shot < shots(); ++shot) {
      if (observed[shot].size() != per_shot) throw std::invalid_argument("an observed gather does not match nt and the receivers");
      b_.upload(observed_ + per_shot * shot, observed[shot].data(), per_shot);
    }
  }

  void acquire_work() {
    if (work_.held) return;
    Work& w = work_;
    w.p_film = allocate(frame_ * (nt_ + 1));
    if (v_.gradient_on_the_fly)
      for (float*& q : w.q) q = allocate(frame_);
    else
      w.q_film = allocate(frame_ * (nt_ + 3));
    const int pairs = v_.fused ? 2 : 1;
    for (int k = 0; k < pairs; ++k) {
      w.psi_x[k] = allocate(frame_), w.psi_z[k] = allocate(frame_);
      w.mu_x[k] = allocate(frame_), w.mu_z[k] = allocate(frame_);
    }
    for (int k = 0; k < 2; ++k) w.nu_x[k] = allocate(frame_), w.nu_z[k] = allocate(frame_);
    w.zeta_x = allocate(frame_), w.zeta_z = allocate(frame_);
    w.residual = allocate(static_cast<long long>(nt_) * receivers_);
    w.held = true;
  }
  void release_work() {
    Work& w = work_;
    if (!w.held) return;
    b_.synchronize();
    for (float* p : {w.p_film, w.q_film, w.q[0], w.q[1], w.q[2], w.psi_x[0], w.psi_x[1], w.psi_z[0], w.psi_z[1],
                     w.zeta_x, w.zeta_z, w.nu_x[0], w.nu_x[1], w.nu_z[0], w.nu_z[1], w.mu_x[0], w.mu_x[1], w.mu_z[0],
                     w.mu_z[1], w.residual})
      if (p) free(p);
    w = Work{};
  }
  // After an evaluation: the work arrays go unless the variant keeps them for the whole inversion.
  void end_evaluation() {
    if (!v_.allocate_once && !keep_work_) release_work();
  }

  void compute_cpml() {
    CpmlParams p;
    p.width = s_.cpml.width;
    p.h = static_cast<float>(s_.grid.h);
    p.reflection = static_cast<float>(s_.cpml.reflection);
    p.velocity = static_cast<float>(s_.cpml_velocity);
    p.frequency = static_cast<float>(s_.frequency);
    p.dt = static_cast<float>(s_.time.dt);
    p.a = ax_, p.b = bx_, p.n = nx_, p.low = 1, p.high = 1;
    launch(k_.cpml_x, {unsigned((nx_ + 127) / 128), 1, 128, 1, 0}, p);
    p.a = az_, p.b = bz_, p.n = nz_, p.low = s_.cpml.top ? 1 : 0, p.high = 1;
    launch(k_.cpml_z, {unsigned((nz_ + 127) / 128), 1, 128, 1, 0}, p);
    cpml_ready_ = true;
  }

  StepParams step_base() const {
    StepParams p;
    p.nx = nx_, p.nz = nz_;
    p.inv_h2 = static_cast<float>(1.0 / (s_.grid.h * s_.grid.h));
    p.inv_2h = static_cast<float>(1.0 / (2.0 * s_.grid.h));
    p.ax = ax_, p.bx = bx_, p.az = az_, p.bz = bz_;
    p.w = w_, p.velocity = velocity_, p.wavelet = wavelet_, p.nt = nt_, p.frame = frame_;
    p.receiver_row = s_.acquisition.receiver_j, p.receiver_i0 = s_.acquisition.receiver_i[0], p.receivers = receivers_;
    return p;
  }

  long long source_at(int shot) const {
    return static_cast<long long>(s_.acquisition.source_j) * nx_ + s_.acquisition.source_i[shot];
  }

  void forward(int shot) {
    Work& w = work_;
    const int pairs = v_.fused ? 2 : 1;
    for (int k = 0; k < pairs; ++k) b_.zero(w.psi_x[k], frame_), b_.zero(w.psi_z[k], frame_);
    b_.zero(w.zeta_x, frame_), b_.zero(w.zeta_z, frame_);
    StepParams p = step_base();
    p.source_at = source_at(shot);
    p.zeta_x = w.zeta_x, p.zeta_z = w.zeta_z;
    for (int n = 0; n < nt_; ++n) {
      p.step = n;
      p.field_prev = film_frame(w.p_film, std::max(n - 1, 0));  // P^{-1} = P^0 = 0
      p.field = film_frame(w.p_film, n);
      p.field_next = film_frame(w.p_film, n + 1);
      if (v_.fused) {
        const int in = n % 2, out = 1 - in;
        p.psi_x_in = w.psi_x[in], p.psi_z_in = w.psi_z[in], p.psi_x = w.psi_x[out], p.psi_z = w.psi_z[out];
        launch(k_.prop_psi, with_shared(prop_psi_bytes(v_.block_x, v_.block_y)), p, true, n);
      } else {
        p.psi_x_in = p.psi_x = w.psi_x[0], p.psi_z_in = p.psi_z = w.psi_z[0];
        launch(k_.psi, field_shape_, p, true, n);
        launch(k_.propagator_half, with_shared(v_.shared_p ? tile_bytes(v_.block_x, v_.block_y) : 0), p, true, n);
      }
    }
  }

  // r = P at the receivers - observed, and 1/2 ||r||^2 (scale_grad: on the host or the GPU).
  double residual_and_misfit(int shot) {
    Work& w = work_;
    VecParams r;
    r.n = static_cast<long long>(nt_) * receivers_;
    r.a = observed_ + r.n * shot, r.out = w.residual, r.film = w.p_film, r.frame = frame_;
    r.nx = nx_, r.receiver_row = s_.acquisition.receiver_j, r.receiver_i0 = s_.acquisition.receiver_i[0];
    r.receivers = receivers_;
    launch(k_.residual, {unsigned((r.n + 255) / 256), 1, 256, 1, 0}, r);
    if (v_.gpu_dot) {
      VecParams d;
      d.n = r.n, d.a = d.b = w.residual, d.out = partials_;
      launch(k_.scale_grad, {unsigned(kDotBlocks), 1, unsigned(kReductionThreads), 1, kReductionThreads * sizeof(float)}, d);
      d.n = kDotBlocks, d.out = partials_, d.out2 = scalars_ + 1;
      launch(k_.scale_grad_final, {1, 1, unsigned(kReductionThreads), 1, kReductionThreads * sizeof(float)}, d);
      float dot = 0;
      b_.download(&dot, scalars_ + 1, 1);
      return 0.5 * dot;
    }
    std::vector<float> host(static_cast<std::size_t>(r.n));
    b_.download(host.data(), w.residual, host.size());
    double sum = 0;
    for (float x : host) sum += double(x) * x;
    return 0.5 * sum;
  }

  void adjoint(int shot) {
    Work& w = work_;
    const int pairs = v_.fused ? 2 : 1;
    for (int k = 0; k < 2; ++k) b_.zero(w.nu_x[k], frame_), b_.zero(w.nu_z[k], frame_);
    for (int k = 0; k < pairs; ++k) b_.zero(w.mu_x[k], frame_), b_.zero(w.mu_z[k], frame_);
    float* q[3] = {w.q[0], w.q[1], w.q[2]};  // q^{k+2}, q^{k+1}, q^k
    if (v_.gradient_on_the_fly)
      for (float* x : q) b_.zero(x, frame_);
    else
      b_.zero(film_frame(w.q_film, nt_ + 1), 2 * frame_);  // q^{nt+1} = q^{nt+2} = 0
    StepParams p = step_base();
    p.source_at = source_at(shot);
    p.gradient = shot_gradient_;
    for (int k = nt_; k >= 0; --k) {
      p.step = k;
      if (v_.gradient_on_the_fly) {
        p.field_prev = q[0], p.field = q[1], p.field_next = q[2];
        p.film_next = film_frame(w.p_film, std::min(k + 1, nt_));
        p.film_now = film_frame(w.p_film, k);
        p.film_prev = film_frame(w.p_film, std::max(k - 1, 0));
      } else {
        p.field_prev = film_frame(w.q_film, k + 2), p.field = film_frame(w.q_film, k + 1);
        p.field_next = film_frame(w.q_film, k);
      }
      p.residual = k >= 1 ? w.residual + static_cast<long long>(k - 1) * receivers_ : nullptr;
      const int in = (nt_ - k) % 2, out = 1 - in;
      p.nu_x_in = w.nu_x[in], p.nu_z_in = w.nu_z[in], p.nu_x = w.nu_x[out], p.nu_z = w.nu_z[out];
      if (v_.fused) {
        p.mu_x_in = w.mu_x[in], p.mu_z_in = w.mu_z[in], p.mu_x = w.mu_x[out], p.mu_z = w.mu_z[out];
        launch(k_.prop_psi_adjoint, with_shared(prop_psi_adjoint_bytes(v_.block_x, v_.block_y)), p, true, k);
      } else {
        p.mu_x_in = p.mu_x = w.mu_x[0], p.mu_z_in = p.mu_z = w.mu_z[0];
        launch(k_.psi_adjoint, field_shape_, p, true, k);
        launch(k_.propagator_half_adjoint, with_shared(v_.shared_p ? tile_bytes(v_.block_x, v_.block_y) : 0), p, true, k);
      }
      if (v_.gradient_on_the_fly) {
        float* oldest = q[0];
        q[0] = q[1], q[1] = q[2], q[2] = oldest;
      }
    }
    if (!v_.gradient_on_the_fly) {
      StepParams g = step_base();
      g.source_at = source_at(shot);
      g.p_film = w.p_film, g.q_film = w.q_film, g.gradient = shot_gradient_;
      launch(k_.gradiente, field_shape_, g);
    }
  }

  Shape with_shared(std::size_t bytes) const {
    Shape s = field_shape_;
    s.shared_bytes = bytes;
    return s;
  }

  // One gradient evaluation over every shot: the misfit, and the gradient in gradient_.
  double evaluate() {
    acquire_work();
    if (!v_.cpml_once || !cpml_ready_) compute_cpml();
    b_.zero(gradient_, frame_);
    double e = 0;
    const Shape vec{unsigned((frame_ + 255) / 256), 1, 256, 1, 0};
    for (int shot = 0; shot < shots(); ++shot) {
      if (!v_.cpml_once && shot > 0) compute_cpml();  // before each propagation (Algorithm 1)
      forward(shot);
      e += residual_and_misfit(shot);
      if (!v_.cpml_once) compute_cpml();
      b_.zero(shot_gradient_, frame_);
      adjoint(shot);
      VecParams acc;
      acc.n = frame_, acc.a = shot_gradient_, acc.out = gradient_;
      launch(k_.acumulador, vec, acc);
    }
    b_.synchronize();
    end_evaluation();
    return e;
  }

  // Every allocation goes through these two: they keep the bytes held.
  float* allocate(long long n) {
    float* p = b_.alloc(n);
    sizes_.push_back({p, n});
    held_ += n * static_cast<long long>(sizeof(float));
    peak_ = std::max(peak_, held_);
    return p;
  }
  void free(float* p) {
    for (auto it = sizes_.begin(); it != sizes_.end(); ++it)
      if (it->first == p) {
        held_ -= it->second * static_cast<long long>(sizeof(float));
        sizes_.erase(it);
        break;
      }
    b_.release(p);
  }

  Backend& b_;
  Experiment s_;
  GpuVariantInfo v_;
  KernelSet k_;
  int nx_ = 0, nz_ = 0, nt_ = 0, receivers_ = 0;
  long long frame_ = 0;
  Shape field_shape_;
  float *ax_ = nullptr, *bx_ = nullptr, *az_ = nullptr, *bz_ = nullptr;
  float *velocity_ = nullptr, *w_ = nullptr, *gradient_ = nullptr, *shot_gradient_ = nullptr;
  float *scalars_ = nullptr, *partials_ = nullptr, *wavelet_ = nullptr, *observed_ = nullptr;
  Work work_;
  bool cpml_ready_ = false;
  bool recording_ = false, keep_work_ = false;
  std::vector<Recorded> recorded_;
  int launches_ = 0;
  std::vector<std::pair<float*, long long>> sizes_;
  long long held_ = 0, peak_ = 0;
};

}  // namespace warpmodel::fwi::gpu
