#include "characterize.hpp"

#include <cctype>
#include <ctime>

#include "harness.hpp"
#include "plan.hpp"
#include "warpmodel/json_io.hpp"
#include "writers.hpp"

namespace warpmodel::ubench {

std::string gpu_slug(const std::string& name) {
  std::string s;
  for (char c : name) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s.rfind("nvidia ", 0) == 0) s = s.substr(7);
  std::string out;
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (!out.empty() && out.back() != '-') out += '-';
  }
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "gpu" : out;
}

CharacterizeOutputs characterize(const GpuInfo& gpu, const CharacterizeOptions& o) {
  const Plan plan = make_plan(o.reps, o.stages);
  Results results = run_plan(gpu, plan, HarnessOptions{o.self_exe, o.log});
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  results.date = date;
  results.commit = o.commit;
  results.command = o.command;
  if (results.ran(kStageCore))  // a tensor-only run keeps the profile's headline values from the folder's device.json
    for (auto& w : profile_warnings(results)) results.warnings.push_back(std::move(w));

  CharacterizeOutputs out;
  out.stages = results.stages;
  out.device_json = write_device_json(results, o.base_device_json);
  // The model must accept the profile unchanged.
  try {
    (void)device_from_json(nlohmann::json::parse(out.device_json), "characterize output");
  } catch (const std::exception& e) {
    out.profile_error = e.what();
    results.warnings.push_back(std::string("the model rejects the profile: ") + e.what());
  }
  if (results.ran(kStageCore)) {
    out.csv = write_csv(results);
    out.markdown = write_markdown(results);
  }
  if (results.ran(kStageTensor)) {
    out.tensor_csv = write_unit_csv(results);
    out.tensor_markdown = write_tensor_markdown(results);
  }
  if (results.ran(kStageEnergy)) out.energy_markdown = write_energy_markdown(results);
  out.warnings = results.warnings;
  out.seconds = results.seconds;
  return out;
}

}  // namespace warpmodel::ubench
