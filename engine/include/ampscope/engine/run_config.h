// The configuration of one comparison run: which model, which precision modes side by side, and the
// optimizer / GradScaler / clipping / instrument settings. Plain C++ so the UI and CLI can build one.
// `validate()` names every bad field; nothing downstream trusts an unvalidated config.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ampscope {

// The six precision modes of the chapter (docs/architecture.md, "Precision modes"), then the FP8 and
// microscaling modes, emulated exactly on the CPU (docs/fp8-recipes.md).
enum class PrecisionMode {
  FP32,           // "fp32": everything in float32
  FP16AmpScaled,  // "fp16-amp-scaled": autocast FP16 + GradScaler, FP32 master weights
  FP16Amp,        // "fp16-amp": autocast FP16, no scaler (shows gradient underflow)
  BF16Amp,        // "bf16-amp": autocast BF16, FP32 master weights, no scaler
  FP16Pure,       // "fp16-pure": model.half(): parameters, grads, optimizer update all FP16
  BF16Pure,       // "bf16-pure": model.to(bfloat16)
  Fp8Delayed,     // "fp8-delayed": GEMM inputs E4M3, gradients E5M2, per-tensor scales from an amax history
  Fp8Current,     // "fp8-current": the same formats, each scale from the tensor's own amax
  MXFP8,          // "mxfp8": E4M3 in blocks of 32 sharing a power-of-two (E8M0) scale
  NVFP4,          // "nvfp4": E2M1 in blocks of 16 with an E4M3 block scale and an FP32 tensor scale
  // "plan": a per-layer precision plan (RunConfig::plan): each GEMM layer in the mode the plan gives it,
  // the other ops as plan.default runs them; always emulated exactly (docs/precision-plans.md).
  Plan,
};
// True for the four modes above that quantise GEMM inputs (FP32 master weights and optimizer).
bool isQuantizedMode(PrecisionMode mode);

enum class ModelKind { TinyMLP, DeepMLP, TinyTransformer };
enum class OptimizerKind { SGD, AdamW };
enum class ClipOrder {
  Off,
  AfterUnscale,   // the chapter's order: unscale_ -> clip_grad_norm_ -> step
  BeforeUnscale,  // deliberately wrong, for the lesson: clips the *scaled* gradients
};
// How a low-precision mode that has both a native LibTorch path and the exact emulation runs:
// Auto takes the faster on the running CPU (timed once per machine, capability_probe.cpp); Native and
// Emulated force one. Native where the LibTorch has no native path falls back to the emulation, and
// the capability says so (it is not a configuration error: the same lesson runs on every LibTorch).
enum class PrecisionPath { Auto, Native, Emulated };

const std::vector<PrecisionMode>& allPrecisionModes();
std::string modeName(PrecisionMode mode);            // "fp16-amp-scaled"
std::string modeLabel(PrecisionMode mode);           // "FP16 AMP + GradScaler" (English; UI translates)
std::optional<PrecisionMode> parseMode(const std::string& name);
std::string modelName(ModelKind model);              // "tiny-mlp", "deep-mlp", "tiny-transformer"
std::optional<ModelKind> parseModel(const std::string& name);
std::string optimizerName(OptimizerKind optimizer);  // "sgd", "adamw"
std::optional<OptimizerKind> parseOptimizer(const std::string& name);
std::string clipOrderName(ClipOrder order);          // "off", "after-unscale", "before-unscale"
std::optional<ClipOrder> parseClipOrder(const std::string& name);
std::string precisionPathName(PrecisionPath path);  // "auto", "native", "emulated"
std::optional<PrecisionPath> parsePrecisionPath(const std::string& name);

// torch.amp.GradScaler's constructor arguments, with its defaults.
struct ScalerConfig {
  double initScale = 65536.0;   // 2^16
  double growthFactor = 2.0;
  double backoffFactor = 0.5;
  int64_t growthInterval = 2000;
  bool enabled = true;
};

// The FP8 recipes' settings. Defaults as Transformer Engine's DelayedScaling (margin 0, a history of
// 1024 amaxes, amax_compute_algo "max").
struct Fp8Config {
  int64_t amaxHistoryLen = 1024;
  int64_t margin = 0;             // scale = (format max / amax) / 2^margin
  bool scaling = true;            // off: every per-tensor scale is 1 (block modes keep their block scales)
  int64_t spikeStep = 0;          // 0 = off; else this step's input batch is multiplied by spikeFactor
  double spikeFactor = 1000.0;
  // 1 = off; else feature 0 of the float inputs (MLPs) and of the embedding outputs (Transformer) is
  // multiplied by it on every step, in every mode: an outlier feature, as LLM activations have them.
  double outlierFactor = 1.0;
};

