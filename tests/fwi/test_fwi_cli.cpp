// `warpmodel run-fwi` end to end (labels fwi, model): bad options give one line and exit 2 before
// anything runs; --cpu on a small grid prints the misfit and the model error per iteration; -o
// writes the history with its provenance.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "run_program.hpp"
#include "warpmodel/support/text.hpp"

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result run(const std::string& args) {
  const auto scratch = std::filesystem::temp_directory_path() / ("warpmodel_fwi_cli_" + std::to_string(::getpid()));
  const warpmodel::test::ProgramResult r = warpmodel::test::run_program(std::string(WARPMODEL_BIN) + " " + args, scratch);
  std::error_code ec;
  std::filesystem::remove_all(scratch, ec);
  return {r.exit_code, r.out, r.err};
}

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const std::string kSmall = "run-fwi --cpu --nx 60 --nz 40 --nt 250 --cpml 10 --shots 2 --iterations 2";

TEST(RunFwiCli, BadOptionsExitTwoWithOneLine) {
  const std::pair<const char*, const char*> cases[] = {
      {"run-fwi", "pass --cpu"},
      {"run-fwi --cpu --variant all", "not both"},
      {"run-fwi --variant tiled", "--variant 'tiled': expected all or original, shared"},
      {"run-fwi --variant original,fast", "--variant 'fast'"},
      {"run-fwi --cpu --energy", "--energy goes with --variant"},
      {"run-fwi --variant all --nx 30", "fewer than 3 x 3 points"},
      {"run-fwi --variant all --repetitions 0", "--repetitions: must be in [1, 1000] (got 0)"},
      {"run-fwi --cpu --dt 0.006", "breaks eq 2.12"},
      {"run-fwi --cpu --nx 30", "fewer than 3 x 3 points"},
      {"run-fwi --cpu --nx 60 --shots 30", "more shots than the 20 interior columns"},
      {"run-fwi --cpu --depth 60", "not inside the CPML's interior"},
      {"run-fwi --cpu --v-min 5000", "--v-min must be below --v-max"},
      {"run-fwi --cpu --nx 100000 --nz 100000", "at most 4 GiB"},
      {"run-fwi --cpu --shots 0", "--shots: must be in [1, 100000] (got 0)"},
      {"run-fwi --cpu --spacing -1", "--spacing: must be > 0 (got -1)"}};
  for (const auto& [args, why] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find(why), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args << ": " << r.out;
  }
}

TEST(RunFwiCli, PrintsTheMisfitAndTheModelErrorPerIteration) {
  const Result r = run(kSmall);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_NE(r.out.find("model error"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("free surface on top"), std::string::npos) << r.out;
  EXPECT_EQ(lines(r.out), 3 + 1 + 3) << r.out;  // three header lines, the table's head, iterations 0..2
}

TEST(RunFwiCli, TheJsonHoldsTheHistoryAndWhereItCameFrom) {
  const auto dir = std::filesystem::temp_directory_path() / ("warpmodel_fwi_json_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "history.json";
  const Result r = run(kSmall + " -o " + file.string());
  const std::optional<std::string> text = warpmodel::support::read_text_file(file);
  std::filesystem::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.err;
  ASSERT_TRUE(text) << file << " was not written";
  const nlohmann::json j = nlohmann::json::parse(*text);
  EXPECT_EQ(j["schema"], "warpmodel.fwi-run/1");
  const nlohmann::json& p = j["provenance"];
  for (const char* key : {"device", "date", "commit", "command"}) {
    ASSERT_TRUE(p.contains(key) && p[key].is_string()) << key << " in " << p.dump();
    EXPECT_FALSE(p[key].get<std::string>().empty()) << key;
  }
  EXPECT_NE(p["command"].get<std::string>().find("run-fwi --cpu --nx 60"), std::string::npos) << p.dump();
  ASSERT_EQ(j["history"].size(), 3u) << j.dump();
  for (std::size_t k = 1; k < 3; ++k)
    EXPECT_LT(j["history"][k]["misfit"].get<double>(), j["history"][k - 1]["misfit"].get<double>()) << k;
  EXPECT_EQ(j["experiment"]["receivers"], 40);
  EXPECT_EQ(j["experiment"]["cpml"]["a_q"], "d/(d+alpha) (b-1)");
}

}  // namespace
