#include <cstdio>
#include <cstring>
#include <random>
#include <vector>
// Host check of the probe's load_line_pair_stencils against load_cell_stencil, field by field, on a
// 16 x 12 grid of random values (every wall case), run on the development machine before the device run:
// with patches/cluster-y.patch applied, from the repository root,
//   nvcc -std=c++20 -arch=sm_90 -Istencils/adi/include -Istencils/adi/gpu -Isupport/cuda/include \
//        -o /tmp/line_pair_check results/h200/logs/adi-cluster-y/line_pair_check.cu && /tmp/line_pair_check
// printed "checked 300 stencils, 0 differ".
#define EXP_CLUSTER_Y 1
#define EXP_CLUSTER_LINE_PAIRS 1
#include "adi_kernels.cuh"
using namespace warpmodel::adi;
using namespace warpmodel::adi::gpu;
int main() {
  const int nx = 16, ny = 12;  // row length nx (lines of the y-sweep), ny rows (along)
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> f[5];
  for (auto& v : f) { v.resize(nx * ny); for (auto& x : v) x = u(rng); }
  SweepView<double> view{f[0].data(), f[1].data(), f[2].data(), f[3].data(), f[4].data(), nx, 1};
  int bad = 0, checked = 0;
  for (int i = 0; i < ny; ++i)
    for (int l = 0; l < nx; l += 2) {
      CellStencil<double> a, b;
      auto w = ColumnWindow<double>::at(view, i, l);
      load_line_pair_stencils<double, false>(w, i, l, ny, nx, a, b);
      CellStencil<double> ra = load_cell_stencil<double>(view, i, l, ny, nx), rb = load_cell_stencil<double>(view, i, l + 1, ny, nx);
      bad += std::memcmp(&a, &ra, sizeof a) != 0;
      bad += std::memcmp(&b, &rb, sizeof b) != 0;
      if (i > 0 && i + 2 < ny && l > 0 && l + 2 < nx) {
        CellStencil<double> ia, ib;
        load_line_pair_stencils<double, true>(w, i, l, ny, nx, ia, ib);
        bad += std::memcmp(&ia, &ra, sizeof ia) != 0;
        bad += std::memcmp(&ib, &rb, sizeof ib) != 0;
        checked += 2;
      }
      checked += 2;
      if (std::memcmp(&a, &ra, sizeof a) || std::memcmp(&b, &rb, sizeof b)) {
        const double* x = &a.zeta; const double* y = &ra.zeta; const double* x2 = &b.zeta; const double* y2 = &rb.zeta;
        for (int k = 0; k < (int)(sizeof a / 8); ++k) if (x[k] != y[k] || x2[k] != y2[k]) printf("i=%d l=%d field %d: a %g/%g b %g/%g\n", i, l, k, x[k], y[k], x2[k], y2[k]);
      }
    }
  printf("checked %d stencils, %d differ\n", checked, bad);
  return bad != 0;
}
