// CPU reference of the ADI solver: the 1D verification problem converges at second order, the
// closed basin conserves its volume, a basin at rest stays at rest, the momentum row reproduces the
// thesis's discretisation in the reading we chose, and the line solver agrees with plain Thomas.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "warpmodel/adi/coefficients.hpp"
#include "warpmodel/adi/reference.hpp"
#include "warpmodel/adi/standing_wave.hpp"
#include "warpmodel/adi/sweep_view.hpp"
#include "warpmodel/adi/tridiagonal.hpp"

namespace warpmodel::adi {
namespace {

std::vector<double> dx_of(const std::vector<StandingWaveResult>& runs) {
  std::vector<double> v;
  for (const auto& r : runs) v.push_back(r.dx);
  return v;
}

std::vector<StandingWaveResult> standing_wave_runs(double periods) {
  std::vector<StandingWaveResult> runs;
  for (int cells : {32, 64, 128, 256}) runs.push_back(run_standing_wave(cells, 0.5, periods));
  return runs;
}

// Thesis 6.6: the error decreases as dx^2. Measured after 1.125 periods, where both zeta
// (cos(w t) != 0) and the flux (sin(w t) != 0) carry the phase error at first order.
TEST(StandingWave, ConvergesAtSecondOrder) {
  const auto runs = standing_wave_runs(1.125);
  std::vector<double> zeta_error, flux_error;
  for (const auto& r : runs) {
    zeta_error.push_back(r.max_zeta_error);
    flux_error.push_back(r.max_flux_error);
  }
  const double zeta_order = observed_order(dx_of(runs), zeta_error);
  const double flux_order = observed_order(dx_of(runs), flux_error);
  EXPECT_GE(zeta_order, 1.8);
  EXPECT_LE(zeta_order, 2.2);
  EXPECT_GE(flux_order, 1.8);
  EXPECT_LE(flux_order, 2.2);
  // The finest run is accurate in absolute terms too (amplitude 5e-3 m).
  EXPECT_LT(runs.back().max_zeta_error, 2e-6);
}

// The order window discriminates: after whole or half periods the zeta error is second order in the
// phase error (sin(w t) = 0 there), i.e. fourth order in dx, and falls outside [1.8, 2.2].
TEST(StandingWave, OrderWindowRejectsOtherOrders) {
  const auto runs = standing_wave_runs(1.0);
  std::vector<double> zeta_error;
  for (const auto& r : runs) zeta_error.push_back(r.max_zeta_error);
  EXPECT_GT(observed_order(dx_of(runs), zeta_error), 3.5);
  EXPECT_NEAR(observed_order({1, 0.5, 0.25}, {3, 1.5, 0.75}), 1.0, 1e-12);
}

TEST(StandingWave, RejectsBadInput) {
  EXPECT_THROW(run_standing_wave(1, 0.5, 1.0), std::invalid_argument);
  EXPECT_THROW(observed_order({1.0}, {1.0}), std::invalid_argument);
  EXPECT_THROW(observed_order({1.0, 0.5}, {1.0, 0.0}), std::invalid_argument);
}

// Eq 4.3.2 read with q in its last term: the mass rows telescope and the closed basin conserves
// sum(zeta) to rounding (with the printed p it would not).
TEST(Reference, VolumeIsConservedToRounding) {
  State<double> s = make_hump_state(64, 48);
  double scale = 0;
  for (double z : s.zeta) scale += std::abs(z);
  const double before = total_elevation(s);
  reference_run(s, PhysicalParameters{}, 100);
  EXPECT_LT(std::abs(total_elevation(s) - before), 1e-12 * scale);
  // ... and the flow is not trivial.
  double max_q = 0;
  for (double q : s.q_new) max_q = std::max(max_q, std::abs(q));
  EXPECT_GT(max_q, 1e-3);
}

TEST(Reference, RestStaysAtRest) {
  HumpProblem flat;
  flat.amplitude = 0;
  State<double> s = make_hump_state(32, 32, flat);
  reference_run(s, PhysicalParameters{}, 10);
  for (std::size_t c = 0; c < s.cells(); ++c) {
    ASSERT_EQ(s.zeta[c], 0.0);
    ASSERT_EQ(s.p[c], 0.0);
    ASSERT_EQ(s.q_new[c], 0.0);
  }
}

TEST(Reference, WallFluxesStayZero) {
  State<double> s = make_hump_state(40, 24);
  reference_run(s, PhysicalParameters{}, 20);
  for (int k = 0; k < s.ny; ++k) EXPECT_EQ(s.p[static_cast<std::size_t>(s.nx - 1 + k * s.nx)], 0.0);
  for (int j = 0; j < s.nx; ++j) EXPECT_EQ(s.q_new[static_cast<std::size_t>(j + (s.ny - 1) * s.nx)], 0.0);
}

TEST(Reference, RejectsInconsistentState) {
  State<double> s = make_hump_state(8, 8);
  s.p.pop_back();
  EXPECT_THROW(reference_step(s, PhysicalParameters{}), std::invalid_argument);
}

// A small random state with depths around 10 m and fluxes of order 1.
State<double> random_state(int nx, int ny, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  State<double> s = make_hump_state(nx, ny);
  for (std::size_t c = 0; c < s.cells(); ++c) {
    s.zeta[c] = 0.3 * u(rng);
    s.bed[c] = -10.0 + 2.0 * u(rng);
    s.p[c] = u(rng);
    s.q_old[c] = u(rng);
    s.q_new[c] = u(rng);
  }
  return s;
}

// The row built by build_cell (after LcElim) applied to values that satisfy mass rows i and i+1
// must equal the x-momentum equation as the thesis discretises it (4.4.2, 4.4.4-4.4.12), evaluated
// here term by term in its printed (unsimplified) form. The convective term uses the flux averages
// of 4.4.4, (p_{j+1} + p_j)/2; the products printed in 4.5.4 would fail this test.
TEST(Coefficients, MomentumRowReproducesEquation444) {
  const int nx = 6, ny = 5, i = 2, l = 2;
  const State<double> s = random_state(nx, ny, 7);
  const PhysicalParameters ph;
  const auto k = sweep_constants<double>(ph, SweepDirection::X);
  const SweepView<double> v{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, nx};
  const CellRows<double> row = build_cell(v, i, l, nx, ny, k);
  const double dma_i = mass_rhs(v, i, l, k), dma_next = mass_rhs(v, i + 1, l, k);

  // Unknowns at the new level: choose zeta_i, zeta_{i+1}, p_i freely, the outer fluxes from the
  // mass rows.
  const double z0 = 0.17, z1 = -0.09, p0 = 0.6;
  const double b = 4 * ph.dx / ph.dt;
  const double pw = b * z0 + p0 - dma_i;    // mass row i:   -p_{i-1} + B z_i + p_i = dma_i
  const double pe = dma_next + p0 - b * z1;  // mass row i+1: -p_i + B z_{i+1} + p_{i+1} = dma_{i+1}
  const double lcelim_residual = row.amo * z0 + row.bmo * p0 + row.cmo * z1 - row.dmo;

  auto at = [nx](int j, int kk) { return static_cast<std::size_t>(j + kk * nx); };
  auto h = [&](int j, int kk) { return s.zeta[at(j, kk)] - s.bed[at(j, kk)]; };
  const double pn_w = s.p[at(i - 1, l)], pn = s.p[at(i, l)], pn_e = s.p[at(i + 1, l)];
  const double time_term = (p0 - pn) / ph.dt;
  const double convective = ((pe + p0) / 2 * (pn_e + pn) / 2 / h(i + 1, l) - (p0 + pw) / 2 * (pn + pn_w) / 2 / h(i, l)) / ph.dx;
  const double hbar1 = (h(i, l) + h(i, l + 1) + h(i + 1, l) + h(i + 1, l + 1)) / 4;
  const double hbar2 = (h(i, l - 1) + h(i, l) + h(i + 1, l - 1) + h(i + 1, l)) / 4;
  const double v1 = (s.q_new[at(i, l)] + s.q_new[at(i + 1, l)]) / 2 / hbar1;
  const double v2 = (s.q_new[at(i, l - 1)] + s.q_new[at(i + 1, l - 1)]) / 2 / hbar2;
  const double cross = ((s.p[at(i, l + 1)] + pn) / 2 * v1 - (pn + s.p[at(i, l - 1)]) / 2 * v2) / ph.dy;
  const double gravity = ph.g * (h(i, l) + h(i + 1, l)) / 2 * (z1 - z0) / ph.dx;
  const double q_hat = (s.q_old[at(i, l)] + s.q_old[at(i + 1, l)] + s.q_old[at(i, l - 1)] + s.q_old[at(i + 1, l - 1)] +
                        s.q_new[at(i, l)] + s.q_new[at(i + 1, l)] + s.q_new[at(i, l - 1)] + s.q_new[at(i + 1, l - 1)]) /
                       8;
  const double h_hat = std::sqrt(2 / (std::pow(1 / h(i, l), 2) + std::pow(1 / h(i + 1, l), 2)));
  const double chezy = ph.manning * std::pow(h_hat, 1.0 / 6.0);
  const double friction = ph.g * p0 * std::sqrt(pn * pn + q_hat * q_hat) / (chezy * chezy * h_hat * h_hat);
  const double equation = time_term + convective + cross + gravity + friction;
  EXPECT_NEAR(lcelim_residual, equation, 1e-12 * (std::abs(time_term) + std::abs(gravity) + 1));

  // The product reading of 4.5.4 (l* = -p_j p_{j-1}/(4 dx h_j), ...) differs from the sums.
  const auto sums = convective_coefficients(pn_w, pn, pn_e, 1 / h(i, l), 1 / h(i + 1, l), k);
  EXPECT_GT(std::abs(sums.east - pn_e * pn / (4 * ph.dx * h(i + 1, l))), 1e-6);
}

// The mass row right-hand side is eq 4.5.3 with q in the last term (4.3.2 prints p there).
TEST(Coefficients, MassRowUsesCrossFluxDivergence) {
  const int nx = 5, ny = 4, i = 2, l = 1;
  const State<double> s = random_state(nx, ny, 11);
  const PhysicalParameters ph;
  const auto k = sweep_constants<double>(ph, SweepDirection::X);
  const SweepView<double> v{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, nx};
  auto at = [nx](int j, int kk) { return static_cast<std::size_t>(j + kk * nx); };
  const double expected = s.p[at(i - 1, l)] - s.p[at(i, l)] -
                          ph.dx / ph.dy *
                              (s.q_new[at(i, l)] - s.q_new[at(i, l - 1)] + s.q_old[at(i, l)] - s.q_old[at(i, l - 1)]) +
                          4 * ph.dx / ph.dt * s.zeta[at(i, l)];
  EXPECT_NEAR(mass_rhs(v, i, l, k), expected, 1e-12);
}

// Dense Gaussian elimination with partial pivoting: the independent check of the solvers.
std::vector<double> dense_solve(std::vector<std::vector<double>> m, std::vector<double> rhs) {
  const std::size_t n = rhs.size();
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::abs(m[r][c]) > std::abs(m[piv][c])) piv = r;
    std::swap(m[c], m[piv]);
    std::swap(rhs[c], rhs[piv]);
    for (std::size_t r = c + 1; r < n; ++r) {
      const double f = m[r][c] / m[c][c];
      for (std::size_t cc = c; cc < n; ++cc) m[r][cc] -= f * m[c][cc];
      rhs[r] -= f * rhs[c];
    }
  }
  std::vector<double> x(n);
  for (std::size_t r = n; r-- > 0;) {
    double acc = rhs[r];
    for (std::size_t cc = r + 1; cc < n; ++cc) acc -= m[r][cc] * x[cc];
    x[r] = acc / m[r][r];
  }
  return x;
}

