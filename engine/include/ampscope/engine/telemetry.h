// Telemetry: what one training step of one precision mode produced, as plain structs (no torch types)
// so the UI, the CLI and the session files can hold them. NaN and Inf losses are kept as they are.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ampscope/engine/exponent_bins.h"
#include "ampscope/engine/run_config.h"

namespace ampscope {

// The formats whose range a histogram measures, whatever the mode's own format (the order is fixed:
// it indexes ExponentHistogram::formats).
enum class RangeFormat { FP16, BF16, FP8E4M3, FP8E5M2 };
inline constexpr int kRangeFormats = 4;
const char* rangeFormatKey(RangeFormat format);  // "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"

// What round-to-nearest-even into one format would make of a tensor's finite non-zero values:
// flushed = rounds to zero, subnormal = rounds to a non-zero subnormal, overflowed = rounds to inf
// (to NaN for FP8 E4M3, which has no inf). docs/record-format.md gives the exact thresholds.
struct FormatRangeCounts {
  int64_t flushed = 0;
  int64_t subnormal = 0;
  int64_t overflowed = 0;
};

// Exact exponent histogram of a float32 tensor: bin e counts finite non-zero values with
// floor(log2|x|) == e, for e in [kMinExponent, kMaxExponent] (float32 subnormals reach 2^-149); only
// the occupied range of bins is stored (exponent_bins.h).
// Zeros, infinities and NaNs have bins of their own, so counts + zero + posInf + negInf + nan == numel.
// `targetSubnormal` and `targetUnderflow` are overlays (not extra bins): how many of the finite values
// would be subnormal in / round to zero in the mode's low-precision format (FP16 or BF16; for FP32 modes
// they are computed against FP16 so the lesson can show what *would* happen).
struct ExponentHistogram {
  static constexpr int kMinExponent = ExponentBins::kMinExponent;
  static constexpr int kMaxExponent = ExponentBins::kMaxExponent;
  static constexpr int kBins = ExponentBins::kBins;
  ExponentBins counts;
  int64_t zero = 0;
  int64_t posInf = 0;
  int64_t negInf = 0;
  int64_t nan = 0;
  int64_t targetSubnormal = 0;
  int64_t targetUnderflow = 0;
  // Per RangeFormat; formatsMeasured says they were computed (version 2 records have none).
  std::array<FormatRangeCounts, kRangeFormats> formats{};
  bool formatsMeasured = false;

