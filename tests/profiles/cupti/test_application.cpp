// The parent's side of `profile -- APP` (application.hpp), without a GPU: the config the injected
// library reads, which launches it profiles, the assembly of its records into a profile (every
// outcome: complete, failed, crashed mid-record, refused, no CUDA, no launch, nothing matched),
// and running APP.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

#include "warpmodel/cupti/application.hpp"
#include "warpmodel/json_io.hpp"

namespace wc = warpmodel::cupti;
namespace fs = std::filesystem;
using nlohmann::json;
using Verdict = wc::LaunchSelector::Verdict;
using Status = wc::ApplicationProfile::Status;

namespace {

std::string line(json j) {
  j["pid"] = 4242;
  return j.dump() + "\n";
}

std::string launch_record(std::size_t app_index, const std::string& kernel, double warps) {
  return line({{"event", "launch"},
               {"application_launch_index", app_index},
               {"kernel", kernel},
               {"demangled", wc::demangle(kernel)},
               {"grid", {64, 1, 1}},
               {"block", {256, 1, 1}},
               {"registers_per_thread", 16},
               {"static_shared_bytes", 2048},
               {"dynamic_shared_bytes", 512},
               {"duration_ns", 1234.5},
               {"metrics", {{"smsp__warps_launched.sum", warps}, {"gpu__time_duration.sum", 1234.5}, {"lts__t_sector_hit_rate.pct", nullptr}}},
               {"derived", json::object()}});
}

const std::string kCopy = "_ZN11app_example11copy_kernelEPKfPfx";
const std::string kReduce = "_ZN11app_example17reduce_sum_kernelILi256EEEvPKiPix";

std::string start_records() {
  return line({{"event", "process"}, {"cupti_version", "130000"}, {"driver_version", 13000}}) +
         line({{"event", "device"},
               {"device", 0},
               {"name", "NVIDIA H200"},
               {"chip", "GH100"},
               {"compute_capability", "9.0"},
               {"sm_count", 132},
               {"l2_cache_bytes", 62914560},
               {"global_memory_bytes", 150109880320LL},
               {"max_sm_clock_mhz", 1980.0},
               {"metrics", {"smsp__warps_launched.sum", "gpu__time_duration.sum"}},
               {"derived", json::object()},
               {"passes", 4}}) +
         line({{"event", "module"}, {"file", "0.cubin"}, {"bytes", 9000}}) + line({{"event", "kernel"}, {"kernel", kCopy}});
}

wc::AssemblyInputs inputs() {
  wc::AssemblyInputs in;
  in.app_command = "./app --size 5";
  in.command = "warpmodel profile -o p -- ./app --size 5";
  in.cubins = "p.cubins";
  in.requested = {"model"};
  in.records_origin = "records.jsonl";
  return in;
}

wc::ProcessOutcome exited(int code) {
  wc::ProcessOutcome o;
  o.exit_code = code;
  return o;
}

}  // namespace

TEST(InjectionConfig, RoundTripsAndNamesBadFields) {
  wc::InjectionConfig c;
  c.metrics = {"model", "dram__bytes_read.sum"};
  c.kernel_regex = "reduce";
  c.launch_skip = 3;
  c.launch_count = 2;
  c.records = "/tmp/r.jsonl";
  c.cubins = "/tmp/cubins";
  const auto back = wc::injection_config_from_json(json::parse(wc::to_json(c).dump()), "c.json");
  EXPECT_EQ(back.metrics, c.metrics);
  EXPECT_EQ(back.kernel_regex, "reduce");
  EXPECT_EQ(back.launch_skip, 3u);
  EXPECT_EQ(back.launch_count, 2u);
  EXPECT_EQ(back.records, c.records);
  EXPECT_EQ(back.cubins, c.cubins);
  c.launch_count.reset();
  EXPECT_FALSE(wc::injection_config_from_json(wc::to_json(c), "c.json").launch_count.has_value());
  json j = wc::to_json(c);
  j.erase("records");
  EXPECT_THROW(wc::injection_config_from_json(j, "c.json"), warpmodel::InputError);
  j = wc::to_json(c);
  j["launch_skip"] = "three";
  EXPECT_THROW(wc::injection_config_from_json(j, "c.json"), warpmodel::InputError);
}

