#include "ampscope/engine/config_schema.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <set>
#include <system_error>

#include "ampscope/engine/number_text.h"
#include "ampscope/engine/python_literal.h"

// The help lines are user-visible: the run panel shows them translated under the context "ConfigSchema".
// The engine has no Qt, so this marker only returns its text; lupdate, which reads this file too
// (tests/ui/translation_check.cmake), recognises the name and puts each line into the catalogue.
#ifndef QT_TRANSLATE_NOOP
#define QT_TRANSLATE_NOOP(context, text) text
#endif

namespace ampscope {
namespace {

// Bounds shared by several rows. Reals that reach LibTorch as float32 scalars (lr, eps, the scale,
// max_norm ...) stay far below FLT_MAX (3.4e38), which LibTorch refuses to convert; the seed stays
// within 2^53 - 1 so that a JSON number holds it exactly.
constexpr double kMaxSeed = 9007199254740991.0;  // 2^53 - 1
constexpr double kLargeReal = 1e30;


std::vector<std::string> modelNames() {
  std::vector<std::string> names;
  for (ModelKind kind : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer})
    names.push_back(modelName(kind));
  return names;
}
std::vector<std::string> optimizerNames() {
  return {optimizerName(OptimizerKind::SGD), optimizerName(OptimizerKind::AdamW)};
}
std::vector<std::string> clipOrderNames() {
  std::vector<std::string> names;
  for (ClipOrder order : {ClipOrder::Off, ClipOrder::AfterUnscale, ClipOrder::BeforeUnscale})
    names.push_back(clipOrderName(order));
  return names;
}
std::vector<std::string> precisionPathNames() {
  std::vector<std::string> names;
  for (PrecisionPath path : {PrecisionPath::Auto, PrecisionPath::Native, PrecisionPath::Emulated})
    names.push_back(precisionPathName(path));
  return names;
}
std::vector<std::string> planModeNames() {
  std::vector<std::string> names;
  for (PrecisionMode mode : planLayerModes()) names.push_back(modeName(mode));
  return names;
}
std::vector<std::string> modeNames() {
  std::vector<std::string> names;
  for (PrecisionMode mode : allPrecisionModes()) names.push_back(modeName(mode));
  return names;
}

ConfigAccess real(double (*get)(const RunConfig&), void (*set)(RunConfig&, double)) {
  ConfigAccess a;
  a.getReal = get;
  a.setReal = set;
  return a;
}
ConfigAccess integer(int64_t (*get)(const RunConfig&), void (*set)(RunConfig&, int64_t)) {
  ConfigAccess a;
  a.getInteger = get;
  a.setInteger = set;
  return a;
}
ConfigAccess toggle(bool (*get)(const RunConfig&), void (*set)(RunConfig&, bool)) {
  ConfigAccess a;
  a.getSwitch = get;
  a.setSwitch = set;
  return a;
}
ConfigAccess choice(std::string (*get)(const RunConfig&), bool (*set)(RunConfig&, std::string_view),
                    std::vector<std::string> (*names)()) {
  ConfigAccess a;
  a.getName = get;
  a.setName = set;
  a.names = names;
  return a;
}

std::vector<ConfigField> makeTable() {
  using F = FieldType;
  std::vector<ConfigField> t;
  // key, flag, old flag, python name, type, unit, min, max, min excl., max excl., value name, help, group
  t.push_back({"model", "--model", "", "model", F::Choice, "", 0, 0, false, false, "NAME",
               QT_TRANSLATE_NOOP("ConfigSchema", "The model to train; choosing one loads its preset first"), "model",
               choice([](const RunConfig& c) { return modelName(c.model); },
                      [](RunConfig& c, std::string_view v) {
                        const auto m = parseModel(std::string(v));
                        if (m) c.model = *m;
                        return m.has_value();
                      },
                      modelNames)});
  ConfigField modes{"modes", "--modes", "", "modes", F::ModeList, "", 0, 0, false, false, "LIST",
                    QT_TRANSLATE_NOOP("ConfigSchema", "The precision modes to compare side by side"), "model", {}};
  modes.access.names = modeNames;
  t.push_back(modes);
  t.push_back({"optimizer", "--optimizer", "", "optimizer", F::Choice, "", 0, 0, false, false, "NAME",
               QT_TRANSLATE_NOOP("ConfigSchema", "The optimizer"), "training",
               choice([](const RunConfig& c) { return optimizerName(c.optimizer); },
                      [](RunConfig& c, std::string_view v) {
                        const auto o = parseOptimizer(std::string(v));
                        if (o) c.optimizer = *o;
                        return o.has_value();
                      },
                      optimizerNames)});
  t.push_back({"lr", "--lr", "", "lr", F::Real, "", 0, 1000, true, false, "X", QT_TRANSLATE_NOOP("ConfigSchema", "Learning rate"), "training",
               real([](const RunConfig& c) { return c.lr; }, [](RunConfig& c, double v) { c.lr = v; })});
  t.push_back({"momentum", "--momentum", "", "momentum", F::Real, "", 0, 1, false, true, "X",
               QT_TRANSLATE_NOOP("ConfigSchema", "SGD's momentum (SGD only)"), "training",
               real([](const RunConfig& c) { return c.momentum; },
                    [](RunConfig& c, double v) { c.momentum = v; })});
  t.push_back({"weight-decay", "--weight-decay", "", "weight_decay", F::Real, "", 0, 1000, false, false, "X",
               QT_TRANSLATE_NOOP("ConfigSchema", "AdamW's decoupled weight decay"), "training",
               real([](const RunConfig& c) { return c.weightDecay; },
                    [](RunConfig& c, double v) { c.weightDecay = v; })});
  t.push_back({"adam-eps", "--adam-eps", "", "adam_eps", F::Real, "", 0, 1, true, false, "X",
               QT_TRANSLATE_NOOP("ConfigSchema", "AdamW's eps; fp16-pure stores it in FP16 too, where 1e-8 rounds to 0 and 1e-4 trains"),
               "training",
               real([](const RunConfig& c) { return c.adamEps; }, [](RunConfig& c, double v) { c.adamEps = v; })});
  t.push_back({"batch", "--batch", "", "batch_size", F::Integer, "examples", 1, 65536, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema", "Examples per step"), "training",
               integer([](const RunConfig& c) { return c.batchSize; },
                       [](RunConfig& c, int64_t v) { c.batchSize = v; })});
  t.push_back({"seed", "--seed", "", "seed", F::Integer, "", 0, kMaxSeed, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema", "Initial weights and batches: the same seed gives the same run"), "training",
               integer(
                   [](const RunConfig& c) {
                     // A seed beyond int64 shows as int64's maximum, which the bounds refuse.
                     return c.seed > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                                      : static_cast<int64_t>(c.seed);
                   },
                   [](RunConfig& c, int64_t v) { c.seed = static_cast<uint64_t>(v); })});
  t.push_back({"steps", "--steps", "", "steps", F::Integer, "steps", 1, 1e8, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema", "Training steps; the run stops by itself after this many"), "training",
               integer([](const RunConfig& c) { return c.steps; }, [](RunConfig& c, int64_t v) { c.steps = v; })});
  t.push_back({"loss-weight", "--loss-weight", "", "loss_weight", F::Real, "", 0, 1000, true, false, "X",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "The loss is multiplied by this before backward, as auxiliary losses are; small "
                                 "weights push FP16 gradients below 2^-24, where they flush to zero"),
               "training",
               real([](const RunConfig& c) { return c.lossWeight; },
                    [](RunConfig& c, double v) { c.lossWeight = v; })});
  t.push_back({"init-gain", "--init-gain", "", "init_gain", F::Real, "", 0, 1000, true, false, "X",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "Every initial weight and bias is multiplied by this; larger weights have a "
                                 "coarser FP16 spacing, so model.half() loses more small updates"),
               "training",
               real([](const RunConfig& c) { return c.initGain; }, [](RunConfig& c, double v) { c.initGain = v; })});
  t.push_back({"scaler.init-scale", "--init-scale", "", "init_scale", F::Real, "", 0, kLargeReal, true, false,
               "X", QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler's initial loss scale (PyTorch's default is 65536 = 2^16)"), "scaler",
               real([](const RunConfig& c) { return c.scaler.initScale; },
                    [](RunConfig& c, double v) { c.scaler.initScale = v; })});
  t.push_back({"scaler.growth-factor", "--growth-factor", "", "growth_factor", F::Real, "", 1, 1000, true, false,
               "X", QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler's scale multiplier after growth-interval clean steps"), "scaler",
               real([](const RunConfig& c) { return c.scaler.growthFactor; },
                    [](RunConfig& c, double v) { c.scaler.growthFactor = v; })});
  t.push_back({"scaler.backoff-factor", "--backoff-factor", "", "backoff_factor", F::Real, "", 0, 1, true, true,
               "X", QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler's scale multiplier when the gradients hold inf or NaN"), "scaler",
               real([](const RunConfig& c) { return c.scaler.backoffFactor; },
                    [](RunConfig& c, double v) { c.scaler.backoffFactor = v; })});
  t.push_back({"scaler.growth-interval", "--growth-interval", "", "growth_interval", F::Integer, "steps", 1, 1e9,
               false, false, "N", QT_TRANSLATE_NOOP("ConfigSchema", "Clean steps before GradScaler grows the scale"), "scaler",
               integer([](const RunConfig& c) { return c.scaler.growthInterval; },
                       [](RunConfig& c, int64_t v) { c.scaler.growthInterval = v; })});
  t.push_back({"scaler.enabled", "--scaler", "", "enabled", F::Switch, "", 0, 0, false, false, "",
               QT_TRANSLATE_NOOP("ConfigSchema", "GradScaler on; off, it passes the loss and the step through unchanged"), "scaler",
               toggle([](const RunConfig& c) { return c.scaler.enabled; },
                      [](RunConfig& c, bool v) { c.scaler.enabled = v; })});
  t.push_back({"scaler-for-pure-fp16", "--scaler-for-pure-fp16", "--scaler-for-fp16-pure", "scaler_for_pure_fp16",
               F::Switch, "", 0, 0, false, false, "", QT_TRANSLATE_NOOP("ConfigSchema", "Give fp16-pure (model.half()) a GradScaler too"), "scaler",
               toggle([](const RunConfig& c) { return c.scalerForPureFp16; },
                      [](RunConfig& c, bool v) { c.scalerForPureFp16 = v; })});
  t.push_back({"clip.order", "--clip-order", "", "clip_order", F::Choice, "", 0, 0, false, false, "ORDER",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "When clip_grad_norm_ runs: after unscale_ (correct) or before it (clips the "
                                 "scaled gradients, the lesson's mistake)"),
               "clip",
               choice([](const RunConfig& c) { return clipOrderName(c.clipOrder); },
                      [](RunConfig& c, std::string_view v) {
                        const auto o = parseClipOrder(std::string(v));
                        if (o) c.clipOrder = *o;
                        return o.has_value();
                      },
                      clipOrderNames)});
  t.push_back({"clip.max-norm", "--clip", "", "clip_max_norm", F::Real, "", 0, kLargeReal, true, false, "MAXNORM",
               QT_TRANSLATE_NOOP("ConfigSchema", "clip_grad_norm_'s max_norm"), "clip",
               real([](const RunConfig& c) { return c.clipMaxNorm; },
                    [](RunConfig& c, double v) { c.clipMaxNorm = v; })});
  t.push_back({"instrument-every", "--instrument-every", "", "", F::Integer, "steps", 1, 1e6, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "Histograms and rounding counts every N steps and at step 1 (1 = every step; "
                                 "larger keeps runs fast)"),
               "run",
               integer([](const RunConfig& c) { return c.instrumentEvery; },
                       [](RunConfig& c, int64_t v) { c.instrumentEvery = v; })});
  t.push_back({"rounding-cost", "--rounding-cost", "", "", F::Switch, "", 0, 0, false, false, "",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "On instrumented steps, record what rounding the FP32 gradients and activation "
                                 "gradients into FP16, BF16, FP8, MXFP8 and NVFP4 would cost (SQNR, values "
                                 "changed): the precision advice's SQNR and FP8 columns"),
               "run",
               toggle([](const RunConfig& c) { return c.roundingCost; },
                      [](RunConfig& c, bool v) { c.roundingCost = v; })});
  t.push_back({"threads", "--threads", "", "threads", F::Integer, "threads", 1, 256, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema", "Intra-op threads of each mode's training thread"), "run",
               integer([](const RunConfig& c) { return static_cast<int64_t>(c.threadsPerMode); },
                       [](RunConfig& c, int64_t v) { c.threadsPerMode = static_cast<int>(v); })});
  t.push_back({"precision-path", "--precision-path", "", "", F::Choice, "", 0, 0, false, false, "PATH",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "How BF16/FP16 modes run where LibTorch has native kernels: auto (the faster on "
                                 "this CPU, timed once), native, or emulated (FP32 arithmetic rounded exactly)"),
               "run",
               choice([](const RunConfig& c) { return precisionPathName(c.precisionPath); },
                      [](RunConfig& c, std::string_view v) {
                        const auto p = parsePrecisionPath(std::string(v));
                        if (p) c.precisionPath = *p;
                        return p.has_value();
                      },
                      precisionPathNames)});
  t.push_back({"fp8.amax-history-len", "--amax-history-len", "", "amax_history_len", F::Integer, "steps", 1, 1e6,
               false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "fp8-delayed: how many steps' amaxes the scale looks back over (Transformer "
                                 "Engine's default is 1024)"),
               "fp8",
               integer([](const RunConfig& c) { return c.fp8.amaxHistoryLen; },
                       [](RunConfig& c, int64_t v) { c.fp8.amaxHistoryLen = v; })});
  t.push_back({"fp8.margin", "--fp8-margin", "", "fp8_margin", F::Integer, "", 0, 64, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema", "FP8 per-tensor scales: scale = format max / amax / 2^margin"),
               "fp8",
               integer([](const RunConfig& c) { return c.fp8.margin; },
                       [](RunConfig& c, int64_t v) { c.fp8.margin = v; })});
  t.push_back({"fp8.scaling", "--fp8-scaling", "", "fp8_scaling", F::Switch, "", 0, 0, false, false, "",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "FP8 per-tensor scaling on; off, every scale is 1 and values meet the format's "
                                 "fixed range as they are"),
               "fp8",
               toggle([](const RunConfig& c) { return c.fp8.scaling; },
                      [](RunConfig& c, bool v) { c.fp8.scaling = v; })});
  t.push_back({"fp8.spike-step", "--spike-step", "", "spike_step", F::Integer, "steps", 0, 1e8, false, false, "N",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "Multiply this step's input batch by the spike factor (0 = never): an amax spike"),
               "fp8",
               integer([](const RunConfig& c) { return c.fp8.spikeStep; },
                       [](RunConfig& c, int64_t v) { c.fp8.spikeStep = v; })});
  t.push_back({"fp8.spike-factor", "--spike-factor", "", "spike_factor", F::Real, "", 0, 1e30, true, false, "X",
               QT_TRANSLATE_NOOP("ConfigSchema", "The factor the spike step's inputs are multiplied by"), "fp8",
               real([](const RunConfig& c) { return c.fp8.spikeFactor; },
                    [](RunConfig& c, double v) { c.fp8.spikeFactor = v; })});
  t.push_back({"fp8.outlier-factor", "--outlier-factor", "", "outlier_factor", F::Real, "", 1, kLargeReal, false,
               false, "X",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "The first linear layer gets input feature 0 times this and weight column 0 "
                                 "divided by it, every step, every mode (1 = off): an outlier feature"),
               "fp8",
               real([](const RunConfig& c) { return c.fp8.outlierFactor; },
                    [](RunConfig& c, double v) { c.fp8.outlierFactor = v; })});
  t.push_back({"plan.default", "--plan-default", "", "plan_default", F::Choice, "", 0, 0, false, false, "MODE",
               QT_TRANSLATE_NOOP("ConfigSchema",
                                 "The plan lane: the mode of every layer the plan does not name, and how its other "
                                 "ops (GELU, softmax, layer norm, the loss) run"),
               "plan",
               choice([](const RunConfig& c) { return modeName(c.plan.defaultMode); },
                      [](RunConfig& c, std::string_view v) {
                        for (PrecisionMode mode : planLayerModes()) {
                          if (modeName(mode) == v) {
                            c.plan.defaultMode = mode;
                            return true;
                          }
                        }
                        return false;
                      },
                      planModeNames)});
  ConfigField planLayers{"plan.layers", "--plan-layers", "", "plan_layers", F::LayerModes, "", 0, 0, false, false,
                         "LIST",
                         QT_TRANSLATE_NOOP("ConfigSchema",
                                           "The plan lane's layers in their own modes, LAYER=MODE separated by commas "
                                           "(fc1=fp32,fc5=bf16-amp)"),
                         "plan", {}};
  planLayers.access.names = planModeNames;
  t.push_back(planLayers);
  for (ConfigField& field : t) {
    // Added with the plan lane: configs without a plan keep their bytes.
    if (field.key.substr(0, 5) == "plan." || field.key == "rounding-cost")
      field.mayBeAbsent = field.writtenOnlyWhenSet = true;
    if (field.key.substr(0, 4) == "fp8." || field.key == "precision-path" || field.key == "init-gain")
      field.mayBeAbsent = true;
    // Added after sessions of quantised runs were written: those keep their bytes while it is off.
    if (field.key == "fp8.outlier-factor") field.writtenOnlyWhenSet = true;
  }
  return t;
}