  int64_t countAt(int exponent) const { return counts.at(exponent); }  // 0 outside the occupied range
  int64_t total() const;  // sum of every bin: equals the element count
  void add(const ExponentHistogram& other);
};

// What happened at the rounding points (where autocast casts, or every op in a pure mode).
struct RoundingCounts {
  int64_t elements = 0;       // elements that passed through a rounding point
  int64_t flushedToZero = 0;  // non-zero before, zero after
  int64_t subnormal = 0;      // subnormal after rounding
  int64_t overflowed = 0;     // finite before, inf after
  int64_t nan = 0;            // NaN after rounding
  void add(const RoundingCounts& other);
};

// What an instrumented tensor is (record stream version 4's "role"): a parameter's gradient, a module's
// output in forward, the gradient arriving at a module's output in backward, or a parameter's value.
enum class TensorRole { Gradient, Activation, ActivationGradient, Weight };
const char* tensorRoleKey(TensorRole role);  // "gradient", "activation", "activation-gradient", "weight"

// What rounding the tensor into one format would cost (rounding_cost.h in ampscope_formats computes it;
// a probe writes it): record stream version 4's "rounding-cost".
struct FormatCostStats {
  std::string format;     // "fp16", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"
  int64_t elements = 0;   // finite values
  int64_t changed = 0;
  int64_t flushed = 0;
  int64_t subnormal = 0;
  int64_t overflowed = 0;
  double sqnrDb = 0;      // +inf when nothing changed, -inf when a value became inf or NaN
};

// One instrumented tensor: a parameter's gradient, a tapped activation gradient, or (probe, version 4)
// a module's output, the gradient at it, or a weight.
struct TensorStats {
  std::string name;        // "net.0.weight", "act:fc1.out" (a tapped activation gradient), "fc1" (a module)
  bool isParameter = true; // a parameter's gradient (role Gradient); false for every other role
  int64_t numel = 0;
  ExponentHistogram scaled;    // as the GradScaler saw them (equal to unscaled when no scaler)
  ExponentHistogram unscaled;
  TensorRole role = TensorRole::Gradient;  // read it through tensorRole(): absent from a stream, and left
                                           // at Gradient on a non-parameter tensor, it is
                                           // ActivationGradient (the tapped gradients before version 4)
  std::vector<FormatCostStats> roundingCost;  // empty, or the six formats in the order above
};
// Gradient for a parameter's gradient; otherwise the role, Gradient read as ActivationGradient.
TensorRole tensorRole(const TensorStats& tensor);

// Rounding counts of one rounding point (a layer's input, weight, output or its gradient).
// Names: "<layer>.input|weight|bias|other|output" in forward, "<layer>.grad_input|grad_weight|
// grad_bias|grad_other|grad_output" in backward (layers: fc1, fc2, ... for the MLPs;
// block0.attn.qkv, block0.attn.scores, block0.mlp.gelu, loss, ... for the Transformer), plus
// "optimizer.parameters" for the FP16-pure re-rounding of the stored weights after each update.
// Emulated modes count exactly at each rounding; natively run modes count the casts of FP32 tensors
// into low-precision ops exactly, classify the low-precision outputs and gradients as stored, and find
// a backward kernel's flushes against a float64 recomputation of the same gradient (a native 0 where
// that is not 0; docs/architecture.md, "Native or emulated").
struct RoundingPointStats {
  std::string name;        // "fc1.input", "fc1.weight", "fc1.output", "fc1.grad_input" ...
  std::string layer;       // "fc1": the per-layer view groups by this
  bool backward = false;
  RoundingCounts counts;
};

// FP8 and microscaling modes (fp8-delayed, fp8-current, mxfp8, nvfp4): the element format a GEMM
// operand is quantised to, and how its scale is chosen. docs/fp8-recipes.md describes each recipe.
enum class QuantFormat { E4M3, E5M2, E2M1 };
enum class ScalingKind {
  None,        // scale 1 (fp8.scaling off): the values meet the format's fixed range as they are
  Delayed,     // per tensor, from the maximum of an amax history of earlier steps
  Current,     // per tensor, from this tensor's own amax
  MxBlock,     // MXFP8: a power-of-two (E8M0) scale per 32 values along the reduction dimension
  Nvfp4Block,  // NVFP4: an E4M3 scale per 16 values times one FP32 scale per tensor
};
const char* quantFormatKey(QuantFormat format);   // "e4m3", "e5m2", "e2m1"
const char* scalingKindKey(ScalingKind kind);     // "none", "delayed", "current", "mx-block", "nvfp4-block"
std::optional<QuantFormat> parseQuantFormat(const std::string& key);
std::optional<ScalingKind> parseScalingKind(const std::string& key);

// One quantised GEMM operand of one step: a linear/matmul input or weight (forward) or the gradient
// arriving at its output (backward). The scalars are filled on every step; the counts and the histogram
// on instrumented steps only (measured == true).
struct QuantTensorStats {
  std::string name;              // "fc1.input", "fc1.weight", "fc1.grad_output", "block0.attn.qkv.input"
  std::string layer;             // "fc1"
  bool backward = false;
  QuantFormat format = QuantFormat::E4M3;
  ScalingKind scaling = ScalingKind::Current;
  int64_t numel = 0;
  // The factor the values are multiplied by before rounding (quantised = round(x * scale), the GEMM
  // uses quantised / scale). Block modes: the per-tensor part only (1 for MXFP8; NVFP4's FP32 scale).
  double scale = 1;
  double amax = 0;               // max |x| of this step's tensor, before scaling
  double amaxHistoryMax = 0;     // the amax the scale came from (delayed: the history's max before this step)
  // Block modes: floor(log2) of the smallest and largest per-block decode factor (x ~ factor * element;
  // for MXFP8 that is the E8M0 scale itself). Both 0 in per-tensor modes.
  int blockScaleExpMin = 0;
  int blockScaleExpMax = 0;
  bool measured = false;
  int64_t saturated = 0;         // finite values whose |x * scale| exceeded the format's max: clamped to it
  int64_t flushed = 0;           // non-zero values whose x * scale rounded to zero
  // Exponents of x before scaling (the UI draws the format's window at -log2(scale)); null unless
  // measured. Shared so copies of a ModeStep stay cheap.
  std::shared_ptr<const ExponentHistogram> histogram;
};

// What a reader's record budget (follow_budget.h) did not keep of one record: counted, and the folded
// parameter gradients summed (numel and both histograms), so the store's totals over them stay exact.
// Written to sessions and journals as the record's "folded" (docs/record-format.md); a probe never
// writes it. The sum is shared, so copies of a ModeStep stay cheap.
struct FoldedEntries {
  int64_t tensors = 0;          // "tensors" entries past the budget
  int64_t parameters = 0;       // of those, parameters' gradients: summed into parameterSum
  int64_t roundingPoints = 0;   // "rounding-points" past the budget: summed into one "(folded)" point
  int64_t quantized = 0;        // "quantized" entries past the budget: counted only
  int64_t names = 0;            // "nonfinite" names past the budget: counted only
  std::shared_ptr<const TensorStats> parameterSum;  // null when no parameter was folded
  bool any() const { return tensors > 0 || roundingPoints > 0 || quantized > 0 || names > 0; }
  void add(const FoldedEntries& other);
  void addCounts(const FoldedEntries& other);  // the counts alone (totals over many records)
  int64_t entries() const { return tensors + roundingPoints + quantized + names; }
};

struct ModeStep {
  PrecisionMode mode = PrecisionMode::FP32;
  int64_t step = 0;                // 1-based
  double loss = 0;                 // the unweighted, unscaled loss as float32 computed it (NaN kept)
  double lossScale = 1;            // the scale used for this step's backward (1 without a scaler)
  bool skipped = false;            // optimizer step skipped (non-finite gradients)
  bool foundInf = false;           // GradScaler's found_inf (or a non-finite grad in scaler-less modes)
  double gradNormBeforeClip = 0;   // L2 norm of the (unscaled, where unscaled) gradients
  double gradNormAfterClip = 0;
  double clipNormSeen = 0;         // the norm clip_grad_norm_ computed (scaled when clipped too early)
  double lr = 0;
  double stepTimeMs = 0;
  // Counting allocator, for this mode alone: the bytes it held when its step began (parameters,
  // optimizer state) plus the allocator's net change (currentBytes, after the step) or its peak above
  // the starting level (peakBytes, reset before each mode's step).
  int64_t currentBytes = 0;
  int64_t peakBytes = 0;
  bool diverged = false;           // loss or parameters became non-finite; this mode stops here
  bool instrumented = false;       // tensors/roundingPoints filled on this step
  RoundingCounts rounding;         // totals over all rounding points (only on instrumented steps)
  std::vector<RoundingPointStats> roundingPoints;
  std::vector<TensorStats> tensors;
  std::vector<QuantTensorStats> quantized;  // FP8/microscaling modes: every step (see QuantTensorStats)
  // Filled by streams from a training script (0 / empty = not given):
  int64_t seq = 0;                 // the writer's record number, +1 per record (a gap = records dropped)
  double wallTime = 0;             // seconds since the Unix epoch when the record was produced
  std::vector<std::string> nonFinite;  // parameters whose gradients held inf/NaN, in module order
  std::vector<std::pair<std::string, bool>> foundInfPerDevice;  // the scaler's found_inf per device
  FoldedEntries folded;            // what a reader's record budget left out of the lists above
};

// One lock-step of the comparison: every active mode did step `step` on the same batch.
struct StepRecord {
  int64_t step = 0;
  std::vector<ModeStep> modes;
};

// Which op ran in which dtype during one forward pass of a mode.
struct OpDtypeEntry {
  std::string op;             // "linear", "gelu", "cross_entropy", "softmax", ...
  std::string where;          // "fc1", "loss" ...
  std::string inputDtype;     // "float32", "bfloat16", "float16"
  std::string outputDtype;
  bool emulated = false;      // the dtype is emulated (FP32 arithmetic rounded exactly to it)
};

// Bytes per category for one mode, measured with the counting allocator.
struct MemoryLedger {
  int64_t parameters = 0;
  int64_t gradients = 0;
  int64_t optimizerState = 0;
  int64_t activations = 0;    // saved for backward at the end of forward
  int64_t temporaries = 0;    // peak minus everything above
  int64_t peak = 0;
};

// How a mode runs on this LibTorch/device.
struct ModeCapability {
  PrecisionMode mode = PrecisionMode::FP32;
  bool native = true;         // false: emulated with exact RNE rounding in FP32 arithmetic
  std::string detail;         // one sentence: "BF16 CPU autocast (native)", "FP16 emulated: ..."
  // The path choice (path_timing.h): whether a native path exists at all, the CPU time per TinyMLP
  // step of each path where they were timed (0 = not timed), and why this path, in one line:
  // "emulated: 5.2x faster than native on this CPU".
  bool nativeAvailable = true;
  double nativeStepUs = 0;
  double emulatedStepUs = 0;
  std::string pathNote;
  // Where the mode's native GEMM was self-checked: how it compares with the emulation's on the models'
  // layer shapes ("native and emulated BF16 linear differ in 0.012 % of 4352 outputs, by at most 1 ulp
  // ..."); empty where not measured.
  std::string kernelNote;
  // The LibTorch has the native path but its GEMM failed the self-check, so the mode is emulated
  // (pathNote says what was wrong).
  bool nativeFailedCheck = false;
  // Steps the two paths were trained side by side on this machine (0: not compared), and the first
  // whose loss differed (0: all agreed bit for bit, final weights included).
  int comparedSteps = 0;
  int firstDifferingStep = 0;
};

}  // namespace ampscope
