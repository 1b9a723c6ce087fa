// The precision plan file (`ampscope-cli advise --plan FILE`): per layer the precision mode to train it
// in and why, with the run it was advised from and the thresholds used. docs/advice.md describes every
// field. One codec: the writer and the reader are here, and `advise --json` writes the same plan object
// inside its report.
//
//   {"format":"ampscope-precision-plan","version":1,"app":"AmpScope <version>",
//    "source":{"file":"run.jsonl","kind":"probe-stream","run":"my-run","run-id":"5f0c2a9e1b7d4c3a",
//              "mode":"fp32","first-step":1,"last-step":200,"instrumented-steps":20},
//    "target":"fp8-current",
//    "thresholds":{"min-steps":5,"unsafe-flush-share":0.01,"caution-flush-share":0.0001,
//                  "caution-subnormal-share":0.05,"unsafe-overflow-share":0,"sqnr-margin-db":12},
//    "layers":[{"layer":"fc1","mode":"fp8-current","kept-higher":false,"reason":"..."},...]}
//
// The reader checks the format and the version (a newer one is refused naming both numbers), every
// field with its path ("layers[2].mode"), refuses unknown keys by name, a mode AmpScope does not know,
// and a layer named twice. Never throws.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/precision_advice.h"

namespace ampscope {

inline constexpr std::string_view kPrecisionPlanFormat = "ampscope-precision-plan";
inline constexpr int kPrecisionPlanVersion = 1;

struct PrecisionPlan {
  RunIdentity source;
  std::string target;  // "auto" or a mode name
  AdviceThresholds thresholds;
  std::vector<LayerPlan> layers;
};

PrecisionPlan planOf(const PrecisionAdvice& advice);

std::string encodePrecisionPlan(const PrecisionPlan& plan);  // pretty JSON, '\n'-terminated
// error: "layers[2].mode: unknown mode 'fp9'" (path and message), or the syntax error's place.
std::optional<PrecisionPlan> decodePrecisionPlan(std::string_view json, std::string* error);

// Writes encodePrecisionPlan(plan) to `path` through `path`.tmp, renamed over `path` once complete (an
// existing file is replaced: whoever calls asks first). False when any part of the write failed; the
// temporary file is then removed and `path` is left as it was.
bool writePrecisionPlanFile(const std::string& path, const PrecisionPlan& plan);

// A plan file as the "plan" lane of a run of `model` (train --plan-file, the run panel's Load Plan…):
// each layer in its mode; plan.default is the file's target, or fp32 for "auto" (ops no layer names then
// run as FP32). Layers that are not GEMM layers of the model (planLayerNames: a probe's "net.0", a
// rounding point's "block0.ln1") are left out, each named in `notes`; a plan none of whose layers the
// model has is an error ("none of the plan's layers (net.0, net.2) is a layer of deep-mlp: fc1, ...").
std::optional<PlanConfig> planConfigOf(const PrecisionPlan& plan, ModelKind model,
                                       std::vector<std::string>* notes, std::string* error);
// Reads a plan file and converts it as above. error: "FILE: cannot be read", "FILE: layers[2].mode: ...".
std::optional<PlanConfig> readPlanConfigFile(const std::string& path, ModelKind model,
                                             std::vector<std::string>* notes, std::string* error);

// `advise --json`: the run, the thresholds, every evidence entry, the scaler's advice and the plan.
void writeAdviceJson(JsonWriter& out, const PrecisionAdvice& advice);

}  // namespace ampscope
