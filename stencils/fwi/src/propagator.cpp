#include "warpmodel/fwi/propagator.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace warpmodel::fwi {

std::vector<double> squared_courant_factor(const Experiment& s, const std::vector<double>& velocity) {
  if (velocity.size() != s.grid.size()) throw std::invalid_argument("the velocity model does not match the grid");
  std::vector<double> w(velocity.size());
  for (std::size_t c = 0; c < w.size(); ++c) w[c] = velocity[c] * velocity[c] * s.time.dt * s.time.dt;
  return w;
}

// --- the forward step ---

void psi(const Grid& g, const Cpml& cpml, const double* p, double* psi_x, double* psi_z) {
  const double inv_2h = 1.0 / (2.0 * g.h);
  const std::size_t nx = static_cast<std::size_t>(g.nx);
  for (int j = 1; j < g.nz - 1; ++j)  // eq 2.18, q = x: the left and right layers
    for (int i : cpml.x.active) {
      const std::size_t c = g.index(i, j);
      psi_x[c] = cpml.x.b[i] * psi_x[c] + cpml.x.a[i] * (p[c + 1] - p[c - 1]) * inv_2h;
    }
  for (int j : cpml.z.active) {  // eq 2.18, q = z: the bottom layer (and the top one, if any)
    const double a = cpml.z.a[j], b = cpml.z.b[j];
    for (int i = 1; i < g.nx - 1; ++i) {
      const std::size_t c = g.index(i, j);
      psi_z[c] = b * psi_z[c] + a * (p[c + nx] - p[c - nx]) * inv_2h;
    }
  }
}

void propagator_half(const Grid& g, const Cpml& cpml, const double* w, const double* p_prev, const double* p,
                     const double* psi_x, const double* psi_z, double* zeta_x, double* zeta_z, double* p_next) {
  const double inv_h2 = 1.0 / (g.h * g.h), inv_2h = 1.0 / (2.0 * g.h);
  const std::size_t nx = static_cast<std::size_t>(g.nx);
  // eq 2.19: zeta_q^n from P^n and psi_q^n, where the layer is.
  for (int j = 1; j < g.nz - 1; ++j)
    for (int i : cpml.x.active) {
      const std::size_t c = g.index(i, j);
      const double d2p = (p[c + 1] - 2.0 * p[c] + p[c - 1]) * inv_h2;
      const double dpsi = (psi_x[c + 1] - psi_x[c - 1]) * inv_2h;
      zeta_x[c] = cpml.x.b[i] * zeta_x[c] + cpml.x.a[i] * (d2p + dpsi);
    }
  for (int j : cpml.z.active) {
    const double a = cpml.z.a[j], b = cpml.z.b[j];
    for (int i = 1; i < g.nx - 1; ++i) {
      const std::size_t c = g.index(i, j);
      const double d2p = (p[c + nx] - 2.0 * p[c] + p[c - nx]) * inv_h2;
      const double dpsi = (psi_z[c + nx] - psi_z[c - nx]) * inv_2h;
      zeta_z[c] = b * zeta_z[c] + a * (d2p + dpsi);
    }
  }
  // eq 2.16: the 5-point Laplacian of eq 2.11 plus G^2 (h/2) psi_st + (G h)^2 zeta_st, over the interior.
  for (int j = 1; j < g.nz - 1; ++j)
    for (std::size_t c = g.index(1, j), end = g.index(g.nx - 1, j); c < end; ++c) {
      const double laplacian = (p[c + 1] + p[c - 1] + p[c + nx] + p[c - nx] - 4.0 * p[c]) * inv_h2;
      const double psi_st = (psi_x[c + 1] - psi_x[c - 1] + psi_z[c + nx] - psi_z[c - nx]) * inv_2h;
      p_next[c] = 2.0 * p[c] - p_prev[c] + w[c] * (laplacian + psi_st + zeta_x[c] + zeta_z[c]);
    }
}

// --- the adjoint step ---