std::string boundText(const ConfigField& field, double value) {
  if (field.type == FieldType::Integer) return std::to_string(static_cast<int64_t>(value));
  return numberText(value);
}

// Why `value` is outside the field's bounds, or nothing. `got` is the value as the user wrote it.
std::optional<ConfigError> boundsProblem(const ConfigField& field, double value, const std::string& got) {
  const std::string key(field.key);
  if (std::isnan(value) || (field.type == FieldType::Real && !std::isfinite(value))) {
    return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "must be a finite number in %1 (got %2)"), {fieldBoundsText(field), got});
  }
  if (field.minExclusive ? !(value > field.min) : !(value >= field.min)) {
    return configError(key, field.minExclusive ? QT_TRANSLATE_NOOP("ConfigSchema", "must be > %1 (got %2)")
                                               : QT_TRANSLATE_NOOP("ConfigSchema", "must be >= %1 (got %2)"),
                       {boundText(field, field.min), got});
  }
  if (field.maxExclusive ? !(value < field.max) : !(value <= field.max)) {
    return configError(key, field.maxExclusive ? QT_TRANSLATE_NOOP("ConfigSchema", "must be < %1 (got %2)")
                                               : QT_TRANSLATE_NOOP("ConfigSchema", "must be <= %1 (got %2)"),
                       {boundText(field, field.max), got});
  }
  return std::nullopt;
}

