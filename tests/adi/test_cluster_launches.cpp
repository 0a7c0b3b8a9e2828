// `validate --from` completes the cluster dimension of ADI sweeps measured before the kernel profile
// carried launch.cluster (cli/validate_command.cpp): fused-cluster's y-sweep at N^2 in clusters of
// cluster_columns(N, kClusterCells) blocks. The rule must be the launch that was measured: the
// kernel each committed case names (its counters' source) is cluster_sweep_kernel<T, kCells, W>, W
// being the cluster's width.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "warpmodel/adi/cluster_sweep.hpp"
#include "warpmodel/support/xz.hpp"

namespace {

nlohmann::json read_measurements(const std::filesystem::path& folder) {
  const std::filesystem::path path = warpmodel::support::plain_or_xz(folder / "validation-measurements.json");
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string raw = text.str();
  return nlohmann::json::parse(warpmodel::support::is_xz_path(path)
                                   ? warpmodel::support::xz_decompress(raw, 1ull << 32, path.string())
                                   : raw);
}

TEST(AdiClusterLaunches, TheRuleIsTheMeasuredKernelsClusterWidth) {
  int checked = 0;
  for (const char* gpu : {"h200", "h100-80gb-hbm3"}) {
    const std::filesystem::path folder = std::filesystem::path(WARPMODEL_SOURCE_DIR) / "results" / gpu;
    if (!std::filesystem::exists(warpmodel::support::plain_or_xz(folder / "validation-measurements.json"))) continue;
    const nlohmann::json all = read_measurements(folder);
    ASSERT_GT(all["cases"].size(), 1000u) << folder;
    for (const auto& c : all["cases"]) {
      if (c["family"] != "adi" || c["shape"] != "fused-cluster" || c["kernel"].get<std::string>().rfind("sweep-y", 0))
        continue;
      const std::string size = c["size"], source = c["profile"]["sources"]["counters"];
      const int ny = std::stoi(size.substr(0, size.find("^2")));
      std::smatch m;
      ASSERT_TRUE(std::regex_search(source, m, std::regex(R"(cluster_sweep_kernelI[df]Li(\d+)ELi(\d+)E)"))) << source;
      EXPECT_EQ(std::stoi(m[1]), warpmodel::adi::kClusterCells) << gpu << " " << size;
      EXPECT_EQ(std::stoi(m[2]), warpmodel::adi::cluster_columns(ny, warpmodel::adi::kClusterCells)) << gpu << " " << size;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12) << "3 sizes x 2 precisions x 2 GPUs";
}

}  // namespace
