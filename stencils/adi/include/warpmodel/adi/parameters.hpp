// Physical and numerical parameters of the ADI shallow-water solver (MIKE 21 HD style, thesis
// chapter 4; ../shared/notes/002-adi-shallow-water.md) and the per-sweep constants derived from them.
#pragma once

namespace warpmodel::adi {

struct PhysicalParameters {
  double dx = 100.0;       // m (thesis performance runs)
  double dy = 100.0;       // m
  double dt = 20.0;        // s, one full ADI step (x-sweep + y-sweep)
  double g = 9.81;         // m/s^2
  double manning = 32.0;   // M in C = M h^(1/6) (Chezy from Manning)
  bool convection = true;  // (p^2/h)_x and (pq/h)_y terms
  bool friction = true;    // bed resistance g p sqrt(p^2+q^2) / (C^2 h^2)
  // The 1D linear verification problem (thesis 6.6) has h constant in the gravity term; with this
  // flag the gravity coefficient uses the still-water depth -bed instead of h = zeta - bed.
  bool linear_depth = false;
};

enum class SweepDirection { X, Y };

// Constants of one sweep in the sweep's own frame: "along" is the implicit direction (x for the
// x-sweep), "cross" the explicit one. Values are computed in double and rounded once to T.
template <class T>
struct SweepConstants {
  T mass_diagonal;        // B = 4 d_along / dt: zeta coefficient of a mass row multiplied by 2 d_along
  T inv_mass_diagonal;    // 1 / B (the CR step of cr-pcr)
  T along_over_cross;     // d_along / d_cross
  T inv_dt;               // 1 / dt
  T inv_4_d_along;        // 1 / (4 d_along): convective coefficients l*, r*
  T g_over_2_d_along;     // g / (2 d_along): gravity coefficients a*, c*
  T inv_2_d_cross;        // 1 / (2 d_cross): cross-momentum term of d*
  T g;
  T inv_manning_squared;  // 1 / M^2
  bool convection;
  bool friction;
  bool linear_depth;
};

template <class T>
SweepConstants<T> sweep_constants(const PhysicalParameters& p, SweepDirection direction) {
  const double along = direction == SweepDirection::X ? p.dx : p.dy;
  const double cross = direction == SweepDirection::X ? p.dy : p.dx;
  const double b = 4.0 * along / p.dt;
  SweepConstants<T> k{};
  k.mass_diagonal = static_cast<T>(b);
  k.inv_mass_diagonal = static_cast<T>(1.0 / b);
  k.along_over_cross = static_cast<T>(along / cross);
  k.inv_dt = static_cast<T>(1.0 / p.dt);
  k.inv_4_d_along = static_cast<T>(1.0 / (4.0 * along));
  k.g_over_2_d_along = static_cast<T>(p.g / (2.0 * along));
  k.inv_2_d_cross = static_cast<T>(1.0 / (2.0 * cross));
  k.g = static_cast<T>(p.g);
  k.inv_manning_squared = static_cast<T>(1.0 / (p.manning * p.manning));
  k.convection = p.convection;
  k.friction = p.friction;
  k.linear_depth = p.linear_depth;
  return k;
}

}  // namespace warpmodel::adi
