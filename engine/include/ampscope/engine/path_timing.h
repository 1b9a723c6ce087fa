// Which path a low-precision mode runs where LibTorch has a native one and the engine has the exact
// emulation too: the timings of both on the running machine, the file that keeps them between runs,
// and the choice. No torch: the timing itself is done by the capability probe (capability_probe.cpp),
// which hands this code the numbers, so the choice and the cache are tested with numbers made up.
//
// Cache file (JSON, written whole on each new timing; a damaged or foreign file is ignored and
// replaced, never an error):
//   {"format":"ampscope-precision-paths","version":1,"machines":[
//     {"key":"<machineKey>","modes":{"bf16-amp":{"native-us":845.2,"emulated-us":910.7},...}},...]}
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"

namespace ampscope {

// CPU time of one warm TinyMLP training step of each path, microseconds.
struct PathTiming {
  double nativeUs = 0;
  double emulatedUs = 0;
};

// Auto takes the emulation only when it is at least this much faster: native is what PyTorch itself
// runs (its losses match an exported script bit for bit), so a near tie keeps it.
inline constexpr double kEmulationMustBeFaster = 1.10;

// The choice for one mode. nativeAvailable: the LibTorch has a native path for it. timing: the
// measured (or cached) numbers, if any. note: why, in one line, e.g.
// "emulated: 5.2x faster than native on this CPU".
// Raised when a change makes the native or the emulated path faster or slower (2: BF16 rounding
// vectorised, a pure mode's parameters no longer copied each step; 3: the MLPs' emulated pass without
// autograd, models/mlp_direct_pass.h).
constexpr int kEmulationKernelRevision = 3;

struct PathDecision {
  bool native = true;
  std::string note;
};
PathDecision decidePath(PrecisionMode mode, bool nativeAvailable, PrecisionPath setting,
                        const std::optional<PathTiming>& timing);

// What timings are valid for: the CPU model, a digest of its feature flags, the LibTorch version, the
// intra-op thread count, and AmpScope's version with the revision of its emulation kernels (a faster
// emulation must be timed again, not judged by what an older one measured). cpuModel/cpuFlags come
// from cpuIdentity() in the app.
std::string machineKey(const std::string& cpuModel, const std::string& cpuFlags,
                       const std::string& libtorchVersion, int threads,
                       int kernelRevision = kEmulationKernelRevision);
// The "model name" and "flags" lines of /proc/cpuinfo's first processor (empty where there is none).
std::pair<std::string, std::string> cpuIdentity();

// $AMPSCOPE_CACHE_DIR, else $XDG_CACHE_HOME/ampscope, else $HOME/.cache/ampscope, with
// "/precision-paths.json"; empty when none of them is set.
std::string defaultPathTimingFile();

// Reads the file on first use, answers from memory after that; store() rewrites the file (creating its
// folder). A file that does not read is treated as empty; a write that fails leaves the timing in
// memory and its reason in writeProblem() (the run goes on: the cache only saves the next start time).
class PathTimingCache {
 public:
  explicit PathTimingCache(std::string file);  // empty file: memory only
  std::optional<PathTiming> find(const std::string& key, PrecisionMode mode);
  void store(const std::string& key, PrecisionMode mode, const PathTiming& timing);
  const std::string& file() const { return file_; }
  const std::string& readProblem() const { return readProblem_; }    // why the file was ignored
  const std::string& writeProblem() const { return writeProblem_; }  // why the last write failed

 private:
  void load();
  std::string file_;
  bool loaded_ = false;
  std::string readProblem_;
  std::string writeProblem_;
  struct Entry {
    std::string key;
    std::string mode;
    PathTiming timing;
  };
  std::vector<Entry> entries_;
};

// Path timing for the capability probe. Off by default, so tests and library users get the native path
// where one exists without timing anything; the apps turn it on at start. timer: null times real
// TinyMLP steps; a test gives made-up numbers instead.
struct PathTimingOptions {
  std::string cacheFile;  // empty: timings kept in memory for the process only
  std::function<PathTiming(PrecisionMode mode, int threads)> timer;
};
void enablePathTiming(PathTimingOptions options);
void disablePathTiming();

}  // namespace ampscope
