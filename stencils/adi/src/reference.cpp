#include "warpmodel/adi/reference.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/sweep_view.hpp"
#include "warpmodel/adi/tridiagonal.hpp"

namespace warpmodel::adi {
namespace {

// One sweep over all lines. Builds read the old fields only (the GPU builds every line before any
// solve), so the results go to separate arrays.
template <class T>
void sweep(const SweepView<T>& view, int n, int lines, const SweepConstants<T>& k, std::vector<T>& zeta_out,
           std::vector<T>& flux_out) {
  std::vector<CellRows<T>> rows(static_cast<std::size_t>(n));
  std::vector<T> cp(static_cast<std::size_t>(n)), dp(static_cast<std::size_t>(n));
  std::vector<T> zeta(static_cast<std::size_t>(n)), flux(static_cast<std::size_t>(n), T(0));
  for (int l = 0; l < lines; ++l) {
    for (int i = 0; i < n; ++i) rows[static_cast<std::size_t>(i)] = build_cell(view, i, l, n, lines, k);
    solve_line_folded_thomas(n, rows, k.mass_diagonal, cp.data(), dp.data(), zeta.data(), flux.data());
    for (int i = 0; i < n; ++i) {
      const std::size_t at = static_cast<std::size_t>(i * view.along_stride + l * view.line_stride);
      zeta_out[at] = zeta[static_cast<std::size_t>(i)];
      flux_out[at] = i < n - 1 ? flux[static_cast<std::size_t>(i)] : T(0);  // the wall face stays 0
    }
  }
}

}  // namespace

template <class T>
void check_state(const State<T>& s) {
  if (s.nx < 1 || s.ny < 1) throw std::invalid_argument("ADI state: nx and ny must be >= 1");
  const std::size_t cells = s.cells();
  for (const auto* v : {&s.zeta, &s.bed, &s.p, &s.q_old, &s.q_new})
    if (v->size() != cells)
      throw std::invalid_argument("ADI state: every array must have nx * ny = " + std::to_string(cells) + " entries");
}

template <class T>
void reference_step(State<T>& s, const PhysicalParameters& physics) {
  check_state(s);
  const int nx = s.nx, ny = s.ny;
  std::vector<T> zeta_half(s.cells()), p_next(s.cells());
  // x-sweep: along = x (stride 1), lines = rows (stride nx).
  const SweepView<T> x_view{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, nx};
  sweep(x_view, nx, ny, sweep_constants<T>(physics, SweepDirection::X), zeta_half, p_next);
  // y-sweep: along = y (stride nx), lines = columns (stride 1); cross fluxes p^n and p^{n+1}.
  std::vector<T> zeta_next(s.cells()), q_next(s.cells());
  const SweepView<T> y_view{zeta_half.data(), s.bed.data(), s.q_new.data(), s.p.data(), p_next.data(), nx, 1};
  sweep(y_view, ny, nx, sweep_constants<T>(physics, SweepDirection::Y), zeta_next, q_next);
  s.zeta = std::move(zeta_next);
  s.p = std::move(p_next);
  s.q_old = std::move(s.q_new);
  s.q_new = std::move(q_next);
}

template void reference_step<double>(State<double>&, const PhysicalParameters&);
template void reference_step<float>(State<float>&, const PhysicalParameters&);
template void check_state<double>(const State<double>&);
template void check_state<float>(const State<float>&);

}  // namespace warpmodel::adi