// adi_sixth_root (the friction's X^(1/6)): within 2 units in the last place of the correctly
// rounded value over twelve decades, in double and single (cbrt(sqrt(x)), which it replaced, was
// within 2.6 in double). The host path; the device path's seed differs, and the GPU tests hold it
// to the CPU reference after 100 steps.
template <class T>
double worst_sixth_root_ulps() {
  double worst = 0;
  for (int k = 0; k <= 20000; ++k) {
    const T x = static_cast<T>(std::pow(10.0, -6 + 12.0 * k / 20000));
    const long double exact = std::pow(static_cast<long double>(x), 1.0L / 6);
    const long double got = adi_sixth_root(x);
    worst = std::max(worst, static_cast<double>(std::fabs((got - exact) / exact)) / std::numeric_limits<T>::epsilon());
  }
  return worst;
}

TEST(Coefficients, SixthRootIsWithinTwoUlp) {
  EXPECT_LE(worst_sixth_root_ulps<double>(), 2.0);
  EXPECT_LE(worst_sixth_root_ulps<float>(), 2.0);
}

TEST(Tridiagonal, ThomasMatchesDenseSolve) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  const int n = 37;
  std::vector<double> a(n), b(n), c(n), d(n), cp(n), x(n);
  std::vector<std::vector<double>> dense(n, std::vector<double>(n, 0.0));
  for (int i = 0; i < n; ++i) {
    a[i] = i > 0 ? u(rng) : 0;
    c[i] = i < n - 1 ? u(rng) : 0;
    b[i] = std::abs(a[i]) + std::abs(c[i]) + 0.5 + std::abs(u(rng));
    d[i] = u(rng);
    dense[i][i] = b[i];
    if (i > 0) dense[i][i - 1] = a[i];
    if (i < n - 1) dense[i][i + 1] = c[i];
  }
  thomas_solve(n, a.data(), b.data(), c.data(), d.data(), cp.data(), x.data(), 1);
  const auto ref = dense_solve(dense, d);
  for (int i = 0; i < n; ++i) EXPECT_NEAR(x[i], ref[i], 1e-13);
}