std::string joined(const std::vector<std::string>& names, const char* separator) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : separator) + name;
  return text;
}

// Reads a mode list; the error's field is "modes" or "modes[i]".
std::optional<ConfigError> parseModeList(const std::vector<std::string>& names,
                                         std::vector<PrecisionMode>& modes) {
  if (names.empty()) return configError("modes", QT_TRANSLATE_NOOP("ConfigSchema", "at least one precision mode is needed"));
  std::vector<PrecisionMode> out;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string at = "modes[" + std::to_string(i) + "]";
    const auto mode = parseMode(names[i]);
    if (!mode) {
      return configError(at, QT_TRANSLATE_NOOP("ConfigSchema", "unknown mode '%1' (known: %2)"), {names[i], joined(modeNames(), ", ")});
    }
    for (PrecisionMode seen : out) {
      if (seen == *mode) return configError(at, QT_TRANSLATE_NOOP("ConfigSchema", "mode %1 is listed twice"), {names[i]});
    }
    out.push_back(*mode);
  }
  modes = std::move(out);
  return std::nullopt;
}

std::optional<ConfigError> setChoice(RunConfig& config, const ConfigField& field, const std::string& name) {
  if (!field.access.setName(config, name)) {
    return configError(std::string(field.key), QT_TRANSLATE_NOOP("ConfigSchema", "unknown value '%1' (known: %2)"),
                       {name, joined(field.access.names(), ", ")});
  }
  return std::nullopt;
}

