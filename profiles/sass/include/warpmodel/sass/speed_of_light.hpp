// Speed of light per launch: the share of each measured ceiling a launch achieved, from its counters,
// its measured duration and the device profile (predict-app's "speed of light" column, CSV and JSON).
//
//   resource   achieved                                             ceiling
//   DRAM       dram__bytes_read.sum, dram__bytes_write.sum           each direction at its measured rate
//                                                                    (bandwidth dram_read / dram_write; else
//                                                                    dram_copy, else the peak)
//   L2         L2 sectors by operation x 32 B (counter_rules), the   reads at l2_read, writes at l2_write
//              written ones apart; else lts__t_bytes.sum             (else l2_read)
//   L1/shared  l1tex__data_pipe_lsu_wavefronts.sum x 128 B          shared_read (the L1/shared data path)
//   issue      smsp__inst_executed.sum                               one instruction per clock per scheduler:
//   slots                                                            (shown "issue slots 32 %")
//                                                                    time x SMs x schedulers x SM clock
//   FP32       smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}   throughput.fp32_fma ops per clock per SM
//   FP64       ..._op_{dadd,dmul,dfma}_pred_on.sum (thread ops)      throughput.fp64_fma
//   SFU        smsp__inst_executed_pipe_xu.sum x 32 lanes            throughput.sfu_ex2 (the XU pipe also runs
//                                                                    conversions)
// Each share = the time the launch's counted work needs at the ceiling / its measured duration; a
// resource whose counters or ceiling are missing is left out. Tensor pipes are not: no tensor
// throughput is measured by `characterize`.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "warpmodel/device_profile.hpp"
#include "warpmodel/sass/merge.hpp"

namespace warpmodel::sass {

struct CeilingShare {
  std::string resource;  // "DRAM", "L2", "L1/shared", "issue slots", "FP32", "FP64", "SFU"
  std::string key;       // its CSV/JSON name: "dram", "l2", "l1_shared", "issue", "fp32", "fp64", "sfu"
  double share = 0;      // achieved / ceiling (1 = the measured ceiling)
};

// The resources in the table's order, as (resource, key).
const std::vector<std::pair<std::string, std::string>>& speed_of_light_resources();

// The shares of one launch, in speed_of_light_resources() order (missing ones left out). Empty
// without a positive measured duration.
std::vector<CeilingShare> speed_of_light(const CounterLaunch& launch, const DeviceProfile& device);

// The top `n` shares, "DRAM 83 %, L2 41 %" ("-" when none).
std::string speed_of_light_summary(const std::vector<CeilingShare>& shares, std::size_t n = 2);

// FLOPs of a launch (FMA counted twice) from the thread-level FP32/FP64 counters (fadd, fmul, ffma,
// dadd, dmul, dfma); nullopt when none of them is in the profile.
std::optional<double> counted_flops(const CounterLaunch& launch);
// FLOPs estimated from the measured warp instructions (smsp__inst_executed.sum) x the SASS's FLOP
// share (FADD, FMUL, DADD, DMUL once, FFMA and DFMA twice, per static instruction) x 32 lanes: the
// kernel's instruction mix taken as uniform over its executed code. nullopt without that counter.
std::optional<double> estimated_flops(const CounterLaunch& launch, const KernelStatics& statics);
// DRAM bytes (read + write) from the counters.
std::optional<double> dram_bytes(const CounterLaunch& launch);

}  // namespace warpmodel::sass
