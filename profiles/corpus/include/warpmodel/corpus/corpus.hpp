// The kernel corpus: kernels written the way users write them, naive and tuned, each
// stressing a different limiter, declared here as data. Plain C++ (no CUDA): the registry, the thread
// space of every launch and the README table build and are tested everywhere; the kernels and their
// workloads are in workload.hpp (warpmodel_corpus_gpu).
//
// The thread space: every launch runs one thread per point of domain(kernel, size), in blocks of
// `Shape` (z = 1), on a grid of exactly ceil(domain / block) per dimension; threads outside the
// domain return early (or idle through the block's barriers). A kernel that does several elements
// per thread, or a warp per row, declares its domain in threads. So the grid of any block shape
// follows from the domain alone, which is what `warpmodel sweep` does with a profile's
// `launch.domain`.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "warpmodel/kernel_profile.hpp"  // Dim3

namespace warpmodel::corpus {

// A block shape (z = 1).
struct Shape {
  unsigned x = 32, y = 8;
  unsigned threads() const { return x * y; }
  std::string label() const;  // "32x8"
  bool operator==(const Shape&) const = default;
};

// "32x8" or "256" (y = 1); throws std::invalid_argument naming `what`.
Shape parse_shape(std::string_view text, std::string_view what = "--block");

// One problem size. What nx, ny, nz mean is the kernel's `extents` line; matrices are ny rows of nx
// contiguous columns, and their labels read rows x columns ("64x512") or "N^2".
struct Size {
  std::string label;  // "2048^2", "64x512", "16M"
  long long nx = 1, ny = 1, nz = 1;
};

// How the domain (threads) follows from a size.
enum class ThreadSpace {
  x,           // nx / elements_per_thread threads (1D: elements, columns, chains, ...)
  y,           // ny threads: a thread per row
  warp_per_y,  // 32 ny threads: a warp per row
  xy,          // nx x ny: a thread per point of a 2D grid
  xyz,         // nx x ny x nz: a thread per point of a 3D grid (grid.z = nz)
};
std::string_view to_string(ThreadSpace t);

struct KernelDecl {
  std::string name;       // "gemm-naive-f32": unique, lower case, dashes
  std::string klass;      // what kind of kernel, e.g. "naive-loop"
  std::string limiter;    // one line: what it stresses
  std::string precision;  // "f32", "f64", "u32" (integer kernels); tensor-core inputs "f16", "bf16", "e4m3"
  std::string function;   // the __global__ function, demangled without its parameters (as in the SASS)
  std::string extents;    // what nx, ny, nz of its sizes mean
  ThreadSpace threads = ThreadSpace::x;
  int elements_per_thread = 1;      // ThreadSpace::x only: nx / this threads
  bool power_of_two_block = false;  // halves the block (tree reductions, scans): threads a power of two
  bool single_block = false;        // the whole domain in one block: block.x >= domain.x
  std::vector<Size> sizes;          // smallest first
  std::vector<Shape> shapes;        // the block shapes the validation sweep measures
  // SASS the kernel must contain to stress what it claims (tests/profiles/corpus checks the built
  // program). Each entry: opcode prefixes at '.' boundaries, '|' between alternatives ("ATOMG|REDG"
  // matches "REDG.E.ADD.F32.FTZ.RN.STRONG.GPU"); "loop:" = inside a loop body (between a backward
  // branch and its target); "!" = must not occur anywhere.
  std::vector<std::string> sass_expect;
  // Tensor-core tiles (ThreadSpace::xy): a warp or warpgroup computes a tile of C, its threads a
  // column each and `rows_per_thread` rows, so the domain is nx x ny / rows_per_thread. Such a
  // kernel computes whole tiles only: block.x is a multiple of `block_x_multiple` (32: a warp of
  // columns; 128: a warpgroup), nx a multiple of block.x, ny of block.y x rows_per_thread and nz
  // (K) of `k_multiple` (its shared-memory stage).
  int rows_per_thread = 1;
  unsigned block_x_multiple = 1;
  int k_multiple = 1;
};

// The corpus, in a fixed order (by class).
const std::vector<KernelDecl>& kernels();
// nullptr when no kernel has that name.
const KernelDecl* find_kernel(std::string_view name);
std::vector<std::string> kernel_names();
// The classes in order of first appearance.
std::vector<std::string> classes();

// Threads the grid covers (one per point).
Dim3 domain(const KernelDecl& kernel, const Size& size);
// ceil(domain / block) per dimension (block z = 1).
Dim3 grid(const KernelDecl& kernel, const Size& size, Shape shape);
// "" when the kernel can launch with this shape at this size, else why not (whole warps, at most
// 1024 threads, 1D kernels need y = 1, power-of-two blocks, single-block kernels, whole tensor-core
// tiles).
std::string shape_problem(const KernelDecl& kernel, const Size& size, Shape shape);

// A size by its label, or by position: "small", "medium", "large" (first, second, last). Throws
// std::invalid_argument with one line naming the valid choices (and the closest label).
const Size& select_size(const KernelDecl& kernel, std::string_view label);
// The kernels a comma-separated list names ("all": every one). Throws std::invalid_argument with one
// line naming the closest names.
std::vector<const KernelDecl*> select_kernels(std::string_view list);

// The README table: one row per kernel (name, class, limiter, precision, threads, sizes, shapes).
std::string markdown_table();
// Launches of the whole corpus: kernels x sizes x shapes.
std::size_t launch_count();

}  // namespace warpmodel::corpus