std::optional<ConfigError> setReal(RunConfig& config, const ConfigField& field, double value,
                                   const std::string& got) {
  if (auto problem = boundsProblem(field, value, got)) return problem;
  field.access.setReal(config, value);
  return std::nullopt;
}

std::optional<ConfigError> setInteger(RunConfig& config, const ConfigField& field, int64_t value) {
  if (auto problem = boundsProblem(field, static_cast<double>(value), std::to_string(value))) return problem;
  field.access.setInteger(config, value);
  return std::nullopt;
}

// The models' sizes: parameters and activation elements one example passes through (forward outputs
// whose gradients backward needs). The parameter counts are the engine's models' (a test compares them
// with the built models); the activation counts are estimates.
struct ModelSize {
  int64_t parameters;
  int64_t activationsPerExample;
  int64_t exampleBytes;
};

ModelSize modelSize(ModelKind model) {
  switch (model) {
    case ModelKind::TinyMLP:
      // Linear(128, 512), GELU, Linear(512, 10): the input, 512 twice, 10 logits; float inputs, int64 class.
      return {128 * 512 + 512 + 512 * 10 + 10, 128 + 2 * 512 + 10, 128 * 4 + 8};
    case ModelKind::DeepMLP:
      // 128 -> 256 x4 -> 10 with GELU between.
      return {128 * 256 + 256 + 3 * (256 * 256 + 256) + 256 * 10 + 10, 128 + 4 * 2 * 256 + 10, 128 * 4 + 8};
    case ModelKind::TinyTransformer: {
      // vocab 13, context 32, width 32, 2 heads, 2 blocks, MLP 128; per token: the embedding, per block
      // two layer norms, q/k/v, the attention scores before and after softmax, its output and projection,
      // the MLP's two layers and GELU, two residual sums; then the final norm and the logits. Tokens and
      // targets are int64.
      const int64_t vocab = 13, context = 32, width = 32, heads = 2, blocks = 2, hidden = 128;
      const int64_t block = 2 * 2 * width + (width * 3 * width + 3 * width) + (width * width + width) +
                            (width * hidden + hidden) + (hidden * width + width);
      const int64_t parameters =
          vocab * width + context * width + blocks * block + 2 * width + width * vocab + vocab;
      const int64_t perToken =
          width + blocks * (2 * width + 3 * width + 2 * heads * context + 2 * width + 2 * hidden + width + 2 * width) +
          width + vocab;
      return {parameters, context * perToken, context * 8 * 2};
    }
  }
  return {0, 0, 0};
}

