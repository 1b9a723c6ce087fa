// Precision advice: from a run's records (a probe stream, an engine stream, a session), per layer and
// tensor role, which formats hold the tensor safely and which do not, with the evidence (the worst flush,
// overflow and subnormal shares, the lowest SQNR, the steps they were seen at); whether FP16 needs a
// GradScaler and from which step a scale covers the smallest gradients; and per layer the precision mode
// to train it in. No torch, no Qt: built from ModeStep records alone. docs/advice.md explains every rule
// and threshold; the thresholds live in AdviceThresholds and nowhere else.
//
// What is judged, per tensor of the judged mode (fp32 by default: the reference, whose values are what a
// lower precision would have to hold):
// - "fp16", "bf16": the histogram's range counts (docs/record-format.md, `formats`): round to nearest even
//   into the format without any scale (the unscaled histogram: for gradients, FP16 without a GradScaler);
//   the SQNR from the tensor's `rounding-cost` where the stream has one (probe, rounding_cost=True).
// - "fp16+scaler" (gradients and activation gradients only): FP16 after multiplying by the loss scale:
//   the recorded scale where the judged mode has a GradScaler (the scaled histogram's exact counts), else
//   the scale an fp16-amp-scaled mode beside it used at that step, otherwise torch's default initial
//   scale 2^16, halved until the step's largest gradient does not overflow (what a GradScaler backs off
//   to). Overflows are not judged here: the scaler skips the step.
// - "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4": the tensor's `rounding-cost` (per-tensor amax or block
//   scaling, as the FP8 recipes scale); no evidence without one.
// - as run: every quantised mode in the stream (fp8-delayed, fp8-current, mxfp8, nvfp4) adds a column
//   "run:<mode>" from its `quantized` records: saturated (as overflow, unless even the scaled amax rounds
//   to the format's max) and flushed per GEMM operand.
// MXFP8 and NVFP4 (what-if or as run) are judged by their SQNR alone: their block scales make what flushes
// or clamps part of the format's precision.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

// Every threshold of the advice, in one place (docs/advice.md says why each value). The CLI may override
// them by flag; the output prints the ones used.
struct AdviceThresholds {
  // A (layer, role, format) seen on fewer instrumented steps is not judged ("too few steps").
  int64_t minSteps = 5;
  // Unsafe when, at some instrumented step, more than this share of the finite non-zero values flushes.
  double unsafeFlushShare = 0.01;
  // Caution when more than this share flushes at some step (below the unsafe share).
  double cautionFlushShare = 1e-4;
  // Caution when more than this share rounds to a subnormal (fewer significant bits) at some step.
  double cautionSubnormalShare = 0.05;
  // Unsafe when more than this share overflows (to inf, or saturates in a scaled format) at some step.
  double unsafeOverflowShare = 0;
  // Unsafe when the SQNR falls more than this many dB below what the format's significand alone gives
  // (formatSqnrDb below).
  double sqnrMarginDb = 12;
};

// The SQNR a format's rounding alone gives a value whose error is spread uniformly over its ulp:
// 10 log10(7 * 4^p) dB for p significand bits (the implicit bit included). `column` is an evidence column
// ("fp16", "bf16", "fp8-e4m3", ...); nullopt where SQNR is not judged (the as-run columns).
std::optional<double> formatSqnrDb(const std::string& column);
// The significand bits (implicit bit included) behind formatSqnrDb: fp16 11, bf16 8, fp8-e4m3 and
// mxfp8 4, fp8-e5m2 3, nvfp4 2; 0 for any other column.
int formatSignificandBits(const std::string& column);

enum class Verdict { Ok, Caution, Unsafe, TooFewSteps };
const char* verdictKey(Verdict verdict);  // "ok", "caution", "unsafe", "too-few-steps"