// The folded line solver against dense elimination of the interleaved 2n-1 system of a real line.
TEST(Tridiagonal, FoldedThomasSolvesTheInterleavedLine) {
  const State<double> s = random_state(9, 4, 5);
  const auto k = sweep_constants<double>(PhysicalParameters{}, SweepDirection::X);
  const SweepView<double> v{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, s.nx};
  const int n = s.nx, l = 1, m = 2 * n - 1;
  std::vector<CellRows<double>> rows;
  for (int i = 0; i < n; ++i) rows.push_back(build_cell(v, i, l, n, s.ny, k));
  std::vector<std::vector<double>> dense(m, std::vector<double>(m, 0.0));
  std::vector<double> rhs(m);
  for (int i = 0; i < n; ++i) {
    const int r = 2 * i;
    if (i > 0) dense[r][r - 1] = -1;
    dense[r][r] = k.mass_diagonal;
    if (i < n - 1) dense[r][r + 1] = 1;
    rhs[r] = rows[i].dma;
    if (i < n - 1) {
      dense[r + 1][r] = rows[i].amo;
      dense[r + 1][r + 1] = rows[i].bmo;
      dense[r + 1][r + 2] = rows[i].cmo;
      rhs[r + 1] = rows[i].dmo;
    }
  }
  const auto ref = dense_solve(dense, rhs);
  for (const bool two_ended : {false, true}) {
    std::vector<double> cp(n), dp(n), zeta(n), p(n, 0.0);
    if (two_ended)
      solve_line_two_ended(n, rows, k.mass_diagonal, cp.data(), dp.data(), zeta.data(), p.data());
    else
      solve_line_folded_thomas(n, rows, k.mass_diagonal, cp.data(), dp.data(), zeta.data(), p.data());
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(zeta[i], ref[2 * i], 1e-12) << (two_ended ? "two-ended " : "") << i;
      if (i < n - 1) {
        EXPECT_NEAR(p[i], ref[2 * i + 1], 1e-12) << (two_ended ? "two-ended " : "") << i;
      }
    }
  }
}