void psi_adjoint(const Grid& g, const Cpml& cpml, const double* q, double* mu_x, double* mu_z, double* nu_x,
                 double* nu_z) {
  const double inv_2h = 1.0 / (2.0 * g.h);
  const std::size_t nx = static_cast<std::size_t>(g.nx);
  const std::vector<double>&ax = cpml.x.a, &az = cpml.z.a;
  // nu_q^k = b_q nu_q^{k+1} + q^{k+1}: the transpose of zeta's recursion and of its W in eq 2.16.
  for (int j = 1; j < g.nz - 1; ++j)
    for (int i : cpml.x.active) {
      const std::size_t c = g.index(i, j);
      nu_x[c] = cpml.x.b[i] * nu_x[c] + q[c];
    }
  for (int j : cpml.z.active)
    for (int i = 1; i < g.nx - 1; ++i) {
      const std::size_t c = g.index(i, j);
      nu_z[c] = cpml.z.b[j] * nu_z[c] + q[c];
    }
  // mu_q^k = b_q mu_q^{k+1} + D_q^T (q^{k+1} + a_q nu_q^k), D_q^T v = (v_{-1} - v_{+1}) / (2h): psi_q
  // enters eq 2.16 (through W) and eq 2.19 (through a_q) by its centred difference.
  for (int j = 1; j < g.nz - 1; ++j)
    for (int i : cpml.x.active) {
      const std::size_t c = g.index(i, j);
      const double left = q[c - 1] + ax[i - 1] * nu_x[c - 1], right = q[c + 1] + ax[i + 1] * nu_x[c + 1];
      mu_x[c] = cpml.x.b[i] * mu_x[c] + (left - right) * inv_2h;
    }
  for (int j : cpml.z.active)
    for (int i = 1; i < g.nx - 1; ++i) {
      const std::size_t c = g.index(i, j);
      const double up = q[c - nx] + az[j - 1] * nu_z[c - nx], down = q[c + nx] + az[j + 1] * nu_z[c + nx];
      mu_z[c] = cpml.z.b[j] * mu_z[c] + (up - down) * inv_2h;
    }
}

void propagator_half_adjoint(const Grid& g, const Cpml& cpml, const double* w, const double* q_prev, const double* q,
                             const double* mu_x, const double* mu_z, const double* nu_x, const double* nu_z,
                             double* q_next) {
  const double inv_h2 = 1.0 / (g.h * g.h), inv_2h = 1.0 / (2.0 * g.h);
  const std::size_t nx = static_cast<std::size_t>(g.nx);
  const std::vector<double>&ax = cpml.x.a, &az = cpml.z.a;
  for (int j = 1; j < g.nz - 1; ++j) {
    const double az_up = az[j - 1], az_here = az[j], az_down = az[j + 1];
    const bool z_layer = az_up != 0.0 || az_here != 0.0 || az_down != 0.0;
    for (int i = 1; i < g.nx - 1; ++i) {
      const std::size_t c = g.index(i, j);
      double sum = (q[c + 1] + q[c - 1] + q[c + nx] + q[c - nx] - 4.0 * q[c]) * inv_h2;
      if (ax[i - 1] != 0.0 || ax[i] != 0.0 || ax[i + 1] != 0.0)  // D_x^T (a_x mu_x) + D2_x (a_x nu_x)
        sum += (ax[i - 1] * mu_x[c - 1] - ax[i + 1] * mu_x[c + 1]) * inv_2h +
               (ax[i + 1] * nu_x[c + 1] - 2.0 * ax[i] * nu_x[c] + ax[i - 1] * nu_x[c - 1]) * inv_h2;
      if (z_layer)
        sum += (az_up * mu_z[c - nx] - az_down * mu_z[c + nx]) * inv_2h +
               (az_down * nu_z[c + nx] - 2.0 * az_here * nu_z[c] + az_up * nu_z[c - nx]) * inv_h2;
      q_next[c] = 2.0 * q[c] - q_prev[c] + w[c] * sum;
    }
  }
}

void inject_residual(const Grid& g, const Acquisition& acq, const double* w, const double* residual, double* q) {
  for (std::size_t r = 0; r < acq.receiver_i.size(); ++r) {
    const std::size_t c = g.index(acq.receiver_i[r], acq.receiver_j);
    q[c] += w[c] * residual[r];
  }
}

void gradiente(const Grid& g, const std::vector<double>& velocity, const double* w, const double* q, const double* p_next,
               const double* p, const double* p_prev, std::size_t source_at, double source_value, double* gradient) {
  for (int j = 1; j < g.nz - 1; ++j)
    for (std::size_t c = g.index(1, j), end = g.index(g.nx - 1, j); c < end; ++c) {
      const double d2p = p_next[c] - 2.0 * p[c] + p_prev[c] - (c == source_at ? source_value : 0.0);
      gradient[c] += 2.0 / (velocity[c] * w[c]) * q[c] * d2p;
    }
}

// --- shots ---

