#include "warpmodel/sass/tools.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string_view>
#include <thread>

#include "warpmodel/support/progress.hpp"

namespace warpmodel::sass {
namespace {

namespace fs = std::filesystem;

std::optional<std::string> find_tool(const char* env_variable, const char* name, const char* configured_hint) {
  std::error_code ec;
  auto executable = [&](const fs::path& p) { return fs::is_regular_file(p, ec) && ::access(p.c_str(), X_OK) == 0; };
  // An explicit setting is the answer, found or not (never silently replaced by another copy).
  if (const char* env = std::getenv(env_variable); env && *env)
    return executable(env) ? std::optional<std::string>(env) : std::nullopt;
  std::vector<fs::path> candidates;
  if (const char* path = std::getenv("PATH")) {
    std::istringstream p(path);
    std::string dir;
    while (std::getline(p, dir, ':'))
      if (!dir.empty()) candidates.push_back(fs::path(dir) / name);
  }
  candidates.push_back(fs::path("/usr/local/cuda/bin") / name);
  if (configured_hint && *configured_hint) candidates.emplace_back(configured_hint);
  for (const auto& c : candidates)
    if (executable(c)) return c.string();
  return std::nullopt;
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct ToolRun {
  int status = -1;  // exit status, 124 on timeout
  std::string out;  // standard output
  std::string err;  // standard error
};

// Runs `command` (already quoted) in `directory` under `timeout`, capturing both streams.
// Safe to call from several threads (each run has its own stderr file).
ToolRun run(const std::string& command, const fs::path& directory, int timeout_seconds) {
  static std::atomic<int> runs{0};
  const fs::path err_file = directory / (".stderr." + std::to_string(runs++));
  const std::string line = "cd " + quote(directory.string()) + " && timeout -k 5 " + std::to_string(timeout_seconds) +
                           " " + command + " 2>" + quote(err_file.string());
  ToolRun r;
  FILE* pipe = ::popen(line.c_str(), "r");
  if (!pipe) return r;
  std::array<char, 65536> buf{};
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.out.append(buf.data(), n);
  const int status = ::pclose(pipe);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err_file);
  std::getline(e, r.err);  // the first line says what went wrong
  return r;
}

// A temporary folder removed when it goes out of scope.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "warpmodel_sass_XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw AnalysisError("cannot create a temporary folder in " +
                                                         fs::temp_directory_path().string());
    path = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
};

std::string why(const ToolRun& r) {
  if (r.status == 124) return "timed out";
  return r.err.empty() ? "exit status " + std::to_string(r.status) : r.err;
}

#ifndef WARPMODEL_CUOBJDUMP_HINT
#define WARPMODEL_CUOBJDUMP_HINT ""
#endif
#ifndef WARPMODEL_NVDISASM_HINT
#define WARPMODEL_NVDISASM_HINT ""
#endif

}  // namespace

std::optional<std::string> find_cuobjdump() {
  return find_tool("WARPMODEL_CUOBJDUMP", "cuobjdump", WARPMODEL_CUOBJDUMP_HINT);
}
std::optional<std::string> find_nvdisasm() { return find_tool("WARPMODEL_NVDISASM", "nvdisasm", WARPMODEL_NVDISASM_HINT); }

std::vector<KernelStatics> analyse_dump(const CubinDump& dump) {
  std::vector<KernelStatics> kernels = analyse_listing(dump.sass, dump.cfg_dot, dump.res_usage, dump.nv_info);
  for (auto& k : kernels) k.cubin = dump.cubin;
  return kernels;
}