// Both ends of every line length: the meeting cell and the outermost rows.
TEST(Tridiagonal, TwoEndedThomasMatchesOneDirectionForAllLengths) {
  for (int n = 1; n <= 12; ++n) {
    const State<double> s = random_state(n, 3, static_cast<unsigned>(n));
    const auto k = sweep_constants<double>(PhysicalParameters{}, SweepDirection::X);
    const SweepView<double> v{s.zeta.data(), s.bed.data(), s.p.data(), s.q_old.data(), s.q_new.data(), 1, s.nx};
    std::vector<CellRows<double>> rows;
    for (int i = 0; i < n; ++i) rows.push_back(build_cell(v, i, 1, n, s.ny, k));
    std::vector<double> c1(n), d1(n), za(n), pa(n, 0.0), zb(n), pb(n, 0.0);
    solve_line_folded_thomas(n, rows, k.mass_diagonal, c1.data(), d1.data(), za.data(), pa.data());
    solve_line_two_ended(n, rows, k.mass_diagonal, c1.data(), d1.data(), zb.data(), pb.data());
    for (int i = 0; i < n; ++i) {
      EXPECT_NEAR(za[i], zb[i], 1e-13) << "n " << n << " zeta " << i;
      EXPECT_NEAR(pa[i], pb[i], 1e-13) << "n " << n << " p " << i;
    }
  }
}

}  // namespace
}  // namespace warpmodel::adi
