// Probe (issue 15, not kept): how fast can a fused ADI sweep's data movement be on this GPU?
// A sweep reads 5 state arrays (zeta, bed, the along flux, the cross flux at two times) with a stencil
// over the neighbouring lines (13 line-fields a line) and writes 2 (zeta, the along flux). The kernels
// below move exactly that data with stand-in arithmetic (values are meaningless) so that their times are
// floors for a sweep:
//   copy        1 read, 1 write (the bandwidth reference)
//   stream7     5 reads, 2 writes, element-wise (no stencil, no lines)
//   stencil7    5 reads (+ 8 neighbour-line reads, L1/L2 hits), 2 writes, element-wise
//   lines       today's fused structure: a block of 256 threads owns one line, builds 4 values a cell
//               into shared memory from the 13-load stencil (plain loads), barrier, stores 2 outputs;
//               76 KiB of shared memory so that two blocks share an SM as in the real sweep
//   pipe<CH,S>  a persistent block per SM (512 threads, one cell each) walks its own range of lines; thread 0 issues
//               bulk asynchronous copies (cp.async.bulk, TMA 1D) of the 13 line-fields of chunks of CH
//               cells into a ring of S stages, completion on mbarriers; the threads build from shared
//               memory; the next chunks' copies are in flight while the block builds and stores
// WORK = FP64 FMAs a cell pair added to the build (4 independent chains), to see how much arithmetic each
// structure hides behind its memory traffic (the real build and solve issue ~400 instructions a cell).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define CHECK(x)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (x);                                                          \
    if (e_ != cudaSuccess) {                                                       \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                \
    }                                                                              \
  } while (0)

struct Fields {
  const double *zeta, *bed, *along, *cross_new, *cross_old;
  double *zeta_out, *along_out;
};

template <int WORK>
__device__ __forceinline__ void work(double& a, double& b, double& c, double& d) {
#pragma unroll
  for (int k = 0; k < WORK / 4; ++k) {
    a = fma(a, 0.999, 1e-3);
    b = fma(b, 0.999, 1e-3);
    c = fma(c, 0.999, 1e-3);
    d = fma(d, 0.999, 1e-3);
  }
}

__global__ void copy_kernel(const double2* in, double2* out, long long n2) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n2; i += (long long)gridDim.x * blockDim.x)
    out[i] = in[i];
}

__global__ void stream7_kernel(Fields f, long long n2) {
  const double2 *z = (const double2*)f.zeta, *b = (const double2*)f.bed, *p = (const double2*)f.along,
                *qn = (const double2*)f.cross_new, *qo = (const double2*)f.cross_old;
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n2; i += (long long)gridDim.x * blockDim.x) {
    const double2 vz = z[i], vb = b[i], vp = p[i], vn = qn[i], vo = qo[i];
    ((double2*)f.zeta_out)[i] = make_double2(vz.x + vb.x + vn.x, vz.y + vb.y + vn.y);
    ((double2*)f.along_out)[i] = make_double2(vp.x + vo.x, vp.y + vo.y);
  }
}

// The 13 line-fields of the stencil at pair (i, i+1) of line l, summed into 4 values a cell.
__device__ __forceinline__ void stencil_pair(const Fields& f, int n, int lines, int i, int l, double2 v[4]) {
  const long long at = (long long)l * n + i;
  const long long up = l + 1 < lines ? at + n : at, down = l > 0 ? at - n : at;
  auto ld = [](const double* p, long long k) { return *(const double2*)(p + k); };
  const double2 z = ld(f.zeta, at), zu = ld(f.zeta, up), zd = ld(f.zeta, down);
  const double2 b = ld(f.bed, at), bu = ld(f.bed, up), bd = ld(f.bed, down);
  const double2 p = ld(f.along, at), pu = ld(f.along, up), pd = ld(f.along, down);
  const double2 qn = ld(f.cross_new, at), qnd = ld(f.cross_new, down);
  const double2 qo = ld(f.cross_old, at), qod = ld(f.cross_old, down);
  v[0] = make_double2(z.x + zu.x + zd.x, z.y + zu.y + zd.y);
  v[1] = make_double2(b.x + bu.x + bd.x, b.y + bu.y + bd.y);
  v[2] = make_double2(p.x + pu.x + pd.x, p.y + pu.y + pd.y);
  v[3] = make_double2(qn.x + qnd.x + qo.x + qod.x, qn.y + qnd.y + qo.y + qod.y);
}

