// The native-kernel self-check. Before the capability probe lets a mode run on one of LibTorch's native
// kernels, that kernel runs once on a small case and is compared with an exact reference (float64
// arithmetic, rounded once to the kernel's dtype with the engine's own IEEE-754 rounding). A kernel whose
// error exceeds what its dtype's rounding and FP32 accumulation allow is not used: the mode falls back
// to the exact emulation and says why. Checked (docs/architecture.md, "Native kernels, checked"):
//   bf16-linear, fp16-linear   a GEMM with bias in that dtype (what CPU autocast and model.half() run),
//                              on the layer shapes of AmpScope's models; also measured against the
//                              emulation (FP32 GEMM rounded once) on the same data
//   fp32-linear, fp32-conv1d   the FP32 kernels (conv1d is not used by the models: a check that a
//                              user's own PyTorch on this CPU can be trusted with it)
//   amp-unscale, amp-update-scale   the GradScaler's CPU kernels (torch >= 2.3), against the
//                              documented semantics of torch.amp.GradScaler
//   float8-e4m3fn-cast, float8-e5m2-cast   torch's float8 dtypes (torch >= 2.1): all 256 bit patterns
//                              decoded, and float32 values rounded, against the engine's formats
// The results are kept in a cache file (kernel-checks.json beside the precision-path cache), keyed by the
// CPU, its flags, the LibTorch version, the intra-op thread count, AmpScope's version and the checks'
// revision, so they run at the first start on a machine only (`ampscope-cli kernels --recheck` runs
// them again).
// No torch in this header: the UI and the CLI show the results.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ampscope {

class JsonValue;
class JsonWriter;

struct KernelCheck {
  std::string kernel;       // "bf16-linear", see above
  std::string usedBy;       // the modes whose native path needs it ("bf16-amp, bf16-pure"); empty: none
  bool available = false;   // this LibTorch runs it on the CPU
  bool correct = false;     // available and every output within the allowed error of the exact result
  int64_t outputs = 0;      // values compared
  // Against the exact result rounded once to the output dtype: the share of outputs that differ from
  // it, the largest distance in units in the last place of that dtype, and the largest error as a
  // multiple of the allowed bound (<= 1 passes).
  double differingShare = 0;
  double maxUlps = 0;
  double worstBoundRatio = 0;
  // Low-precision GEMMs: native against the emulation's FP32 GEMM rounded once, on the same data.
  bool comparedWithEmulation = false;
  double emulationDifferingShare = 0;
  double emulationMaxUlps = 0;
  std::string note;         // why unavailable, or what was wrong, in one line; empty when correct
};

// Raised when a check changes (a kernel added, other shapes or data, another bound): results cached by
// an older revision are not used.
constexpr int kKernelCheckRevision = 1;

// The checks of the running LibTorch on this CPU: from the cache file where it holds them for this
// machine, else run now (and stored there); kept for the process.
const std::vector<KernelCheck>& nativeKernelChecks();
// Use `file` as the cache from the next nativeKernelChecks() on (empty: none, the checks run once per
// process). rerun: ignore what the file holds, run the checks and replace it.
void useKernelCheckCache(std::string file, bool rerun = false);
// Beside defaultPathTimingFile(): ".../kernel-checks.json"; empty when that is.
std::string defaultKernelCheckFile();
// Where nativeKernelChecks() has its results from: the cache file, or empty when they ran in this process.
std::string nativeKernelChecksSource();
// Why the cache file was not read or written, in one line; empty when it was (or there is none).
std::string kernelCheckCacheProblem();

// One check as a JSON object (the cache file's entries and `ampscope-cli kernels --json`), and back:
// nullopt when a field is missing or has the wrong type.
void writeKernelCheck(JsonWriter& w, const KernelCheck& check);
std::optional<KernelCheck> readKernelCheck(const JsonValue& value);

// The cache file: {"format":"ampscope-kernel-checks","version":1,"machines":[{"key":"<key>","checks":
// [<writeKernelCheck objects>]}]}. A damaged or foreign file is ignored and replaced at the next store().
class KernelCheckCache {
 public:
  explicit KernelCheckCache(std::string file);
  std::optional<std::vector<KernelCheck>> find(const std::string& key);
  void store(const std::string& key, const std::vector<KernelCheck>& checks);
  const std::string& readProblem() const { return readProblem_; }
  const std::string& writeProblem() const { return writeProblem_; }

 private:
  void load();
  std::string file_;
  bool loaded_ = false;
  std::string readProblem_;
  std::string writeProblem_;
  std::vector<std::pair<std::string, std::vector<KernelCheck>>> machines_;
};
// The check of `kernel` in `checks`, or null.
const KernelCheck* findKernelCheck(const std::vector<KernelCheck>& checks, const std::string& kernel);
// One line: "bf16-linear: correct; 0.013 % of 4352 outputs differ from the exact rounding, by at most
// 1 ulp; against the emulation: 0.013 %, at most 1 ulp".
std::string kernelCheckLine(const KernelCheck& check);

}  // namespace ampscope
