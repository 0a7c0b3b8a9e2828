// A GPU variant against the double-precision CPU reference: what is compared and within what
// (docs/fwi.md, "Checked against the CPU reference"). Plain C++: run-fwi --check and the gpu tests
// use the same numbers.
#pragma once

#include <cmath>
#include <vector>

namespace warpmodel::fwi::gpu {

struct CheckTolerance {
  double gather = 1e-4;      // ||gather - reference|| / ||reference||, one shot
  double misfit = 1e-4;      // |E - E_ref| / E_ref
  double cosine_gap = 1e-5;  // 1 - cos(g, g_ref) at most
  double norm = 1e-3;        // | ||g|| / ||g_ref|| - 1 | at most
};

// Single against double precision; --use_fast_math's approximate expf, logf, powf and division
// (the CPML coefficients, the gradient's 2 / (c W)) get ten times more room.
inline CheckTolerance check_tolerance(bool fast_math) {
  CheckTolerance t;
  if (fast_math) t.gather = 1e-3, t.misfit = 1e-3, t.cosine_gap = 1e-4, t.norm = 1e-2;
  return t;
}

struct CheckResult {
  double gather = 0, misfit = 0, cosine_gap = 0, norm = 0;
  bool passed = false;
};

inline double relative_l2(const std::vector<float>& a, const std::vector<double>& ref) {
  double diff = 0, norm = 0;
  for (std::size_t k = 0; k < ref.size() && k < a.size(); ++k) {
    diff += (a[k] - ref[k]) * (a[k] - ref[k]);
    norm += ref[k] * ref[k];
  }
  return norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
}

inline CheckResult compare(const std::vector<float>& gather, const std::vector<double>& gather_ref, double e, double e_ref,
                           const std::vector<float>& g, const std::vector<double>& g_ref, const CheckTolerance& t) {
  CheckResult r;
  r.gather = relative_l2(gather, gather_ref);
  r.misfit = e_ref > 0 ? std::fabs(e - e_ref) / e_ref : std::fabs(e);
  double dot = 0, n = 0, n_ref = 0;
  for (std::size_t c = 0; c < g_ref.size() && c < g.size(); ++c) {
    dot += g[c] * g_ref[c];
    n += double(g[c]) * g[c];
    n_ref += g_ref[c] * g_ref[c];
  }
  r.cosine_gap = n > 0 && n_ref > 0 ? 1 - dot / std::sqrt(n * n_ref) : 1;
  r.norm = n_ref > 0 ? std::fabs(std::sqrt(n / n_ref) - 1) : 1;
  r.passed = std::isfinite(r.gather + r.misfit + r.cosine_gap + r.norm) && r.gather <= t.gather && r.misfit <= t.misfit &&
             r.cosine_gap <= t.cosine_gap && r.norm <= t.norm;
  return r;
}

}  // namespace warpmodel::fwi::gpu
