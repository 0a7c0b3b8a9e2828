// Probe (not part of the project): transposing one array per launch against two, 2048^2 and 4096^2.
#include <cstdio>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>
constexpr int kTile = 32, kRows = 8;
template <class T> __global__ void __launch_bounds__(256) one(const T* __restrict__ in, T* __restrict__ out, int w, int h) {
  __shared__ T tile[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) tile[threadIdx.y + r][threadIdx.x] = in[(size_t)(y + r) * w + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x; y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) out[(size_t)(y + r) * h + x] = tile[threadIdx.x][threadIdx.y + r];
}
// grid.z selects the array
template <class T> __global__ void __launch_bounds__(256) twoz(const T* __restrict__ a, T* __restrict__ at, const T* __restrict__ b, T* __restrict__ bt, int w, int h) {
  __shared__ T tile[kTile][kTile + 1];
  const T* in = blockIdx.z ? b : a; T* out = blockIdx.z ? bt : at;
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) tile[threadIdx.y + r][threadIdx.x] = in[(size_t)(y + r) * w + x];
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x; y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) out[(size_t)(y + r) * h + x] = tile[threadIdx.x][threadIdx.y + r];
}
// both arrays' tiles in one block (8 loads in flight a thread)
template <class T> __global__ void __launch_bounds__(256) twob(const T* __restrict__ a, T* __restrict__ at, const T* __restrict__ b, T* __restrict__ bt, int w, int h) {
  __shared__ T ta[kTile][kTile + 1], tb[kTile][kTile + 1];
  int x = blockIdx.x * kTile + threadIdx.x, y = blockIdx.y * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) { size_t i = (size_t)(y + r) * w + x; ta[threadIdx.y + r][threadIdx.x] = a[i]; tb[threadIdx.y + r][threadIdx.x] = b[i]; }
  __syncthreads();
  x = blockIdx.y * kTile + threadIdx.x; y = blockIdx.x * kTile + threadIdx.y;
  for (int r = 0; r < kTile; r += kRows) { size_t o = (size_t)(y + r) * h + x; at[o] = ta[threadIdx.x][threadIdx.y + r]; bt[o] = tb[threadIdx.x][threadIdx.y + r]; }
}
template <class T> void run(int n, const char* prec) {
  size_t bytes = (size_t)n * n * sizeof(T);
  T *a, *b, *at, *bt; cudaMalloc(&a, bytes); cudaMalloc(&b, bytes); cudaMalloc(&at, bytes); cudaMalloc(&bt, bytes);
  cudaMemset(a, 1, bytes); cudaMemset(b, 2, bytes);
  cudaEvent_t s, e; cudaEventCreate(&s); cudaEventCreate(&e);
  dim3 block(kTile, kRows), grid(n / kTile, n / kTile), gridz(n / kTile, n / kTile, 2);
  auto time = [&](auto f) { std::vector<float> v; for (int i = 0; i < 60; ++i) { cudaEventRecord(s); f(); cudaEventRecord(e); cudaEventSynchronize(e); float ms; cudaEventElapsedTime(&ms, s, e); if (i >= 10) v.push_back(ms * 1000); } std::sort(v.begin(), v.end()); return v[v.size() / 2]; };
  float t1 = time([&] { one<T><<<grid, block>>>(a, at, n, n); one<T><<<grid, block>>>(b, bt, n, n); });
  float t2 = time([&] { twoz<T><<<gridz, block>>>(a, at, b, bt, n, n); });
  float t3 = time([&] { twob<T><<<grid, block>>>(a, at, b, bt, n, n); });
  float tc = time([&] { cudaMemcpyAsync(at, a, bytes, cudaMemcpyDeviceToDevice); cudaMemcpyAsync(bt, b, bytes, cudaMemcpyDeviceToDevice); });
  double mb = 4.0 * bytes / 1e6;
  printf("%s n=%d: two launches %.2f us (%.0f GB/s), grid.z %.2f us (%.0f), one block both %.2f us (%.0f), 2 memcpy %.2f us (%.0f) err=%s\n", prec, n,
         t1, mb / t1 * 1e3, t2, mb / t2 * 1e3, t3, mb / t3 * 1e3, tc, mb / tc * 1e3, cudaGetErrorString(cudaGetLastError()));
  cudaFree(a); cudaFree(b); cudaFree(at); cudaFree(bt);
}
int main() { for (int n : {1024, 2048, 4096}) { run<double>(n, "double"); run<float>(n, "single"); } }