std::string gigabytes(double bytes) { return numberText(std::round(bytes / 1e8) / 10) + " GB"; }

}  // namespace

StepMemoryEstimate stepMemoryEstimate(const RunConfig& config) {
  const ModelSize size = modelSize(config.model);
  const double modes = static_cast<double>(std::max<size_t>(config.modes.size(), 1));
  const double fixed = modes * 5.0 * 4.0 * static_cast<double>(size.parameters);
  const double perExample =
      8.0 * static_cast<double>(size.activationsPerExample) + static_cast<double>(size.exampleBytes);
  StepMemoryEstimate estimate;
  estimate.parameters = size.parameters;
  estimate.exampleBytes = size.exampleBytes;
  estimate.bytes = fixed + perExample * static_cast<double>(config.batchSize);
  estimate.maxBatch = static_cast<int64_t>(
      std::max(0.0, std::floor((static_cast<double>(kStepMemoryLimitBytes) - fixed) / perExample)));
  return estimate;
}

namespace {

std::optional<ConfigError> stepMemoryProblem(const RunConfig& config) {
  const StepMemoryEstimate estimate = stepMemoryEstimate(config);
  if (estimate.bytes <= static_cast<double>(kStepMemoryLimitBytes)) return std::nullopt;
  return configError("batch",
                     QT_TRANSLATE_NOOP("ConfigSchema", "one step would need about %1 (%2, %3 parameters, %4 mode(s), batch "
                                       "%5), more than the %6 a step may use; at most batch %7 fits"),
                     {gigabytes(estimate.bytes), modelName(config.model), std::to_string(estimate.parameters),
                      std::to_string(config.modes.size()), std::to_string(config.batchSize),
                      gigabytes(static_cast<double>(kStepMemoryLimitBytes)), std::to_string(estimate.maxBatch)});
}

}  // namespace

const std::vector<ConfigField>& configFields() {
  static const std::vector<ConfigField> kFields = makeTable();
  return kFields;
}

const ConfigField* findConfigField(std::string_view key) {
  for (const ConfigField& field : configFields()) {
    if (field.key == key) return &field;
  }
  return nullptr;
}

const ConfigField* findConfigFlag(std::string_view flag, bool* deprecated, bool* negated) {
  if (deprecated) *deprecated = false;
  if (negated) *negated = false;
  for (const ConfigField& field : configFields()) {
    if (flag == field.flag) return &field;
    if (!field.oldFlag.empty() && flag == field.oldFlag) {
      if (deprecated) *deprecated = true;
      return &field;
    }
  }
  // "--no-X" for a switch "--X" (or its old spelling).
  if (flag.substr(0, 5) != "--no-") return nullptr;
  const std::string positive = "--" + std::string(flag.substr(5));
  for (const ConfigField& field : configFields()) {
    if (field.type != FieldType::Switch) continue;
    const bool isNew = positive == field.flag;
    const bool isOld = !field.oldFlag.empty() && positive == field.oldFlag;
    if (isNew || isOld) {
      if (deprecated) *deprecated = isOld;
      if (negated) *negated = true;
      return &field;
    }
  }
  return nullptr;
}

std::vector<std::string> fieldChoices(const ConfigField& field) {
  return field.access.names ? field.access.names() : std::vector<std::string>();
}

std::string fieldBoundsText(const ConfigField& field) {
  if (field.type != FieldType::Integer && field.type != FieldType::Real) return std::string();
  return std::string(field.minExclusive ? "(" : "[") + boundText(field, field.min) + ", " +
         boundText(field, field.max) + (field.maxExclusive ? ")" : "]");
}

