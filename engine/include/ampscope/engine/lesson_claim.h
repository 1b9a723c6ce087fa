// A lesson's claim: a small declarative predicate over the recorded steps of a run, carried by a "what to
// look for" item of a lesson file (docs/lesson-claims.md has the grammar and every measure). No Qt: the
// lesson parser hands the claim over as JSON text, and LessonClaimEvaluator checks it step by step.
//
//   claim := atom | {"all-of": [claim, ...]}        (+ on the outermost claim only: "by-step", "variants")
//   atom  := {"measure": "loss-gap", "mode": "fp16-pure", "over": "fp32", "window": 20,
//             "at-least": 0.2, "at-most": ..., "above": ..., "below": ...,
//             "at-step": 100 | "steps": [101, 116], "tensor": "fc1.input"}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/run_config.h"

namespace ampscope {

// What an atom reads from a mode's records. Shares and relative gaps are fractions (0.2 = 20 %).
enum class ClaimMeasure {
  Steps,               // steps the mode has recorded
  Loss,                // mean loss of the mode's last `window` steps
  LossGap,             // (Loss(mode) - Loss(over)) / Loss(over)
  LossDrop,            // mean loss of the mode's first `window` steps minus the mean of its last `window`
  DropRatio,           // LossDrop(mode) / LossDrop(over)
  LossScale,           // the loss scale of the step
  SkippedSteps,        // optimizer steps skipped so far
  ScaleRegrowths,      // times the loss scale grew again after a backoff, so far
  ClipNormSeen,        // the norm clip_grad_norm_ computed
  GradNormBeforeClip,  // the true (unscaled) gradient norm
  GradNormAfterClip,
  ClipNormRatio,       // ClipNormSeen / GradNormBeforeClip: the scale a too-early clip saw
  PeakBytes,           // the step's peak bytes (counting allocator)
  PeakRatio,           // PeakBytes(mode) / PeakBytes(over), each mode's latest step
  FlushedToZero,       // values flushed to zero at the rounding points (instrumented steps)
  ZeroGradientShare,   // share of the parameters' (unscaled) gradient values that are exactly 0 (instrumented)
  SaturatedShare,      // quantised operands: share clamped to the format's max (measured steps)
  FlushedShare,        // quantised operands: share of values that rounded to 0 (measured steps)
  ScaleLog2,           // log2 of one quantised tensor's per-tensor scale (every step)
  BlockScaleSpan,      // binades between the smallest and largest block scale (measured steps)
};
const char* claimMeasureKey(ClaimMeasure measure);  // "loss-gap"
std::optional<ClaimMeasure> parseClaimMeasure(const std::string& key);
bool claimMeasureIsShare(ClaimMeasure measure);      // a fraction better read as a percentage
bool claimMeasureNeedsOver(ClaimMeasure measure);    // LossGap, DropRatio, PeakRatio
bool claimMeasureNeedsTensor(ClaimMeasure measure);  // the quantised-operand measures
bool claimMeasureHasWindow(ClaimMeasure measure);    // the loss measures

// The quantised-operand selectors besides a tensor's own name ("fc1.input").
inline constexpr const char* kClaimTensorsForward = "forward-operands";  // every forward operand
inline constexpr const char* kClaimTensorsBackward = "gradients";        // every backward operand

struct ClaimBounds {
  std::optional<double> atLeast, atMost, above, below;
  bool admits(double value) const;  // NaN admits nothing
};

struct ClaimSpec {
  std::vector<ClaimSpec> allOf;  // non-empty: this node is an all-of of these; the fields below unused
  ClaimMeasure measure = ClaimMeasure::Steps;
  std::optional<PrecisionMode> mode;  // nullopt: every mode of the run ("mode": "every")
  std::optional<PrecisionMode> over;  // LossGap, DropRatio
  std::string tensor;                 // the quantised-operand measures
  int window = 20;                    // the loss measures
  ClaimBounds bounds;
  // When the atom is read: 0/0 at every step; else every measured step in [fromStep, toStep] must hold
  // (at least one measured), decided at toStep ("at-step": N is [N, N]).
  int64_t fromStep = 0;
  int64_t toStep = 0;
  // Outermost claim only: the claim does not hold if it has not held by this step (0: no deadline), and
  // the lesson variants it applies to (empty: those of its callout).
  int64_t byStep = 0;
  std::vector<std::string> variants;

  bool isAllOf() const { return !allOf.empty(); }
};

struct ClaimParseError {
  std::string field;  // the full path: "callouts[3].claim.at-least"
  std::string message;
};

// Reads a claim at `path` (the field it sits at, e.g. "callouts[3].claim"). Every key is checked: an unknown
// key, a missing one or a bad value is an error naming the field.
std::optional<ClaimSpec> parseLessonClaim(const JsonValue& value, const std::string& path, ClaimParseError* error);

// The modes an atom of `spec` names (mode and over), each once, for checking them against a run's modes.
std::vector<PrecisionMode> claimModes(const ClaimSpec& spec);
// The atoms of `spec` in the order they are written (an all-of's children, depth first).
std::vector<const ClaimSpec*> claimAtoms(const ClaimSpec& spec);

}  // namespace ampscope