// What one (layer, role, column) showed over the instrumented steps.
struct FormatEvidence {
  std::string layer;   // "net.0", "encoder.layers.0.linear1", "fc1"
  std::string role;    // "gradient", "activation", "activation-gradient", "weight", "gemm-input"
  std::string column;  // "fp16", "fp16+scaler", "bf16", "fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4", or a mode
  int64_t steps = 0;       // instrumented steps that gave evidence
  int64_t firstStep = 0;
  int64_t lastStep = 0;
  double worstFlushShare = 0;
  int64_t worstFlushStep = 0;
  double worstOverflowShare = 0;
  int64_t worstOverflowStep = 0;
  double worstSubnormalShare = 0;
  int64_t worstSubnormalStep = 0;
  bool hasSqnr = false;
  double minSqnrDb = 0;
  int64_t minSqnrStep = 0;
  int64_t unsafeSteps = 0;     // steps over an unsafe threshold
  int64_t firstUnsafeStep = 0;
  Verdict verdict = Verdict::TooFewSteps;
  std::string reason;  // "flushed 12.5% at step 40 (over 1% at 8 of 10 steps, from step 12)"
};

// One scale's cover of the smallest gradients over the run.
struct ScaleCover {
  std::string label;          // "2^16 (torch's default initial scale)", "the recorded scale"
  int64_t steps = 0;          // instrumented steps with non-zero backward values
  int64_t uncoveredSteps = 0; // steps where the scale leaves the smallest gradient below 2^-24
  int64_t firstUncoveredStep = 0;
  int64_t lastUncoveredStep = 0;
  int64_t coveredFromStep = 0;  // the first step from which every later step is covered; 0: never
  // The same with "covered" meaning: no more than the unsafe flush share of the backward values flush.
  int64_t overShareSteps = 0;
  int64_t firstOverShareStep = 0;
  int64_t shareCoveredFromStep = 0;
};

// Whether FP16 needs a GradScaler: the gradients and activation gradients of the judged mode, together.
struct ScalerAdvice {
  int64_t steps = 0;         // instrumented steps with non-zero backward values
  bool needed = false;       // some backward tensor's "fp16" verdict is unsafe
  // log2 of the smallest power-of-two scale lifting every non-zero backward value to at least 2^-24
  // (FP16's smallest subnormal): -24 - (lowest occupied exponent); the largest over the steps.
  int neededLog2 = 0;
  int64_t neededStep = 0;
  // The same for flushing no more than the unsafe flush share of the backward values (all together).
  int neededForShareLog2 = 0;
  int64_t neededForShareStep = 0;
  // log2 of the largest power-of-two scale keeping every backward value below 2^15 * 2 (no overflow):
  // 14 - (highest occupied exponent); the smallest over the steps.
  int ceilingLog2 = 0;
  int64_t ceilingStep = 0;
  int64_t noScaleFitsSteps = 0;  // steps whose needed scale exceeds their ceiling: FP16's 40 binades
  int64_t firstNoScaleFitsStep = 0;  // cannot hold the gradients, whatever the scale
  std::vector<ScaleCover> covers;  // the default 2^16, and the recorded scale when there is one
};

// What the plan says for one layer.
struct LayerPlan {
  std::string layer;
  std::string mode;        // an engine precision mode: "fp8-current", "fp16-amp-scaled", "bf16-amp", "fp32"
  bool keptHigher = false; // not the target (the first mode of the chain)
  std::string reason;
};

struct RunIdentity {
  std::string file;        // as given
  std::string kind;        // "probe-stream", "engine-stream", "session"
  std::string run;         // the probe's run name, the session's lesson, or empty
  std::string runId;
  std::string mode;        // the judged mode
  int64_t firstStep = 0;
  int64_t lastStep = 0;
  int64_t instrumentedSteps = 0;  // of the judged mode
};

struct PrecisionAdvice {
  RunIdentity run;
  AdviceThresholds thresholds;
  std::string target;  // the plan's target mode, or "auto" (the cheapest safe mode per layer)
  bool tooShort = false;       // no (layer, role, column) reached thresholds.minSteps: nothing judged
  int64_t mostSteps = 0;       // the most instrumented steps any (layer, role, column) had
  std::vector<FormatEvidence> evidence;  // layer order of first appearance, then role, then column
  ScalerAdvice scaler;
  std::vector<LayerPlan> plan;
};

