// Which path a low-precision mode runs where LibTorch has a native one and the engine has the exact
// emulation too: the timings of both on the running machine, whether they agree bit for bit there, the
// file that keeps both between runs, and the choice. `auto` is exact with respect to this machine's
// PyTorch: it takes the emulation only where it trained bit-identically to the native kernels on the
// run's own model, and is faster. No torch: the timing itself is done by the capability probe (capability_probe.cpp),
// which hands this code the numbers, so the choice and the cache are tested with numbers made up.
//
// Cache file (JSON, written whole on each new timing; a damaged or foreign file is ignored and
// replaced, never an error):
//   {"format":"ampscope-precision-paths","version":2,"machines":[
//     {"key":"<machineKey>","modes":{"bf16-amp":{"native-us":845.2,"emulated-us":910.7,
//        "compared-steps":7,"first-differing-step":2,"largest-loss-difference":1.2e-7},...}},...]}
// Version 1 files (timings without the comparison) are ignored and replaced.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"

namespace ampscope {

// CPU time of one warm training step of each path on the run's model, microseconds, and how the two
// paths' losses compared over the same steps from the same weights and batches.
struct PathTiming {
  double nativeUs = 0;
  double emulatedUs = 0;
  int comparedSteps = 0;          // 0: not compared (then auto keeps native)
  int firstDifferingStep = 0;     // 1-based; 0: every compared step's loss and the final weights agree bit for bit
  double largestLossDifference = 0;
  bool identical() const { return comparedSteps > 0 && firstDifferingStep == 0; }
};

// Auto takes the emulation only when it is bit-identical to native on this machine and at least this
// much faster: native is what PyTorch itself runs (its losses match an exported script bit for bit),
// so a near tie keeps it.
inline constexpr double kEmulationMustBeFaster = 1.10;

// The choice for one mode. nativeAvailable: the LibTorch has a native path for it. timing: the
// measured (or cached) numbers, if any. note: why, in one line, e.g.
// "emulated: bit-identical to native over 7 steps and 5.2x faster on this CPU".
// Raised when a change makes the native or the emulated path faster or slower (2: BF16 rounding
// vectorised, a pure mode's parameters no longer copied each step; 3: the MLPs' emulated pass without
// autograd, models/mlp_direct_pass.h; 4: the paths compared bit for bit on the run's model).
constexpr int kEmulationKernelRevision = 4;

struct PathDecision {
  bool native = true;
  std::string note;
};
PathDecision decidePath(PrecisionMode mode, bool nativeAvailable, PrecisionPath setting,
                        const std::optional<PathTiming>& timing);

// What timings are valid for: the CPU model, a digest of its feature flags, the LibTorch version, the
// intra-op thread count, AmpScope's version with the revision of its emulation kernels (a faster
// emulation must be timed again, not judged by what an older one measured), and the model the paths
// were compared on. cpuModel/cpuFlags come from cpuIdentity() in the app.
std::string machineKey(const std::string& cpuModel, const std::string& cpuFlags,
                       const std::string& libtorchVersion, int threads, const std::string& model = "tiny-mlp",
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
// where one exists without timing anything; the apps turn it on at start. timer: null trains real
// steps of the run's model on both paths; a test gives made-up numbers instead.
struct PathTimingOptions {
  std::string cacheFile;  // empty: timings kept in memory for the process only
  std::function<PathTiming(PrecisionMode mode, ModelKind model, int threads)> timer;
};
void enablePathTiming(PathTimingOptions options);
void disablePathTiming();

}  // namespace ampscope