TEST(LaunchSelection, RegexSkipAndCountAsNcuDoes) {
  // Every launch.
  wc::LaunchSelector all("", 0, std::nullopt);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(all.next(kCopy, "copy"), Verdict::Profile);
  // The regex is searched in the mangled and the demangled name.
  wc::LaunchSelector by_name("reduce_sum_kernel<256>", 0, std::nullopt);
  EXPECT_EQ(by_name.next(kReduce, "void app_example::reduce_sum_kernel<256>(int const*, int*, long long)"), Verdict::Profile);
  EXPECT_EQ(by_name.next(kCopy, wc::demangle(kCopy)), Verdict::NotMatched);
  wc::LaunchSelector by_mangled("^_ZN11app_example11", 0, std::nullopt);
  EXPECT_EQ(by_mangled.next(kCopy, wc::demangle(kCopy)), Verdict::Profile);
  // Launches of the program: copy, reduce, reduce, copy, reduce, reduce; reduce, skip 1, count 2.
  wc::LaunchSelector s("reduce", 1, 2);
  std::vector<Verdict> got;
  for (const auto& k : {kCopy, kReduce, kReduce, kCopy, kReduce, kReduce}) got.push_back(s.next(k, wc::demangle(k)));
  EXPECT_EQ(got, (std::vector<Verdict>{Verdict::NotMatched, Verdict::Skipped, Verdict::Profile, Verdict::NotMatched,
                                       Verdict::Profile, Verdict::Done}));
  EXPECT_EQ(s.matched(), 4u);
  EXPECT_THROW(wc::LaunchSelector("(unclosed", 0, std::nullopt), warpmodel::InputError);
}

TEST(Assembly, ACompleteRun) {
  const std::string records = start_records() + launch_record(0, kCopy, 512) + line({{"event", "kernel"}, {"kernel", kReduce}}) +
                              launch_record(2, kReduce, 64) + launch_record(5, kCopy, 512) +
                              line({{"event", "exit"}, {"launches", 6}, {"matched", 3}, {"profiled", 3}});
  const wc::ApplicationProfile p = wc::assemble_application_profile(records, exited(0), inputs());
  ASSERT_EQ(p.status, Status::Profiled) << p.message;
  const wc::ProfileReport& r = p.report;
  ASSERT_EQ(r.launches.size(), 3u);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.workload, "application: ./app --size 5");
  EXPECT_EQ(r.device.chip, "GH100");
  EXPECT_EQ(r.collection.passes, 4u);
  EXPECT_EQ(r.collection.range_mode, "auto");
  EXPECT_EQ(r.collection.replay_mode, "kernel");
  EXPECT_EQ(r.collection.metrics, (std::vector<std::string>{"smsp__warps_launched.sum", "gpu__time_duration.sum"}));
  EXPECT_EQ(r.provenance.cuda, "13.0");
  EXPECT_EQ(r.provenance.command, "warpmodel profile -o p -- ./app --size 5");
  EXPECT_EQ(r.cubins, "p.cubins");
  EXPECT_EQ(p.modules, std::vector<std::string>{"0.cubin"});
  const wc::LaunchRecord& reduce = r.launches[1];
  EXPECT_EQ(reduce.launch_index, 1u);
  EXPECT_EQ(reduce.application_launch_index, 2u);
  EXPECT_EQ(reduce.process_id, 4242);
  EXPECT_EQ(reduce.label, "app_example::reduce_sum_kernel<256> #0");
  EXPECT_EQ(r.launches[2].label, "app_example::copy_kernel #1");
  EXPECT_EQ(reduce.shared_memory_per_block_bytes, 2560) << "static + dynamic";
  EXPECT_EQ(reduce.duration_ns, 1234.5);
  EXPECT_TRUE(std::isnan(reduce.metrics.at("lts__t_sector_hit_rate.pct"))) << "null: not collected";
  ASSERT_TRUE(r.application.has_value());
  EXPECT_EQ(r.application->exit_code, 0);
  // What kernel-profile reads: the JSON has the launches and the completeness.
  const json j = wc::to_json(r);
  EXPECT_TRUE(j.at("complete").get<bool>());
  EXPECT_EQ(j.at("launches").at(1).at("application_launch_index"), 2);
  EXPECT_EQ(wc::profile_report_from_json(j, "x").launches.size(), 3u);
}