std::string fieldText(const RunConfig& config, const ConfigField& field) {
  switch (field.type) {
    case FieldType::Choice: return field.access.getName(config);
    case FieldType::ModeList: {
      std::vector<std::string> names;
      for (PrecisionMode mode : config.modes) names.push_back(modeName(mode));
      return joined(names, ",");
    }
    case FieldType::Integer: return std::to_string(field.access.getInteger(config));
    case FieldType::Real: return numberText(field.access.getReal(config));
    case FieldType::Switch: return field.access.getSwitch(config) ? "true" : "false";
    case FieldType::LayerModes: return planLayersText(config.plan.layers);
  }
  return std::string();
}

std::optional<ConfigError> setFieldText(RunConfig& config, const ConfigField& field, std::string_view text) {
  const std::string got(text);
  const std::string key(field.key);
  switch (field.type) {
    case FieldType::Choice: return setChoice(config, field, got);
    case FieldType::ModeList: {
      std::vector<std::string> names;
      std::size_t start = 0;
      while (!text.empty()) {
        const std::size_t comma = text.find(',', start);
        names.emplace_back(text.substr(start, comma == std::string_view::npos ? comma : comma - start));
        if (comma == std::string_view::npos) break;
        start = comma + 1;
      }
      auto error = parseModeList(names, config.modes);
      if (error) error->field = "modes";  // the text has no indices
      return error;
    }
    case FieldType::Integer: {
      int64_t value = 0;
      const auto result = std::from_chars(got.data(), got.data() + got.size(), value);
      if (got.empty() || result.ptr != got.data() + got.size()) {
        return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "not an integer (got '%1')"), {got});
      }
      if (result.ec == std::errc::result_out_of_range) {
        return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "must be in %1 (got %2)"), {fieldBoundsText(field), got});
      }
      return setInteger(config, field, value);
    }
    case FieldType::Real: {
      const auto value = parseNumberText(got);
      if (!value) return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "not a number (got '%1')"), {got});
      return setReal(config, field, *value, got);
    }
    case FieldType::Switch:
      if (got == "true" || got == "false") {
        field.access.setSwitch(config, got == "true");
        return std::nullopt;
      }
      return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "expected true or false (got '%1')"), {got});
    case FieldType::LayerModes: {
      std::string why;
      auto layers = parsePlanLayers(got, &why);
      if (!layers) return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "%1"), {why});
      config.plan.layers = std::move(*layers);
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<ConfigError> checkField(const RunConfig& config, const ConfigField& field) {
  const std::string key(field.key);
  switch (field.type) {
    case FieldType::Choice: {
      const std::string name = field.access.getName(config);
      for (const auto& known : field.access.names()) {
        if (known == name) return std::nullopt;
      }
      return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "unknown value"));
    }
    case FieldType::ModeList: {
      std::vector<std::string> names;
      for (PrecisionMode mode : config.modes) names.push_back(modeName(mode));
      std::vector<PrecisionMode> scratch;
      auto error = parseModeList(names, scratch);
      if (error) error->field = key;
      return error;
    }
    case FieldType::Integer: {
      const int64_t value = field.access.getInteger(config);
      if (auto problem = boundsProblem(field, static_cast<double>(value), std::to_string(value))) return problem;
      // The one bound that depends on other fields: the batch must fit the model's step in memory.
      if (field.key == "batch") {
        if (auto problem = stepMemoryProblem(config)) {
          problem->field = key;
          return problem;
        }
      }
      return std::nullopt;
    }
    case FieldType::Real: {
      const double value = field.access.getReal(config);
      if (auto problem = boundsProblem(field, value, numberText(value))) return problem;
      return std::nullopt;
    }
    case FieldType::Switch: return std::nullopt;
    case FieldType::LayerModes: {
      // The one field whose values depend on another: a plan names the model's GEMM layers.
      const std::vector<std::string> known = planLayerNames(config.model);
      std::string why;
      if (!parsePlanLayers(planLayersText(config.plan.layers), &why)) {
        return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "%1"), {why});
      }
      for (const auto& entry : config.plan.layers) {
        if (std::find(known.begin(), known.end(), entry.first) == known.end()) {
          return configError(key, QT_TRANSLATE_NOOP("ConfigSchema", "%1 has no layer '%2' (its layers: %3)"),
                             {modelName(config.model), entry.first, joined(known, ", ")});
        }
      }
      return std::nullopt;
    }
  }
  return std::nullopt;
}

namespace {

// Fields added after AmpScope 0.1 wrote its first sessions (mayBeAbsent: precision-path, fp8.*,
// init-gain) read as their defaults when a file lacks them, and are written only when they matter: a quantised mode is
// configured or one of them differs from its default. Files of configs without them keep the bytes they
// had before the rows, so such a session still opens in 0.1 (which refuses keys it does not know).
bool writesLaterFields(const RunConfig& config) {
  for (PrecisionMode mode : config.modes) {
    if (isQuantizedMode(mode)) return true;
  }
  const RunConfig defaults;
  for (const ConfigField& field : configFields()) {
    if (field.mayBeAbsent && fieldText(config, field) != fieldText(defaults, field)) return true;
  }
  return false;
}

}  // namespace

