// The plausible range of every physical quantity warpmodel reads, and the bounds on the sizes of
// what it reads, in one table. A value outside is refused when it is read (InputError naming the
// file and the field, exit 2): outside these ranges the model's arithmetic gives infinities, or
// its work grows without bound, long before it gives a prediction. docs/input-checks.md gives each
// range's reason; each holds every committed input with room to spare.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace warpmodel {

struct PlausibleRange {
  double min, max;
  const char* unit;  // "MHz", "cycles", ... ("" for plain numbers)

  bool contains(double x) const { return x >= min && x <= max; }  // false for NaN
  // "a number of MHz in [100, 10000]"
  std::string describe() const {
    auto text = [](double x) {  // 0.1, 100000, 1e15, 1e-3
      char buf[32];
      std::snprintf(buf, sizeof buf, "%g", x);
      std::string s = buf;
      if (const auto e = s.find('e'); e != std::string::npos) {
        std::size_t digits = e + 1;
        if (s[digits] == '+') s.erase(digits, 1);
        else if (s[digits] == '-') ++digits;
        while (digits + 1 < s.size() && s[digits] == '0') s.erase(digits, 1);
      }
      return s;
    };
    return std::string("a number") + (*unit ? std::string(" of ") + unit : std::string()) + " in [" + text(min) +
           ", " + text(max) + "]";
  }
};