template <int WORK>
__global__ void stencil7_kernel(Fields f, int n, int lines) {
  const long long pairs = (long long)n * lines / 2;
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < pairs; k += (long long)gridDim.x * blockDim.x) {
    const int l = (int)(2 * k / n), i = (int)(2 * k - (long long)l * n);
    double2 v[4];
    stencil_pair(f, n, lines, i, l, v);
    work<WORK>(v[0].x, v[1].x, v[2].y, v[3].y);
    const long long at = (long long)l * n + i;
    *(double2*)(f.zeta_out + at) = make_double2(v[0].x + v[1].x, v[0].y + v[1].y);
    *(double2*)(f.along_out + at) = make_double2(v[2].x + v[3].x, v[2].y + v[3].y);
  }
}

// Today's structure: a block per line, build into shared memory, barrier, store.
template <int WORK>
__global__ void __launch_bounds__(256, 2) lines_kernel(Fields f, int n, int lines) {
  extern __shared__ double coef[];  // 4 * n values
  const int l = blockIdx.x;
  for (int i = 2 * threadIdx.x; i < n; i += 2 * blockDim.x) {
    double2 v[4];
    stencil_pair(f, n, lines, i, l, v);
    work<WORK>(v[0].x, v[1].x, v[2].y, v[3].y);
#pragma unroll
    for (int a = 0; a < 4; ++a) *(double2*)(coef + a * n + i) = v[a];
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const long long at = (long long)l * n + i;
    f.zeta_out[at] = coef[i] + coef[n + i];
    f.along_out[at] = coef[2 * n + i] + coef[3 * n + i];
  }
}

// --- bulk asynchronous copies (TMA, 1D) and mbarriers -------------------------------------------
__device__ __forceinline__ unsigned smem_u32(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbar_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint64_t* bar, unsigned bytes) {
  unsigned long long state;
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 %0, [%1], %2;" : "=l"(state) : "r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, unsigned parity) {
  asm volatile(
      "{\n .reg .pred p;\n WAIT_%=:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra WAIT_%=;\n}\n" ::"r"(
          smem_u32(bar)),
      "r"(parity)
      : "memory");
}
__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_u32(dst)),
               "l"(src), "r"(bytes), "r"(smem_u32(bar))
               : "memory");
}

constexpr int kPipeThreads = 512;
constexpr int kStencilFields = 13;

template <int CH, int S>
constexpr int pipe_shared_bytes(int n) {
  return S * kStencilFields * CH * 8 + 4 * n * 8 + S * 8;
}