void writeConfigJson(JsonWriter& out, const RunConfig& config) {
  out.beginObject();
  std::string_view open;  // the nested object being written ("scaler"), or empty
  const bool later = writesLaterFields(config);
  const RunConfig defaults;
  for (const ConfigField& field : configFields()) {
    if (field.mayBeAbsent && !later) continue;
    if (field.writtenOnlyWhenSet && fieldText(config, field) == fieldText(defaults, field)) continue;
    const std::size_t dot = field.key.find('.');
    const std::string_view parent = dot == std::string_view::npos ? std::string_view() : field.key.substr(0, dot);
    const std::string_view name = dot == std::string_view::npos ? field.key : field.key.substr(dot + 1);
    if (parent != open) {
      if (!open.empty()) out.endObject();
      if (!parent.empty()) out.key(parent).beginObject();
      open = parent;
    }
    out.key(name);
    switch (field.type) {
      case FieldType::Choice: out.value(field.access.getName(config)); break;
      case FieldType::ModeList:
        out.beginArray();
        for (PrecisionMode mode : config.modes) out.value(modeName(mode));
        out.endArray();
        break;
      case FieldType::Integer: out.value(static_cast<long long>(field.access.getInteger(config))); break;
      case FieldType::Real: out.value(field.access.getReal(config)); break;
      case FieldType::Switch: out.value(field.access.getSwitch(config)); break;
      case FieldType::LayerModes: out.value(planLayersText(config.plan.layers)); break;
    }
  }
  if (!open.empty()) out.endObject();
  out.endObject();
}

namespace {

// One member of a config object: `path` is the full key with the caller's prefix.
std::optional<ConfigError> readMember(const JsonValue& value, const ConfigField& field, RunConfig& config,
                                      const std::string& path) {
  auto expected = [&](const char* what) {
    return ConfigError{path, std::string("expected ") + what + " (got " + JsonValue::typeName(value.type()) + ")"};
  };
  auto prefixed = [&](std::optional<ConfigError> error) {
    if (error) error->field = path;
    return error;
  };
  switch (field.type) {
    case FieldType::Choice:
      if (!value.isString()) return expected("a string");
      return prefixed(setChoice(config, field, value.string()));
    case FieldType::ModeList: {
      if (!value.isArray()) return expected("an array of mode names");
      std::vector<std::string> names;
      for (std::size_t i = 0; i < value.items().size(); ++i) {
        const JsonValue& item = value.items()[i];
        if (!item.isString()) {
          return ConfigError{path + "[" + std::to_string(i) + "]",
                             std::string("expected a string (got ") + JsonValue::typeName(item.type()) + ")"};
        }
        names.push_back(item.string());
      }
      auto error = parseModeList(names, config.modes);
      // "modes[1]" becomes "config.modes[1]": the index stays.
      if (error) error->field = path + error->field.substr(field.key.size());
      return error;
    }
    case FieldType::Integer: {
      if (!value.isNumber()) return expected("a whole number");
      const auto whole = value.integer();
      if (!whole) {
        // 9.2e+18 is whole but not an integer literal; saying only "a whole number" would puzzle.
        return ConfigError{path, "expected a whole number in int64, written in digits without a fraction or an "
                                 "exponent (got " + value.string() + ")"};
      }
      return prefixed(setInteger(config, field, *whole));
    }
    case FieldType::Real:
      if (!value.isNumber()) return expected("a number");
      return prefixed(setReal(config, field, value.number(), value.string()));
    case FieldType::Switch:
      if (!value.isBool()) return expected("true or false");
      field.access.setSwitch(config, value.boolValue());
      return std::nullopt;
    case FieldType::LayerModes:
      if (!value.isString()) return expected("a string of LAYER=MODE items");
      return prefixed(setFieldText(config, field, value.string()));
  }
  return std::nullopt;
}

// The member names allowed in the object `parent` ("" = the top level): fields and nested objects.
std::vector<std::string> allowedMembers(std::string_view parent) {
  std::vector<std::string> names;
  for (const ConfigField& field : configFields()) {
    const std::size_t dot = field.key.find('.');
    std::string name;
    if (parent.empty()) {
      name = std::string(field.key.substr(0, dot));
    } else if (dot != std::string_view::npos && field.key.substr(0, dot) == parent) {
      name = std::string(field.key.substr(dot + 1));
    } else {
      continue;
    }
    if (names.empty() || names.back() != name) names.push_back(name);
  }
  return names;
}

void readObject(const JsonValue& object, std::string_view parent, RunConfig& config,
                const std::string& pathPrefix, std::vector<ConfigError>& errors) {
  const std::string parentKey = parent.empty() ? std::string() : std::string(parent) + ".";
  const std::vector<std::string> allowed = allowedMembers(parent);
  for (const auto& [name, value] : object.members()) {
    const std::string key = parentKey + name;
    const std::string path = pathPrefix + key;
    if (const ConfigField* field = findConfigField(key)) {
      if (auto error = readMember(value, *field, config, path)) errors.push_back(std::move(*error));
      continue;
    }
    const bool nested = parent.empty() && !allowedMembers(name).empty();
    if (!nested) {
      errors.push_back({path, "unknown field (allowed: " + joined(allowed, ", ") + ")"});
    } else if (!value.isObject()) {
      errors.push_back(
          {path, std::string("expected an object (got ") + JsonValue::typeName(value.type()) + ")"});
    } else {
      readObject(value, name, config, pathPrefix, errors);
    }
  }
}

}  // namespace