TEST(Assembly, TheRunsSmClockIsReadAfterItsFirstAndLastProfiledLaunch) {
  auto clocked = [](std::size_t index, double mhz) {
    json j = json::parse(launch_record(index, kCopy, 512));
    j["sm_clock_mhz"] = mhz;
    return line(j);
  };
  // A launch whose NVML read failed carries no clock; the first and last that carry one are kept.
  const std::string records = start_records() + launch_record(0, kCopy, 512) + clocked(1, 1980) + clocked(2, 1755) +
                              launch_record(3, kCopy, 512);
  const wc::ProfileReport r = wc::assemble_application_profile(records, exited(0), inputs()).report;
  EXPECT_EQ(r.provenance.sm_clock_mhz, 1980);
  EXPECT_EQ(r.provenance.sm_clock_mhz_after, 1755);
  const json p = wc::to_json(r).at("provenance");
  EXPECT_EQ(p.at("sm_clock_mhz"), 1980);
  EXPECT_EQ(p.at("sm_clock_mhz_after"), 1755);
  // Without NVML: not recorded (0), as the in-process collector writes it.
  const wc::ProfileReport none = wc::assemble_application_profile(start_records() + launch_record(0, kCopy, 512),
                                                                  exited(0), inputs()).report;
  EXPECT_EQ(none.provenance.sm_clock_mhz, 0);
  EXPECT_EQ(none.provenance.sm_clock_mhz_after, 0);
}

TEST(Assembly, AFailedApplicationKeepsItsLaunchesMarkedIncomplete) {
  const std::string records = start_records() + launch_record(0, kCopy, 512) + launch_record(1, kCopy, 512);
  wc::ProcessOutcome crashed;
  crashed.signal = 11;
  for (const auto& outcome : {exited(3), crashed}) {
    const wc::ApplicationProfile p = wc::assemble_application_profile(records, outcome, inputs());
    ASSERT_EQ(p.status, Status::Profiled);
    EXPECT_FALSE(p.report.complete);
    EXPECT_EQ(p.report.launches.size(), 2u);
    EXPECT_NE(p.report.incomplete_reason.find(outcome.describe()), std::string::npos) << p.report.incomplete_reason;
    const json j = wc::to_json(p.report);
    EXPECT_FALSE(j.at("complete").get<bool>());
    EXPECT_EQ(j.at("application").contains("signal"), outcome.signal.has_value());
  }
  EXPECT_NE(crashed.describe().find("signal 11"), std::string::npos);
}

TEST(Assembly, ALastRecordCutShortIsDroppedAnyOtherBadLineIsAnError) {
  std::string cut = start_records() + launch_record(0, kCopy, 512) + launch_record(1, kCopy, 512);
  cut.resize(cut.size() - 40);  // APP died while the last line was being written
  const wc::ApplicationProfile p = wc::assemble_application_profile(cut, exited(134), inputs());
  EXPECT_EQ(p.report.launches.size(), 1u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("cut short"), std::string::npos);
  const std::string broken = start_records() + "{not json\n" + launch_record(0, kCopy, 512);
  try {
    wc::assemble_application_profile(broken, exited(0), inputs());
    FAIL();
  } catch (const warpmodel::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("records.jsonl:5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(wc::assemble_application_profile(start_records() + line({{"event", "launch"}, {"kernel", kCopy}}), exited(0),
                                                inputs()),
               warpmodel::InputError)
      << "a launch without its grid";
}

