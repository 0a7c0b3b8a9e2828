// The project's CUPTI values against Nsight Compute's for the same launches: each
// workload is profiled twice by
//   warpmodel profile <workload> --metrics model --timing-runs 1 --replay user --flush-l2
// (auto ranges: one per kernel, as ncu's; user replay: the workload re-run per pass) and twice by
//   ncu --replay-mode application --clock-control none --cache-control none --csv --page raw
//       --print-units base --kernel-name-base mangled --profile-from-start off --metrics <the same>
//       warpmodel profile <the same workload> --launch-only --flush-l2
// so that every replay pass of either tool starts from the same cache state: the workload's inputs
// restored, L2's dirty lines written back and the workload's lines evicted (src/l2_flush.hpp).
// With each tool's kernel replay instead, later passes start from whatever that tool's memory
// restore left in L2, and DRAM writes and L2 hit rates differed beyond the tolerance on the H200
// (results/h200/cupti-probes/kernel-replay.md). What still differs with the same cache state
// (DRAM writes of kernels that leave output dirty in L2, shared-store bank conflicts, cycles with
// the clocks left alone) is in results/h200/cupti-vs-ncu.md and README "CUPTI collection".
// Each tool runs every workload 3 times, each run a process of its own; the medians must agree
// within max(0.5 % for counters or 1 pp for percentages, 3 x the larger run-to-run spread of the two
// tools) (ncu_compare.hpp says why). The workloads write far more than L2 holds (the copy
// 1 GiB, the stencil 512 MiB), so the write-backs still in flight when a range closes, which the
// two tools count differently, are a small part of their DRAM writes.
// WARPMODEL_NCU_WORKLOADS: ';'-separated workload arguments (default: copy, one stencil and one ADI
// kernel where built). WARPMODEL_CUPTI_NCU_OUT: a folder for cupti-vs-ncu.json/.md and the raw runs
// (default: a temporary one). Skipped where ncu is not installed.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "warpmodel/cupti/metrics.hpp"
#include "warpmodel/cupti/ncu_compare.hpp"
#include "warpmodel/cupti/profile_report.hpp"
#include "warpmodel/json_io.hpp"
#include "run_program.hpp"
#include "warpmodel/support/text.hpp"

namespace fs = std::filesystem;
namespace wc = warpmodel::cupti;

namespace {

using warpmodel::test::CommandResult;
const auto run = warpmodel::test::run_command;

std::string find_ncu() {
  if (const char* e = std::getenv("NCU"); e && *e) return e;
  if (run("command -v ncu").code == 0) return "ncu";
  for (const fs::path& p : {fs::path("/usr/local/cuda/bin/ncu"), fs::path("/opt/nvidia/nsight-compute")}) {
    if (fs::is_regular_file(p)) return p.string();
    if (fs::is_directory(p))
      for (const auto& d : fs::directory_iterator(p))
        if (fs::is_regular_file(d.path() / "ncu")) return (d.path() / "ncu").string();
  }
  return "";
}

std::vector<std::string> workloads() {
  if (const char* e = std::getenv("WARPMODEL_NCU_WORKLOADS"); e && *e) {
    std::vector<std::string> v;
    std::string s = e;
    std::size_t start = 0;
    while (start <= s.size()) {
      const auto semi = s.find(';', start);
      std::string item = s.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
      if (item.find_first_not_of(' ') != std::string::npos) v.push_back(item);
      if (semi == std::string::npos) break;
      start = semi + 1;
    }
    return v;
  }
  std::vector<std::string> v = {"--kernel copy --size 268435456"};
#ifdef WARPMODEL_HAVE_STENCIL_WORKLOAD
  v.push_back("--kernel stencil --variant shared --order 8 --size 512");
#endif
#ifdef WARPMODEL_HAVE_ADI_WORKLOAD
  v.push_back("--kernel adi --variant thread-per-line --kernel-name solve-x --size 2048");
#endif
  return v;
}

}  // namespace

TEST(CuptiVsNcu, TheModelSetAgrees) {
  const std::string ncu = find_ncu();
  if (ncu.empty()) GTEST_SKIP() << "ncu (Nsight Compute) is not installed";
  const std::string bin = WARPMODEL_BIN;
  fs::path out = std::getenv("WARPMODEL_CUPTI_NCU_OUT") ? fs::path(std::getenv("WARPMODEL_CUPTI_NCU_OUT"))
                                                        : fs::temp_directory_path() / ("cupti-vs-ncu-" + std::to_string(getpid()));
  fs::create_directories(out);
  const CommandResult version = run(ncu + " --version");
  warpmodel::write_file_atomically(out / "ncu-version.txt", version.out);
  const auto list = workloads();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string& args = list[i];
    const std::string n = std::to_string(i);
    const fs::path prefix = out / ("cupti-" + n);
    const std::string cupti_cmd =
        bin + " profile " + args + " --metrics model --timing-runs 1 --replay user --flush-l2 -o " + prefix.string();
    // Three runs of each tool: each metric's run-to-run spread sets its tolerance.
    const std::vector<std::string> runs = {"", "-repeat", "-repeat2"};
    for (const std::string& suffix : runs) {
      const CommandResult c = run(cupti_cmd + suffix);
      ASSERT_EQ(c.code, 0) << cupti_cmd << suffix << "\n" << c.out;
    }
    const wc::ProfileReport report =
        wc::profile_report_from_json(warpmodel::read_json_file(prefix.string() + ".json"), prefix.string() + ".json");
    ASSERT_TRUE(report.collection.l2_flushed_before_each_pass);
    std::string metrics;
    for (const auto& m : report.collection.metrics) metrics += (metrics.empty() ? "" : ",") + m;
    const std::string ncu_options =
        " --replay-mode application --clock-control none --cache-control none --csv --page raw --print-units base "
        "--kernel-name-base mangled --profile-from-start off --metrics ";
    const std::string launches = " profile " + args + " --launch-only --flush-l2";
    warpmodel::write_file_atomically(out / ("ncu-" + n + ".command.txt"),
                                     "ncu" + ncu_options + "<the model set> warpmodel" + launches + "\n");
    for (const std::string& suffix : runs) {
      const fs::path ncu_csv = out / ("ncu-" + n + suffix + ".csv");
      const std::string ncu_cmd = ncu + ncu_options + metrics + " --log-file " + ncu_csv.string() + " " + bin + launches;
      const CommandResult r = run(ncu_cmd);
      ASSERT_EQ(r.code, 0) << ncu_cmd << "\n" << r.out << warpmodel::support::read_text_file(ncu_csv).value_or("");
    }
  }
  // The comparison itself is the library's (also `warpmodel compare-ncu --from DIR`).
  const wc::ComparisonDocument doc = wc::compare_ncu_directory(out);
  EXPECT_EQ(doc.workloads, list.size());
  EXPECT_TRUE(doc.all_ok) << doc.markdown;
  warpmodel::write_file_atomically(out / "cupti-vs-ncu.json", doc.json.dump(2) + "\n");
  warpmodel::write_file_atomically(out / "cupti-vs-ncu.md", doc.markdown);
  std::cout << "wrote " << (out / "cupti-vs-ncu.md").string() << "\n";
}