// The modes `--target` accepts, cheapest first; "auto" tries them in this order.
const std::vector<PrecisionMode>& adviceModeOrder();
// The mode chain a layer walks for `target`: the target, then fp16-amp-scaled after fp16-amp, then
// bf16-amp and fp32 (higher precision or more range); for "auto" every mode of adviceModeOrder().
std::vector<PrecisionMode> adviceChain(const std::string& target);

// The layer a tensor belongs to: a parameter's (gradient or weight) name without its last component
// ("net.0.weight" -> "net.0"); a module's name as it is; an engine tap "act:fc1.out" -> "fc1".
std::string adviceLayer(const TensorStats& tensor);
// An engine model's parameter layer under the name its rounding points, taps and quantised operands use
// (engine/src/models: the MLPs' Sequential "net.<2i>" is "fc<i+1>", the Transformer's "blocks.<i>" is
// "block<i>"), so one layer of an engine stream is one row; any other name is returned as it is.
std::string engineLayerName(ModelKind model, const std::string& layer);

// The roles the advice judges: tensorRoleKey, and "gemm-input" for a quantised GEMM's input.
std::string adviceRole(const TensorStats& tensor);

// Builds the advice step by step (memory grows with layers and roles, not with steps).
class AdviceBuilder {
 public:
  // `judgedMode`: whose tensors are judged; quantised modes' `quantized` records are read whatever it is.
  AdviceBuilder(PrecisionMode judgedMode, AdviceThresholds thresholds);
  // An engine stream or session: its model's parameter layers take the engine's layer names.
  void setEngineModel(ModelKind model) { engineModel_ = model; }
  void add(const ModeStep& step);
  // Verdicts, the scaler's advice and the plan for `target` ("auto" or a mode of adviceModeOrder()).
  PrecisionAdvice finish(RunIdentity run, const std::string& target);

 private:
  struct Accumulator {
    FormatEvidence evidence;
  };
  struct StepCounts {
    int64_t elements = 0, flushed = 0, subnormal = 0, overflowed = 0;
    bool hasSqnr = false;
    double minSqnrDb = 0;
  };
  using Key = std::tuple<int64_t, std::string, std::string>;  // layer index, role, column
  void fold(const Key& key, const StepCounts& counts, int64_t step);
  int64_t layerOf(const std::string& layer);
  static void addCounts(StepCounts& to, int64_t elements, int64_t flushed, int64_t subnormal, int64_t overflowed,
                        const FormatCostStats* cost);
  // Adds the step's backward range to the scaler's advice; its ceiling (nullopt: no non-zero values).
  std::optional<int> addScaler(const ModeStep& step, double scale);
  void flushPending();
  void addQuantised(const ModeStep& step);
  // `otherScale`: the loss scale a GradScaler mode beside the judged one used at this step (0: none).
  void addJudged(const ModeStep& step, double otherScale);

  PrecisionMode judged_;
  AdviceThresholds thresholds_;
  std::optional<ModelKind> engineModel_;
  std::vector<std::string> layers_;  // first-appearance order
  std::map<std::string, int64_t> layerIndex_;
  std::map<Key, FormatEvidence> evidence_;
  int64_t instrumentedSteps_ = 0;
  int64_t firstStep_ = 0, lastStep_ = 0;
  bool haveRecordedScale_ = false;
  std::optional<ModeStep> pending_;  // the judged mode's latest step, until its step's other modes came
  double pendingScale_ = 0;
  std::string scalerModeName_;
  ScalerAdvice scaler_;
  ScaleCover defaultCover_, recordedCover_;
};

// Judges one evidence entry against the thresholds: its verdict and reason (the builder calls it).
void judgeEvidence(FormatEvidence& evidence, const AdviceThresholds& thresholds);

// The readable report: a header (run, thresholds), the verdict table per layer and role, the evidence of
// every unsafe or cautioned entry, the GradScaler's advice and the plan. '\n'-terminated lines.
std::string adviceText(const PrecisionAdvice& advice);

}  // namespace ampscope