namespace {

// The tools' output for a cubin, kept between runs when $WARPMODEL_SASS_CACHE names a folder: the
// dumps of a large program take most of an analysis (a 9 MB binary of 26 cubins: about 36 s of
// cuobjdump and nvdisasm), and the tests analyse the same program many times. The key is the cubin's
// contents and the tools' paths and sizes, so a rebuilt program or another toolkit misses the cache.
std::optional<fs::path> dump_cache_folder() {
  const char* env = std::getenv("WARPMODEL_SASS_CACHE");
  if (!env || !*env) return std::nullopt;
  std::error_code ec;
  fs::create_directories(env, ec);
  return fs::is_directory(env, ec) ? std::optional<fs::path>(env) : std::nullopt;
}

std::string read_whole(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// FNV-1a, 64 bits, over the cubin's bytes and the tools' identities: a cache key, not a checksum
// against tampering (the cache is the user's own folder).
std::string dump_cache_key(const fs::path& cubin, const std::string& cuobjdump, const std::string& nvdisasm) {
  std::uint64_t h = 1469598103934665603ull;
  auto mix = [&h](std::string_view bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 1099511628211ull;
  };
  const std::string bytes = read_whole(cubin);
  mix(bytes);
  std::error_code ec;
  for (const std::string& tool : {cuobjdump, nvdisasm}) {
    mix(tool);
    mix(std::to_string(tool.empty() ? 0 : fs::file_size(tool, ec)));
  }
  char text[32];
  std::snprintf(text, sizeof text, "%016llx-%zu", static_cast<unsigned long long>(h), bytes.size());
  return text;
}

bool load_cached_dump(const fs::path& cache, const std::string& key, CubinDump& dump) {
  std::error_code ec;
  // An entry from before the .nv.info sections were kept is a miss (the dumps are made again).
  if (!fs::exists(cache / (key + ".done"), ec) || !fs::exists(cache / (key + ".nv-info"), ec)) return false;
  dump.sass = read_whole(cache / (key + ".sass"));
  dump.res_usage = read_whole(cache / (key + ".res-usage"));
  dump.cfg_dot = read_whole(cache / (key + ".cfg"));
  dump.nv_info = read_whole(cache / (key + ".nv-info"));
  return !dump.sass.empty();
}

void store_cached_dump(const fs::path& cache, const std::string& key, const CubinDump& dump) {
  // Each file written under a temporary name, then renamed; the marker last: a reader sees all or none.
  auto put = [&](const std::string& suffix, const std::string& text) {
    const fs::path tmp = cache / (key + suffix + ".tmp." + std::to_string(::getpid()));
    std::ofstream(tmp, std::ios::binary) << text;
    std::error_code ec;
    fs::rename(tmp, cache / (key + suffix), ec);
  };
  put(".sass", dump.sass);
  put(".res-usage", dump.res_usage);
  put(".cfg", dump.cfg_dot);
  put(".nv-info", dump.nv_info);
  put(".done", "");
}

// Runs the tools on each cubin (cuobjdump -sass, -res-usage and -elf, nvdisasm -bbcfg) and analyses them
// into `out`. `label` names where the cubins came from, in messages.
void analyse_cubins(const std::vector<fs::path>& cubins, const std::string& label, const std::string& cuobjdump,
                    const fs::path& work, int timeout_seconds, BinaryAnalysis& out) {
  const auto nvdisasm = find_nvdisasm();
  if (!nvdisasm)
    out.warnings.push_back("nvdisasm not found (pip package nvidia-cuda-nvdisasm, installed by scripts/setup.sh): "
                           "basic blocks from branch targets");
  // One task per cubin (four tool runs each), a few at a time: the tools spend most of their
  // time starting up.
  struct CubinResult {
    CubinDump dump;
    std::string warning, error;
  };
  const std::optional<fs::path> cache = dump_cache_folder();
  auto dump_cubin = [&](const fs::path& cubin) {
    CubinResult r;
    CubinDump& dump = r.dump;
    dump.cubin = cubin.filename().string();
    // The tools run inside `work`, so a path relative to the caller's folder is made absolute first.
    const fs::path cubin_path = fs::absolute(cubin);
    const std::string key = cache ? dump_cache_key(cubin_path, cuobjdump, nvdisasm.value_or("")) : std::string();
    if (cache && load_cached_dump(*cache, key, dump)) return r;
    const ToolRun sass = run(quote(cuobjdump) + " -sass " + quote(cubin_path.string()), work, timeout_seconds);
    if (sass.status != 0) {
      r.error = "cuobjdump -sass " + dump.cubin + " from " + label + ": " + why(sass);
      return r;
    }
    dump.sass = sass.out;
    const ToolRun usage = run(quote(cuobjdump) + " -res-usage " + quote(cubin_path.string()), work, timeout_seconds);
    if (usage.status != 0) {
      r.error = "cuobjdump -res-usage " + dump.cubin + " from " + label + ": " + why(usage);
      return r;
    }
    dump.res_usage = usage.out;
    // The thread limits (__launch_bounds__, .reqntid); a failure leaves them unknown, no more.
    const ToolRun elf = run(quote(cuobjdump) + " -elf " + quote(cubin_path.string()), work, timeout_seconds);
    if (elf.status == 0) dump.nv_info = nv_info_sections(elf.out);
    if (nvdisasm) {
      const ToolRun cfg = run(quote(*nvdisasm) + " -bbcfg -poff " + quote(cubin_path.string()), work, timeout_seconds);
      if (cfg.status == 0)
        dump.cfg_dot = cfg.out;
      else
        r.warning = "nvdisasm -bbcfg " + dump.cubin + ": " + why(cfg) + "; basic blocks from branch targets";
    }
    if (cache && r.warning.empty()) store_cached_dump(*cache, key, dump);
    return r;
  };
  support::progress("sass", "analysing " + std::to_string(cubins.size()) + " cubin(s) of " + label +
                               (cache ? " (dumps cached in " + cache->string() + ")" : ""));
  const std::size_t parallel = std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  std::vector<CubinResult> results;
  for (std::size_t first = 0; first < cubins.size(); first += parallel) {
    std::vector<std::future<CubinResult>> wave;
    for (std::size_t i = first; i < std::min(cubins.size(), first + parallel); ++i)
      wave.push_back(std::async(std::launch::async, dump_cubin, cubins[i]));
    for (auto& f : wave) results.push_back(f.get());
  }
  for (auto& r : results) {
    if (!r.error.empty()) throw AnalysisError(r.error);
    if (!r.warning.empty()) out.warnings.push_back(r.warning);
    std::vector<KernelStatics> kernels = analyse_dump(r.dump);
    out.kernels.insert(out.kernels.end(), kernels.begin(), kernels.end());
    out.dumps.push_back(std::move(r.dump));
  }
}

std::string require_cuobjdump() {
  const auto cuobjdump = find_cuobjdump();
  if (!cuobjdump)
    throw ToolMissing("cuobjdump not found" +
                      std::string(std::getenv("WARPMODEL_CUOBJDUMP") ? " at $WARPMODEL_CUOBJDUMP" : "") +
                      " (pip package nvidia-cuda-cuobjdump, installed by scripts/setup.sh; or set WARPMODEL_CUOBJDUMP "
                      "to its path)");
  return *cuobjdump;
}

}  // namespace

std::string dump_sass(const std::string& binary, int timeout_seconds) {
  const std::string cuobjdump = require_cuobjdump();
  std::error_code ec;
  if (!fs::is_regular_file(binary, ec) || ::access(binary.c_str(), R_OK) != 0)
    throw AnalysisError(binary + ": cannot read the file (does it exist and is it readable?)");
  TempDir tmp;
  const ToolRun r = run(quote(cuobjdump) + " -sass " + quote(fs::absolute(binary).string()), tmp.path, timeout_seconds);
  if (r.status != 0 || r.out.empty())
    throw AnalysisError("cuobjdump -sass " + binary + ": " + (r.status == 0 ? "no SASS in the file" : why(r)));
  return r.out;
}

BinaryAnalysis analyse_binary(const std::string& binary, int timeout_seconds) {
  const std::string cuobjdump = require_cuobjdump();
  std::error_code ec;
  if (!fs::is_regular_file(binary, ec) || ::access(binary.c_str(), R_OK) != 0)
    throw AnalysisError(binary + ": cannot read the file (does it exist and is it readable?)");
  const std::string absolute = fs::absolute(binary).string();

  BinaryAnalysis out;
  out.binary = binary;
  TempDir tmp;
  const ToolRun extract = run(quote(cuobjdump) + " -xelf all " + quote(absolute), tmp.path, timeout_seconds);
  std::vector<fs::path> cubins;
  for (const auto& entry : fs::directory_iterator(tmp.path))
    if (entry.path().extension() == ".cubin") cubins.push_back(entry.path());
  std::sort(cubins.begin(), cubins.end());
  if (cubins.empty()) {
    if (extract.status == 124) throw AnalysisError("cuobjdump -xelf all " + binary + ": timed out");
    const bool plain = extract.err.empty() || extract.err.find("does not contain device code") != std::string::npos;
    throw AnalysisError(binary + ": no device code (no cubin) in the file" +
                        (plain ? std::string() : " (cuobjdump: " + extract.err + ")"));
  }
  analyse_cubins(cubins, binary, cuobjdump, tmp.path, timeout_seconds, out);
  // PTX entries without SASS: ".entry NAME(" lines of the embedded PTX.
  const ToolRun ptx = run(quote(cuobjdump) + " -ptx " + quote(absolute), tmp.path, timeout_seconds);
  if (ptx.status == 0) {
    // The PTX's .maxntid / .reqntid, for kernels whose cubin did not say (the cubin's are the same).
    const std::map<std::string, ThreadLimits> limits = parse_ptx_thread_limits(ptx.out);
    for (auto& k : out.kernels)
      if (const auto it = limits.find(k.name); k.thread_limits.empty() && it != limits.end()) {
        k.thread_limits = it->second;
        k.thread_limits_source = "ptx";
      }
    std::istringstream lines(ptx.out);
    for (std::string line; std::getline(lines, line);) {
      const auto entry = line.find(".entry ");
      if (entry == std::string::npos) continue;
      std::string name = line.substr(entry + 7);
      name = name.substr(0, name.find_first_of("( \t"));
      const bool has_sass = std::any_of(out.kernels.begin(), out.kernels.end(),
                                        [&](const KernelStatics& k) { return k.name == name; });
      if (!name.empty() && !has_sass &&
          std::find(out.ptx_only_kernels.begin(), out.ptx_only_kernels.end(), name) == out.ptx_only_kernels.end())
        out.ptx_only_kernels.push_back(name);
    }
  }
  return out;
}

BinaryAnalysis analyse_cubin_folder(const std::string& folder, int timeout_seconds) {
  const std::string cuobjdump = require_cuobjdump();
  std::error_code ec;
  if (!fs::is_directory(folder, ec))
    throw AnalysisError(folder + ": not a folder (expected the PREFIX.cubins folder `warpmodel profile` wrote)");
  std::vector<fs::path> cubins;
  for (const auto& entry : fs::directory_iterator(folder, ec))
    if (entry.path().extension() == ".cubin") cubins.push_back(entry.path());
  if (ec) throw AnalysisError(folder + ": cannot list the folder (" + ec.message() + ")");
  // Numeric file names in numeric order (2.cubin before 10.cubin).
  std::sort(cubins.begin(), cubins.end(), [](const fs::path& a, const fs::path& b) {
    const std::string x = a.stem().string(), y = b.stem().string();
    return x.size() != y.size() ? x.size() < y.size() : x < y;
  });
  if (cubins.empty()) throw AnalysisError(folder + ": no .cubin file in the folder");
  BinaryAnalysis out;
  out.binary = folder;
  TempDir tmp;  // the tools' stderr files
  analyse_cubins(cubins, folder, cuobjdump, tmp.path, timeout_seconds, out);
  return out;
}

}  // namespace warpmodel::sass