// Persistent pipeline: block b owns lines [b * lines / grid, (b + 1) * lines / grid).
template <int CH, int S, int WORK>
__global__ void __launch_bounds__(kPipeThreads, 1) pipe_kernel(Fields f, int n, int lines) {
  extern __shared__ __align__(128) unsigned char raw[];
  double* stage = (double*)raw;                        // S * 13 * CH
  double* coef = stage + S * kStencilFields * CH;      // 4 * n
  uint64_t* full = (uint64_t*)(coef + 4 * n);          // S
  const int first = (int)((long long)blockIdx.x * lines / gridDim.x);
  const int last = (int)((long long)(blockIdx.x + 1) * lines / gridDim.x);
  const int per_line = n / CH, total = (last - first) * per_line;
  if (threadIdx.x == 0) {
    for (int s = 0; s < S; ++s) mbar_init(&full[s], 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  auto issue = [&](int g) {
    const int s = g % S, l = first + g / per_line, i0 = (g % per_line) * CH;
    const long long at = (long long)l * n + i0;
    const long long up = l + 1 < lines ? at + n : at, down = l > 0 ? at - n : at;
    double* dst = stage + s * kStencilFields * CH;
    mbar_expect_tx(&full[s], kStencilFields * CH * 8);
    const double* src[kStencilFields] = {f.zeta + at,  f.zeta + up,      f.zeta + down,      f.bed + at,
                                         f.bed + up,   f.bed + down,     f.along + at,       f.along + up,
                                         f.along + down, f.cross_new + at, f.cross_new + down, f.cross_old + at,
                                         f.cross_old + down};
#pragma unroll
    for (int k = 0; k < kStencilFields; ++k) bulk_copy(dst + k * CH, src[k], CH * 8, &full[s]);
  };
  if (threadIdx.x == 0)
    for (int g = 0; g < S && g < total; ++g) issue(g);
  for (int g = 0; g < total; ++g) {
    const int s = g % S, i0 = (g % per_line) * CH;
    mbar_wait(&full[s], (g / S) & 1);
    const double* st = stage + s * kStencilFields * CH;
    {  // one cell a thread (CH == kPipeThreads): every thread has work in every chunk
      const int j = threadIdx.x;
      auto v1 = [&](int k) { return st[k * CH + j]; };
      double v[4] = {v1(0) + v1(1) + v1(2), v1(3) + v1(4) + v1(5), v1(6) + v1(7) + v1(8),
                     v1(9) + v1(10) + v1(11) + v1(12)};
      work<WORK / 2>(v[0], v[1], v[2], v[3]);
#pragma unroll
      for (int a = 0; a < 4; ++a) coef[a * n + i0 + j] = v[a];
    }
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // our reads of the stage before the next copy into it
    __syncthreads();
    if (threadIdx.x == 0 && g + S < total) issue(g + S);
    if (g % per_line == per_line - 1) {  // the line is built: store it while the next chunks arrive
      const int l = first + g / per_line;
      for (int i = threadIdx.x; i < n; i += kPipeThreads) {
        const long long at = (long long)l * n + i;
        f.zeta_out[at] = coef[i] + coef[n + i];
        f.along_out[at] = coef[2 * n + i] + coef[3 * n + i];
      }
      __syncthreads();
    }
  }
}

__global__ void fill_kernel(double* p, long long count, unsigned seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
    unsigned h = (unsigned)i * 2654435761u ^ seed * 40503u;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    h ^= h >> 15;
    p[i] = (h & 0xffffff) * (1.0 / 16777216.0);
  }
}

// --- timing -------------------------------------------------------------------------------------
struct Timer {
  cudaEvent_t a, b;
  double* flush;
  size_t flush_bytes = size_t(256) << 20;
  Timer() {
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    CHECK(cudaMalloc(&flush, flush_bytes));
  }
  template <class F>
  double median_us(F&& launch, int reps) {
    launch();  // warm-up
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      CHECK(cudaMemsetAsync(flush, r & 0xff, flush_bytes));  // L2 holds none of the inputs
      CHECK(cudaEventRecord(a));
      launch();
      CHECK(cudaEventRecord(b));
      CHECK(cudaEventSynchronize(b));
      CHECK(cudaGetLastError());
      float ms;
      CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms * 1e3);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 2048;
  const int lines = argc > 2 ? std::atoi(argv[2]) : n;
  const int reps = argc > 3 ? std::atoi(argv[3]) : 30;
  int sms = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  cudaDeviceProp prop{};
  CHECK(cudaGetDeviceProperties(&prop, 0));
  const size_t cells = (size_t)n * lines, bytes = cells * 8;
  std::vector<double*> a(7);
  for (size_t k = 0; k < a.size(); ++k) {
    CHECK(cudaMalloc(&a[k], bytes));
    fill_kernel<<<sms * 8, 256>>>(a[k], (long long)cells, 17u + (unsigned)k);
  }
  CHECK(cudaDeviceSynchronize());
  Fields f{a[0], a[1], a[2], a[3], a[4], a[5], a[6]};
  Timer timer;
  const double array_mb = bytes / 1e6, sweep_mb = 7 * array_mb;
  std::printf("{\"gpu\": \"%s\", \"sms\": %d, \"n\": %d, \"lines\": %d, \"reps\": %d, \"array_mb\": %.3f, \"rows\": [\n",
              prop.name, sms, n, lines, reps, array_mb);
  bool first_row = true;
  auto row = [&](const std::string& name, int work, double us, double mb) {
    std::printf("%s  {\"kernel\": \"%s\", \"work_fma_per_pair\": %d, \"median_us\": %.2f, \"dram_mb_nominal\": %.1f, "
                "\"tb_per_s\": %.3f}",
                first_row ? "" : ",\n", name.c_str(), work, us, mb, mb / us);  // MB/us = TB/s
    first_row = false;
    std::fflush(stdout);
  };
  const int grid_stream = sms * 16;
  {  // the pipeline's bulk copies bring the same stencil as plain loads: both kernels' outputs, bit for bit
    const int lines_shared = std::max(76 * 1024, 4 * n * 8 + 12 * 1024);
    CHECK(cudaFuncSetAttribute(lines_kernel<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, lines_shared));
    lines_kernel<0><<<lines, 256, lines_shared>>>(f, n, lines);
    CHECK(cudaDeviceSynchronize());
    std::vector<double> ref_z(cells), ref_p(cells), got_z(cells), got_p(cells);
    CHECK(cudaMemcpy(ref_z.data(), a[5], bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(ref_p.data(), a[6], bytes, cudaMemcpyDeviceToHost));
    const int shared = pipe_shared_bytes<512, 2>(n);
    long long mismatches = -1;
    if (shared <= 227 * 1024 && n % 512 == 0) {
      CHECK(cudaMemset(a[5], 0, bytes));
      CHECK(cudaMemset(a[6], 0, bytes));
      CHECK(cudaFuncSetAttribute(pipe_kernel<512, 2, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
      pipe_kernel<512, 2, 0><<<sms, kPipeThreads, shared>>>(f, n, lines);
      CHECK(cudaGetLastError());
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(got_z.data(), a[5], bytes, cudaMemcpyDeviceToHost));
      CHECK(cudaMemcpy(got_p.data(), a[6], bytes, cudaMemcpyDeviceToHost));
      mismatches = 0;
      for (size_t k = 0; k < cells; ++k) mismatches += (got_z[k] != ref_z[k]) + (got_p[k] != ref_p[k]);
    }
    std::fprintf(stderr, "check pipe/ch512/s2 against lines (n %d, lines %d): %lld mismatches of %zu values%s\n", n,
                 lines, mismatches, 2 * cells, mismatches < 0 ? " (not run: shared memory)" : "");
    if (mismatches > 0) return 2;
  }
  row("copy", 0,
      timer.median_us([&] { copy_kernel<<<grid_stream, 256>>>((const double2*)a[0], (double2*)a[5], (long long)cells / 2); }, reps),
      2 * array_mb);
  row("stream7", 0, timer.median_us([&] { stream7_kernel<<<grid_stream, 256>>>(f, (long long)cells / 2); }, reps), sweep_mb);

  auto run_work = [&](auto work_tag) {
    constexpr int W = decltype(work_tag)::value;
    row("stencil7", W, timer.median_us([&] { stencil7_kernel<W><<<grid_stream, 256>>>(f, n, lines); }, reps), sweep_mb);
    const int lines_shared = std::max(76 * 1024, 4 * n * 8 + 12 * 1024);
    CHECK(cudaFuncSetAttribute(lines_kernel<W>, cudaFuncAttributeMaxDynamicSharedMemorySize, lines_shared));
    row("lines", W, timer.median_us([&] { lines_kernel<W><<<lines, 256, lines_shared>>>(f, n, lines); }, reps), sweep_mb);
    auto pipe = [&](auto ch_tag, auto s_tag, const char* name) {
      constexpr int CH = decltype(ch_tag)::value, S = decltype(s_tag)::value;
      const int shared = pipe_shared_bytes<CH, S>(n);
      static_assert(CH == kPipeThreads, "one cell a thread");
      if (shared > 227 * 1024 || n % CH != 0) return;
      CHECK(cudaFuncSetAttribute(pipe_kernel<CH, S, W>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
      row(name, W, timer.median_us([&] { pipe_kernel<CH, S, W><<<sms, kPipeThreads, shared>>>(f, n, lines); }, reps),
          sweep_mb);
    };
    pipe(std::integral_constant<int, 512>{}, std::integral_constant<int, 2>{}, "pipe/ch512/s2");
    pipe(std::integral_constant<int, 512>{}, std::integral_constant<int, 3>{}, "pipe/ch512/s3");
  };
  run_work(std::integral_constant<int, 0>{});
  run_work(std::integral_constant<int, 64>{});
  run_work(std::integral_constant<int, 160>{});
  run_work(std::integral_constant<int, 400>{});
  run_work(std::integral_constant<int, 800>{});
  std::printf("\n]}\n");
  return 0;
}