TEST(Assembly, TheOtherOutcomes) {
  // The injected library refused (no permission): its code and message, nothing else.
  auto p = wc::assemble_application_profile(
      start_records() + line({{"event", "fatal"}, {"exit_code", 4}, {"message", "profiling counters are not permitted"}}),
      exited(wc::kInjectionAbortStatus), inputs());
  EXPECT_EQ(p.status, Status::Fatal);
  EXPECT_EQ(p.exit_code, 4);
  EXPECT_EQ(p.message, "profiling counters are not permitted");
  // APP never initialised CUDA.
  p = wc::assemble_application_profile("", exited(0), inputs());
  EXPECT_EQ(p.status, Status::NoCuda);
  EXPECT_NE(p.message.find("without initialising CUDA"), std::string::npos) << p.message;
  // CUDA, but no kernel.
  p = wc::assemble_application_profile(line({{"event", "process"}}), exited(0), inputs());
  EXPECT_EQ(p.status, Status::NoLaunch);
  // Kernels, none matching the regex: it says which ran.
  auto in = inputs();
  in.config.kernel_regex = "no_such_kernel";
  p = wc::assemble_application_profile(start_records() + line({{"event", "kernel"}, {"kernel", kReduce}}), exited(0), in);
  EXPECT_EQ(p.status, Status::NothingMatched);
  EXPECT_NE(p.message.find("no kernel matches --kernel-regex 'no_such_kernel'"), std::string::npos) << p.message;
  EXPECT_NE(p.message.find("app_example::copy_kernel, app_example::reduce_sum_kernel<256>"), std::string::npos) << p.message;
  // A matching kernel, every launch of it skipped.
  in.config.kernel_regex = "copy";
  in.config.launch_skip = 9;
  p = wc::assemble_application_profile(start_records() + line({{"event", "exit"}, {"launches", 4}, {"matched", 2}}), exited(0), in);
  EXPECT_EQ(p.status, Status::NothingMatched);
  EXPECT_NE(p.message.find("--launch-skip 9 skipped every matching launch (2 matching launch(es) in all)"), std::string::npos)
      << p.message;
  // Every matching launch ran but failed in APP: the message says so, not that they were skipped.
  in.config.launch_skip = 0;
  p = wc::assemble_application_profile(
      start_records() +
          line({{"event", "launch_failed"}, {"application_launch_index", 0}, {"kernel", kCopy}, {"message", "the launch itself failed: CUDA_ERROR_INVALID_VALUE"}}) +
          line({{"event", "exit"}, {"launches", 1}, {"matched", 1}}),
      exited(1), in);
  EXPECT_EQ(p.status, Status::NothingMatched);
  EXPECT_NE(p.message.find("no matching launch could be profiled: 1 failed (the first: the launch itself failed: "
                           "CUDA_ERROR_INVALID_VALUE) (1 matching launch(es) in all)"),
            std::string::npos)
      << p.message;
  EXPECT_EQ(p.message.find("skipped"), std::string::npos) << p.message;
  // A launch the library could not profile is a warning, the others are kept.
  p = wc::assemble_application_profile(
      start_records() + line({{"event", "launch_failed"}, {"application_launch_index", 0}, {"kernel", kCopy}, {"message", "busy"}}) +
          launch_record(1, kCopy, 512),
      exited(0), inputs());
  EXPECT_EQ(p.report.launches.size(), 1u);
  ASSERT_EQ(p.warnings.size(), 1u);
  EXPECT_NE(p.warnings[0].find("launch 0 of app_example::copy_kernel (process 4242) not profiled: busy"), std::string::npos)
      << p.warnings[0];
}

TEST(RunningTheApplication, FoundRunAndEndedAsItDid) {
  EXPECT_THROW(wc::resolve_application("/nonexistent/app"), wc::ApplicationNotFound);
  EXPECT_THROW(wc::resolve_application("warpmodel-no-such-program"), wc::ApplicationNotFound);
  const fs::path plain = fs::temp_directory_path() / ("warpmodel-not-executable-" + std::to_string(::getpid()));
  std::ofstream(plain) << "#!/bin/sh\n";
  fs::permissions(plain, fs::perms::owner_read | fs::perms::owner_write);
  EXPECT_THROW(wc::resolve_application(plain.string()), wc::ApplicationNotFound) << "not executable";
  fs::remove(plain);
  EXPECT_THROW(wc::resolve_application("/"), wc::ApplicationNotFound) << "not a file";
  EXPECT_EQ(wc::resolve_application("sh").substr(wc::resolve_application("sh").size() - 3), "/sh");
  EXPECT_EQ(wc::run_application({"sh", "-c", "exit 3"}, {}).exit_code, 3);
  EXPECT_TRUE(wc::run_application({"sh", "-c", "exit 0"}, {}).succeeded());
  const wc::ProcessOutcome killed = wc::run_application({"sh", "-c", "kill -SEGV $$"}, {});
  EXPECT_EQ(killed.signal, 11);
  EXPECT_FALSE(killed.succeeded());
  // The added variables reach APP (and replace an inherited one).
  setenv("WARPMODEL_TEST_VARIABLE", "old", 1);
  EXPECT_EQ(wc::run_application({"sh", "-c", "test \"$WARPMODEL_TEST_VARIABLE\" = new && test \"$HOME\" != \"\""},
                                {{"WARPMODEL_TEST_VARIABLE", "new"}})
                .exit_code,
            0);
  unsetenv("WARPMODEL_TEST_VARIABLE");
}