std::vector<ConfigError> readConfigJson(const JsonValue& object, RunConfig& config, bool requireAll,
                                        const std::string& pathPrefix) {
  std::vector<ConfigError> errors;
  if (!object.isObject()) {
    std::string where = pathPrefix;
    if (!where.empty() && where.back() == '.') where.pop_back();
    errors.push_back(
        {where, std::string("expected an object (got ") + JsonValue::typeName(object.type()) + ")"});
    return errors;
  }
  readObject(object, std::string_view(), config, pathPrefix, errors);
  if (requireAll) {
    for (const ConfigField& field : configFields()) {
      const std::size_t dot = field.key.find('.');
      const JsonValue* member = nullptr;
      if (dot == std::string_view::npos) {
        member = object.find(field.key);
      } else if (const JsonValue* parent = object.find(field.key.substr(0, dot)); parent && parent->isObject()) {
        member = parent->find(field.key.substr(dot + 1));
      } else if (parent) {
        continue;  // a parent of the wrong type is reported already
      }
      if (!member && !field.mayBeAbsent) errors.push_back({pathPrefix + std::string(field.key), "missing"});
    }
  }
  return errors;
}

std::string fieldPython(const RunConfig& config, const ConfigField& field) {
  switch (field.type) {
    case FieldType::Choice: return pyString(field.access.getName(config));
    case FieldType::ModeList: {
      std::string list = "[";
      for (std::size_t i = 0; i < config.modes.size(); ++i) {
        list += (i ? ", " : "") + pyString(modeName(config.modes[i]));
      }
      return list + "]";
    }
    case FieldType::Integer: return std::to_string(field.access.getInteger(config));
    case FieldType::Real: return pyFloat(field.access.getReal(config));
    case FieldType::Switch: return field.access.getSwitch(config) ? "True" : "False";
    case FieldType::LayerModes: {
      std::string dict = "{";
      for (std::size_t i = 0; i < config.plan.layers.size(); ++i) {
        dict += (i ? ", " : "") + pyString(config.plan.layers[i].first) + ": " +
                pyString(modeName(config.plan.layers[i].second));
      }
      return dict + "}";
    }
  }
  return std::string();
}

std::string pythonConfigDict(const RunConfig& config) {
  // The script's layout: its order and comments. The names and values come from the table.
  struct Line {
    const char* key;  // a field's key, "scaler" for the nested GradScaler dict, or "" for `literal`
    const char* comment;
    const char* literal;
  };
  static constexpr Line kLines[] = {
      {"model", "", ""},
      {"modes", "", ""},
      {"steps", "", ""},
      {"seed", "", ""},
      {"batch", "", ""},
      {"optimizer", "", ""},
      {"lr", "", ""},
      {"momentum", "SGD only", ""},
      {"weight-decay", "AdamW's decoupled weight decay", ""},
      {"", "AmpScope's SGD has none", "'sgd_weight_decay': 0.0"},
      {"adam-eps", "", ""},
      {"loss-weight", "loss * this before backward", ""},
      {"init-gain", "already applied to the exported initial parameters", ""},
      {"scaler", "", ""},
      {"scaler-for-pure-fp16", "", ""},
      {"clip.order", "", ""},
      {"clip.max-norm", "", ""},
      {"threads", "", ""},
      {"fp8.amax-history-len", "fp8-delayed", ""},
      {"fp8.margin", "", ""},
      {"fp8.scaling", "", ""},
      {"fp8.spike-step", "0 = never; every mode", ""},
      {"fp8.spike-factor", "", ""},
      {"fp8.outlier-factor", "1 = off; the first Linear's input feature 0 x it, weight column 0 / it", ""},
      {"plan.default", "the 'plan' mode: layers it does not name, and the other ops", ""},
      {"plan.layers", "the 'plan' mode: these layers in their own modes", ""},
  };
  const bool hasPlan =
      std::find(config.modes.begin(), config.modes.end(), PrecisionMode::Plan) != config.modes.end();
  std::string py;
  for (const Line& line : kLines) {
    const std::string_view key = line.key;
    // A script without the plan mode keeps the bytes it had before the plan existed.
    if (key.substr(0, 5) == "plan." && !hasPlan) continue;
    py += "    ";
    if (key.empty()) {
      py += line.literal;
    } else if (key == "scaler") {
      py += "'scaler': {";
      bool first = true;
      for (const ConfigField& field : configFields()) {
        if (field.key.substr(0, 7) != "scaler." || field.pythonName.empty()) continue;
        py += (first ? "" : ", ") + pyString(std::string(field.pythonName)) + ": " + fieldPython(config, field);
        first = false;
      }
      py += "}";
    } else {
      const ConfigField& field = *findConfigField(key);
      py += pyString(std::string(field.pythonName)) + ": " + fieldPython(config, field);
    }
    py += ",";
    if (*line.comment) py += std::string("  # ") + line.comment;
    py += "\n";
  }
  return py;
}

ConfigError configError(std::string field, const char* text, std::vector<std::string> args) {
  ConfigError e;
  e.field = std::move(field);
  e.text = text;
  // %1 ... %9, each replaced once per occurrence, left to right (an argument's own text is not scanned).
  for (const char* c = text; *c; ++c) {
    if (c[0] == '%' && c[1] >= '1' && c[1] <= '9' && static_cast<std::size_t>(c[1] - '1') < args.size()) {
      e.message += args[static_cast<std::size_t>(c[1] - '1')];
      ++c;
    } else {
      e.message += *c;
    }
  }
  e.args = std::move(args);
  return e;
}

}  // namespace ampscope