namespace {

void check_shot(const Experiment& s, const std::vector<double>& velocity, int shot) {
  if (velocity.size() != s.grid.size()) throw std::invalid_argument("the velocity model does not match the grid");
  if (shot < 0 || shot >= static_cast<int>(s.acquisition.source_i.size()))
    throw std::invalid_argument("shot " + std::to_string(shot) + " does not exist");
}

// Runs shot `shot` forward; after every step calls on_step(n, P^{n+1}).
template <class OnStep>
void run_forward(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot, OnStep on_step) {
  check_shot(s, velocity, shot);
  const Grid& g = s.grid;
  const std::vector<double> w = squared_courant_factor(s, velocity);
  const std::size_t n_points = g.size();
  std::vector<double> p_prev(n_points, 0.0), p(n_points, 0.0), p_next(n_points, 0.0);
  std::vector<double> psi_x(n_points, 0.0), psi_z(n_points, 0.0), zeta_x(n_points, 0.0), zeta_z(n_points, 0.0);
  const std::size_t source_at = g.index(s.acquisition.source_i[shot], s.acquisition.source_j);
  for (int n = 0; n < s.time.nt; ++n) {
    psi(g, cpml, p.data(), psi_x.data(), psi_z.data());
    propagator_half(g, cpml, w.data(), p_prev.data(), p.data(), psi_x.data(), psi_z.data(), zeta_x.data(),
                    zeta_z.data(), p_next.data());
    add_source(p_next.data(), source_at, source_sample(s, n));
    on_step(n, p_next);
    std::swap(p_prev, p);
    std::swap(p, p_next);
  }
}

}  // namespace

ShotRecord model_shot(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot, Film* film) {
  const Grid& g = s.grid;
  const Acquisition& acq = s.acquisition;
  ShotRecord rec{s.time.nt, static_cast<int>(acq.receiver_i.size()), {}};
  rec.samples.assign(static_cast<std::size_t>(rec.nt) * rec.receivers, 0.0);
  if (film) {
    film->frame_size = g.size();
    // Every frame but P^0 = 0 is written below: no need to clear a film that is reused.
    film->frames.resize(static_cast<std::size_t>(s.time.nt + 1) * g.size());
    std::fill(film->frame(0), film->frame(1), 0.0);
  }
  run_forward(s, cpml, velocity, shot, [&](int n, const std::vector<double>& p_next) {
    for (int r = 0; r < rec.receivers; ++r) rec.at(n, r) = p_next[g.index(acq.receiver_i[r], acq.receiver_j)];
    if (film) std::copy(p_next.begin(), p_next.end(), film->frame(n + 1));
  });
  return rec;
}

ShotRecord record_points(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot,
                         const std::vector<std::size_t>& points) {
  for (std::size_t c : points)
    if (c >= s.grid.size()) throw std::invalid_argument("a recorded point is outside the grid");
  ShotRecord rec{s.time.nt, static_cast<int>(points.size()), {}};
  rec.samples.assign(static_cast<std::size_t>(rec.nt) * rec.receivers, 0.0);
  run_forward(s, cpml, velocity, shot, [&](int n, const std::vector<double>& p_next) {
    for (int r = 0; r < rec.receivers; ++r) rec.at(n, r) = p_next[points[r]];
  });
  return rec;
}

void adjoint_shot(const Experiment& s, const Cpml& cpml, const std::vector<double>& velocity, int shot, const Film& film,
                  const ShotRecord& residual, std::vector<double>& gradient) {
  check_shot(s, velocity, shot);
  const Grid& g = s.grid;
  const int nt = s.time.nt;
  if (film.frame_size != g.size() || film.frames.size() != static_cast<std::size_t>(nt + 1) * g.size())
    throw std::invalid_argument("the film does not match the grid and nt");
  if (residual.nt != nt || residual.receivers != static_cast<int>(s.acquisition.receiver_i.size()))
    throw std::invalid_argument("the residual does not match nt and the receivers");
  if (gradient.size() != g.size()) throw std::invalid_argument("the gradient does not match the grid");
  const std::vector<double> w = squared_courant_factor(s, velocity);
  const std::size_t n_points = g.size();
  std::vector<double> q_prev(n_points, 0.0), q(n_points, 0.0), q_next(n_points, 0.0);  // q^{k+2}, q^{k+1}, q^k
  std::vector<double> mu_x(n_points, 0.0), mu_z(n_points, 0.0), nu_x(n_points, 0.0), nu_z(n_points, 0.0);
  const std::size_t source_at = g.index(s.acquisition.source_i[shot], s.acquisition.source_j);
  for (int k = nt; k >= 0; --k) {
    psi_adjoint(g, cpml, q.data(), mu_x.data(), mu_z.data(), nu_x.data(), nu_z.data());
    if (k <= nt - 1)  // P^{-1} = P^0 = 0: frame 0 serves for both
      gradiente(g, velocity, w.data(), q.data(), film.frame(k + 1), film.frame(k), film.frame(std::max(k - 1, 0)),
                source_at, source_sample(s, k), gradient.data());
    propagator_half_adjoint(g, cpml, w.data(), q_prev.data(), q.data(), mu_x.data(), mu_z.data(), nu_x.data(),
                            nu_z.data(), q_next.data());
    if (k >= 1)
      inject_residual(g, s.acquisition, w.data(), residual.samples.data() + static_cast<std::size_t>(k - 1) * residual.receivers,
                      q_next.data());
    std::swap(q_prev, q);
    std::swap(q, q_next);
  }
}

}  // namespace warpmodel::fwi