namespace ranges {

// --- device profiles (warpmodel.device/1) and the clocks measurements record ---
// Every GPU's SM clock since the G80 (575 MHz; the K40's 745, the H200's 1980) with a factor five
// to spare either way.
inline constexpr PlausibleRange kClockMhz{100, 10000, "MHz"};
// DRAM's peak: the K40's 288 GB/s to the H200's 4.8 TB/s, and twenty times that.
inline constexpr PlausibleRange kPeakBandwidthGbs{1, 100000, "GB/s"};
// Measured rates, up to an SM array's shared-memory bandwidth (32 TB/s on the H200) x 30.
inline constexpr PlausibleRange kMeasuredBandwidthGbs{1, 1000000, "GB/s"};
// Latencies and delays: 3-cycle departure delays to 1100-cycle scattered DRAM loads; 100,000 cycles
// is 50 us at 2 GHz, longer than any memory access.
inline constexpr PlausibleRange kLatencyCycles{0.1, 100000, "cycles"};
// Arithmetic throughput per SM (FP32 FMA: 125 lanes per clock measured on the H200, FP64 52, MUFU
// 14.6), up to four times a 1024-lane SM.
inline constexpr PlausibleRange kOpsPerClockPerSm{0.01, 4096, "operations per clock per SM"};
// Same-address atomics: 0.26 to 0.66 per clock measured.
inline constexpr PlausibleRange kAtomicOpsPerClock{0.001, 10000, "operations per clock"};
// Dense tensor-core FLOPs per clock per SM (H100: 4096 fp16, 256 fp64; 1e6 leaves room for more).
inline constexpr PlausibleRange kTensorFlopsPerClockPerSm{1, 1e6, "FLOPs per clock per SM"};
// Dense tensor-core FLOPs one warp's MMAs do (a 4096^3 GEMM's warp: ~1e10).
inline constexpr PlausibleRange kTensorFlopsPerWarp{0, 1e15, "FLOPs per warp"};
// The hopper variant's fitted constants (launch, per-wave and barrier cycles: 37 to 1450 fitted).
inline constexpr PlausibleRange kCalibrationCycles{-1e9, 1e9, "cycles"};
inline constexpr PlausibleRange kCalibrationScale{0.001, 1000, ""};
// Its prediction intervals (hopper_intervals): percentiles of held-out signed errors
// (predicted - measured) / measured; below -1 a prediction would be negative, and +100 is a
// prediction 101 times the measurement (committed: -0.30 to +0.33). The widening factor is
// chosen on [0.5, 4]; the residual counts are launches.
inline constexpr PlausibleRange kSignedError{-0.99, 100, ""};
// Energy per operation (characterize's energy rows, docs/energy.md): a board's static power, from a
// few watts to twice a 1000 W board and more; per operation or byte, femtojoules (a register add) to
// a microjoule, far beyond any DRAM byte's tens of picojoules.
inline constexpr PlausibleRange kPowerW{0.1, 5000, "W"};
inline constexpr PlausibleRange kEnergyPerUnitPj{1e-4, 1e6, "pJ"};
inline constexpr PlausibleRange kIntervalWiden{0.1, 10, ""};
inline constexpr long long kMaxIntervalCases = 1000000000;
inline constexpr long long kMaxIntervalBounds = 64;

// --- kernel profiles (warpmodel.kernel/1) ---
// ILP and MLP: independent instructions (loads) in flight per warp; 1 to 255 committed.
inline constexpr PlausibleRange kParallelism{0.1, 10000, "instructions"};
inline constexpr PlausibleRange kStallCyclesPerInstruction{0.01, 10000, "cycles"};
inline constexpr PlausibleRange kActiveWarpsPerSm{0.01, 64, "warps"};
// Launch durations: 1 ns to 11.6 days (committed: 1.1 us to 13.6 ms).
inline constexpr PlausibleRange kDurationNs{1, 1e15, "ns"};
inline constexpr PlausibleRange kCounterRangeOverheadNs{0, 1e5, "ns"};
// A hardware counter of one launch (events, bytes, cycles): at 1e18 a launch would run for years.
inline constexpr PlausibleRange kCounter{0, 1e18, ""};
// The SM cycles a launch took: at least one.
inline constexpr PlausibleRange kElapsedCycles{1, 1e18, "cycles"};

// --- integers: launch shapes and resources (CUDA's own limits where it has them) ---
inline constexpr long long kMaxClusterBlocks = 32;   // blocks of a cluster (Hopper: 8 portable, 16 non-portable)
inline constexpr long long kMaxGpcs = 64;            // hardware.sms_per_gpc entries (GH100: 8)
inline constexpr long long kMaxRegistersPerThread = 255;             // every architecture since sm_35
inline constexpr long long kMaxSharedBytesPerBlock = 16LL << 20;     // 16 MiB (Hopper: 227 KiB)
inline constexpr long long kMaxGridX = 2147483647, kMaxGridYZ = 65535;  // CUDA's grid limits
inline constexpr long long kMaxBlocks = 1LL << 40;                   // blocks of one launch
inline constexpr long long kMaxThreadsPerBlock = 4096;               // Hopper: 1024
inline constexpr long long kMaxDomainPoints = 1LL << 50;             // the problem a sweep spreads
// A device's hardware and its occupancy limits: a few times the largest of any GPU so far (Hopper and
// Blackwell: 132 to 148 SMs, 2048 threads, 32 blocks and 64K registers per SM, 228 KiB of shared memory).
inline constexpr long long kMaxSmCount = 4096;
inline constexpr long long kMaxLanesPerSm = 1024;       // simd_width, sfu_width (H200: 128, 16)
inline constexpr long long kMaxWarpSize = 64;
inline constexpr long long kMaxThreadsPerSm = 4096;     // the traffic model walks every resident thread
inline constexpr long long kMaxBlocksPerSm = 1024;
inline constexpr long long kMaxRegistersPerSm = 1LL << 20;
inline constexpr long long kMaxSharedBytesPerSm = 16LL << 20;

// --- access patterns (the SASS addresses of the shape-aware traffic model) ---
// For every block shape a sweep tries, the traffic model walks each access with an address for
// every thread an SM holds, sector by sector: these bound that walk (docs/input-checks.md: the
// largest kernel they allow sweeps in seconds, where 2e9 bytes per thread took minutes).
inline constexpr long long kMaxAccessBytesPerThread = 32;  // LDG.128 is 16; 256-bit loads are 32
inline constexpr long long kMaxLoopDepth = 16;             // committed: 2
inline constexpr long long kMaxAccesses = 4096;            // per kernel; committed: 515
inline constexpr long long kMaxAddressedAccesses = 1024;   // those with an address; committed: 404 (s3d)
inline constexpr long long kMaxAddressTerms = 64;          // committed: 17
inline constexpr long long kMaxSymbolsPerTerm = 16;        // committed: 4
inline constexpr long long kMaxSymbolLength = 256;         // committed: 56
inline constexpr long long kMaxAddressCoefficient = 1LL << 48;  // committed: 2^35
inline constexpr long long kMaxStaticInstructions = 1LL << 22;  // a kernel's SASS instructions (hopper H.1d)

}  // namespace ranges

}  // namespace warpmodel