// The "plan" lane's per-layer modes (docs/precision-plans.md). A plan names GEMM layers (linear and
// matmul ops: planLayerNames) and gives each a mode of planLayerModes(); a layer it does not name, and
// every other op (GELU, softmax, layer norm, the loss), runs as `defaultMode` runs it. The lane trains
// with a GradScaler when any of its modes is fp16-amp-scaled.
struct PlanConfig {
  PrecisionMode defaultMode = PrecisionMode::FP32;                 // "plan.default"
  std::vector<std::pair<std::string, PrecisionMode>> layers;       // "plan.layers": "fc1=fp32,fc5=bf16-amp"
};
// The modes a plan may give a layer (and its default): those with FP32 master weights and optimizer,
// so that layers can differ: fp32, the AMP modes and the quantised modes (not the pure modes, which
// change the dtype of every parameter and of the optimizer, nor "plan").
const std::vector<PrecisionMode>& planLayerModes();
// The GEMM layers of a model, in the order a forward pass runs them: the names its ops carry
// ("fc1" ... for the MLPs; "block0.attn.qkv", "block0.attn.scores", ..., "head" for the Transformer).
std::vector<std::string> planLayerNames(ModelKind model);
// "fc1=fp32,fc5=bf16-amp" (the order kept; empty for no layers).
std::string planLayersText(const std::vector<std::pair<std::string, PrecisionMode>>& layers);
// Parses that text: each item "LAYER=MODE", the mode one of planLayerModes(), each layer once (the
// layer names are checked against a model by validate()). Error: "item 2 ('fc2:fp32'): expected
// LAYER=MODE". Spaces around items are allowed.
std::optional<std::vector<std::pair<std::string, PrecisionMode>>> parsePlanLayers(const std::string& text,
                                                                                std::string* error);
// The mode a plan gives `layer` (its default where it does not name it).
PrecisionMode planModeOf(const PlanConfig& plan, const std::string& layer);
// Every mode the plan uses: its default and its layers' (each once, in that order).
std::vector<PrecisionMode> planModesUsed(const PlanConfig& plan);

struct RunConfig {
  ModelKind model = ModelKind::TinyMLP;
  std::vector<PrecisionMode> modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled,
                                      PrecisionMode::BF16Amp};
  OptimizerKind optimizer = OptimizerKind::AdamW;
  double lr = 1e-3;
  double momentum = 0.9;        // SGD only
  double weightDecay = 0.01;    // AdamW's default
  double adamEps = 1e-8;        // AdamW's default
  int64_t batchSize = 32;
  uint64_t seed = 0;
  int64_t steps = 500;          // how many steps a run does before it stops by itself
  double lossWeight = 1.0;      // the loss is multiplied by this before backward (auxiliary-loss style)
  double initGain = 1.0;        // every initial parameter is multiplied by this (1 = PyTorch's init as is)
  ScalerConfig scaler;
  bool scalerForPureFp16 = false;  // fp16-pure may use a GradScaler too ("optional" in the design)
  ClipOrder clipOrder = ClipOrder::Off;
  double clipMaxNorm = 1.0;
  int64_t instrumentEvery = 10;    // histograms/underflow counts every N steps (1 = every step)
  // On instrumented steps the FP32 lane's gradients and activation gradients also record what rounding
  // them into each format would cost (rounding_cost.h: SQNR, values changed, flushed, ...), as the probe's
  // rounding_cost=True does: the advice's SQNR and FP8 what-if columns for the engine's own models.
  bool roundingCost = false;
  int threadsPerMode = 1;          // intra-op threads the training thread uses
  PrecisionPath precisionPath = PrecisionPath::Auto;
  Fp8Config fp8;
  PlanConfig plan;  // trained where `modes` holds PrecisionMode::Plan
};

// A preset per model: the chapter's TinyMLP(128,512,10); the deep MLP whose defaults make FP16 without
// a scaler underflow (loss weight 1e-5, AdamW eps 1e-12); the tiny character-LM Transformer.
RunConfig presetFor(ModelKind model);

struct ConfigError {
  ConfigError() = default;
  ConfigError(std::string fieldKey, std::string why) : field(std::move(fieldKey)), message(std::move(why)) {}
  std::string field;    // the field's full key in the schema (config_schema.h): "lr", "scaler.growth-factor"
  std::string message;  // why, in English
  // The message as a template and its arguments, so that a user interface can translate it: message is
  // text with %1, %2 ... replaced by args. The templates are config_schema.cpp's
  // QT_TRANSLATE_NOOP("ConfigSchema", ...) strings, which the zh_CN catalogue translates. Empty where
  // a message has no template.
  std::string text;
  std::vector<std::string> args;
};
// Every field within its type and bounds (the schema's table), then the checks across fields.
std::vector<ConfigError> validate(const RunConfig& config);

// Whether `mode` trains with a GradScaler under `config`: fp16-amp-scaled always, fp16-pure when
// scaler-for-pure-fp16 asks for one, the plan when one of its modes is fp16-amp-scaled. (scaler.enabled = false keeps the scaler but makes it a no-op.)
bool usesGradScaler(const RunConfig& config, PrecisionMode mode);

}  // namespace ampscope
