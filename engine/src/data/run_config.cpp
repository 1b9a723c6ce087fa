#include "ampscope/engine/run_config.h"

#include "ampscope/engine/config_schema.h"

namespace ampscope {
namespace {

struct ModeNames {
  PrecisionMode mode;
  const char* name;
  const char* label;
};
// The CLI spelling and the English label of each mode, in the order of docs/architecture.md's table.
constexpr ModeNames kModeNames[] = {
    {PrecisionMode::FP32, "fp32", "FP32"},
    {PrecisionMode::FP16AmpScaled, "fp16-amp-scaled", "FP16 AMP + GradScaler"},
    {PrecisionMode::FP16Amp, "fp16-amp", "FP16 AMP, no scaler"},
    {PrecisionMode::BF16Amp, "bf16-amp", "BF16 AMP"},
    {PrecisionMode::FP16Pure, "fp16-pure", "FP16 pure (model.half())"},
    {PrecisionMode::BF16Pure, "bf16-pure", "BF16 pure"},
    {PrecisionMode::Fp8Delayed, "fp8-delayed", "FP8 delayed scaling"},
    {PrecisionMode::Fp8Current, "fp8-current", "FP8 current scaling"},
    {PrecisionMode::MXFP8, "mxfp8", "MXFP8 (32-value blocks)"},
    {PrecisionMode::NVFP4, "nvfp4", "NVFP4 (16-value blocks)"},
    {PrecisionMode::Plan, "plan", "Precision plan"},
};

}  // namespace

const std::vector<PrecisionMode>& allPrecisionModes() {
  static const std::vector<PrecisionMode> kAll = {
      PrecisionMode::FP32,    PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp,
      PrecisionMode::BF16Amp, PrecisionMode::FP16Pure,      PrecisionMode::BF16Pure,
      PrecisionMode::Fp8Delayed, PrecisionMode::Fp8Current, PrecisionMode::MXFP8, PrecisionMode::NVFP4,
      PrecisionMode::Plan};
  return kAll;
}

const std::vector<PrecisionMode>& planLayerModes() {
  static const std::vector<PrecisionMode> kModes = {
      PrecisionMode::FP32,       PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp, PrecisionMode::BF16Amp,
      PrecisionMode::Fp8Delayed, PrecisionMode::Fp8Current,    PrecisionMode::MXFP8,   PrecisionMode::NVFP4};
  return kModes;
}

std::vector<std::string> planLayerNames(ModelKind model) {
  // The models' op names (engine/src/models); plan_layers_test runs a pass of each model and compares.
  std::vector<std::string> names;
  switch (model) {
    case ModelKind::TinyMLP: return {"fc1", "fc2"};
    case ModelKind::DeepMLP: return {"fc1", "fc2", "fc3", "fc4", "fc5"};
    case ModelKind::TinyTransformer:
      for (int block = 0; block < 2; ++block) {
        const std::string b = "block" + std::to_string(block);
        for (const char* op : {".attn.qkv", ".attn.scores", ".attn.context", ".attn.proj", ".mlp.fc1", ".mlp.fc2"})
          names.push_back(b + op);
      }
      names.push_back("head");
      return names;
  }
  return names;
}

std::string planLayersText(const std::vector<std::pair<std::string, PrecisionMode>>& layers) {
  std::string text;
  for (const auto& [layer, mode] : layers) text += (text.empty() ? "" : ",") + layer + "=" + modeName(mode);
  return text;
}

std::optional<std::vector<std::pair<std::string, PrecisionMode>>> parsePlanLayers(const std::string& text,
                                                                                std::string* error) {
  auto fail = [&](std::string why) {
    if (error) *error = std::move(why);
    return std::nullopt;
  };
  auto trimmed = [](std::string s) {
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string::npos) return std::string();
    return s.substr(first, s.find_last_not_of(" \t") - first + 1);
  };
  std::vector<std::pair<std::string, PrecisionMode>> layers;
  if (trimmed(text).empty()) return layers;
  std::size_t start = 0;
  for (int item = 1;; ++item) {
    const std::size_t comma = text.find(',', start);
    const std::string part = trimmed(text.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    const std::size_t eq = part.find('=');
    const std::string where = "item " + std::to_string(item) + " ('" + part + "')";
    if (eq == std::string::npos || eq == 0 || eq + 1 == part.size()) return fail(where + ": expected LAYER=MODE");
    const std::string layer = trimmed(part.substr(0, eq));
    const std::string name = trimmed(part.substr(eq + 1));
    const auto mode = parseMode(name);
    bool allowed = false;
    for (PrecisionMode m : planLayerModes()) allowed = allowed || (mode && *mode == m);
    if (!allowed) {
      std::string known;
      for (PrecisionMode m : planLayerModes()) known += (known.empty() ? "" : ", ") + modeName(m);
      return fail(where + ": a plan's layer takes one of " + known + " (got '" + name + "')");
    }
    for (const auto& seen : layers) {
      if (seen.first == layer) return fail(where + ": layer " + layer + " is named twice");
    }
    layers.emplace_back(layer, *mode);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return layers;
}

PrecisionMode planModeOf(const PlanConfig& plan, const std::string& layer) {
  for (const auto& [name, mode] : plan.layers) {
    if (name == layer) return mode;
  }
  return plan.defaultMode;
}

std::vector<PrecisionMode> planModesUsed(const PlanConfig& plan) {
  std::vector<PrecisionMode> modes = {plan.defaultMode};
  for (const auto& entry : plan.layers) {
    bool seen = false;
    for (PrecisionMode m : modes) seen = seen || m == entry.second;
    if (!seen) modes.push_back(entry.second);
  }
  return modes;
}

bool isQuantizedMode(PrecisionMode mode) {
  return mode == PrecisionMode::Fp8Delayed || mode == PrecisionMode::Fp8Current ||
         mode == PrecisionMode::MXFP8 || mode == PrecisionMode::NVFP4;
}

std::string modeName(PrecisionMode mode) {
  for (const auto& entry : kModeNames) {
    if (entry.mode == mode) return entry.name;
  }
  return "unknown";
}

std::string modeLabel(PrecisionMode mode) {
  for (const auto& entry : kModeNames) {
    if (entry.mode == mode) return entry.label;
  }
  return "unknown";
}

std::optional<PrecisionMode> parseMode(const std::string& name) {
  for (const auto& entry : kModeNames) {
    if (name == entry.name) return entry.mode;
  }
  return std::nullopt;
}

std::string modelName(ModelKind model) {
  switch (model) {
    case ModelKind::TinyMLP: return "tiny-mlp";
    case ModelKind::DeepMLP: return "deep-mlp";
    case ModelKind::TinyTransformer: return "tiny-transformer";
  }
  return "unknown";
}

std::optional<ModelKind> parseModel(const std::string& name) {
  for (ModelKind kind : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer}) {
    if (name == modelName(kind)) return kind;
  }
  return std::nullopt;
}

std::string optimizerName(OptimizerKind optimizer) {
  return optimizer == OptimizerKind::SGD ? "sgd" : "adamw";
}

std::optional<OptimizerKind> parseOptimizer(const std::string& name) {
  if (name == "sgd") return OptimizerKind::SGD;
  if (name == "adamw") return OptimizerKind::AdamW;
  return std::nullopt;
}

std::string clipOrderName(ClipOrder order) {
  switch (order) {
    case ClipOrder::Off: return "off";
    case ClipOrder::AfterUnscale: return "after-unscale";
    case ClipOrder::BeforeUnscale: return "before-unscale";
  }
  return "unknown";
}

std::optional<ClipOrder> parseClipOrder(const std::string& name) {
  for (ClipOrder order : {ClipOrder::Off, ClipOrder::AfterUnscale, ClipOrder::BeforeUnscale}) {
    if (name == clipOrderName(order)) return order;
  }
  return std::nullopt;
}

std::string precisionPathName(PrecisionPath path) {
  switch (path) {
    case PrecisionPath::Auto: return "auto";
    case PrecisionPath::Native: return "native";
    case PrecisionPath::Emulated: return "emulated";
  }
  return "unknown";
}

std::optional<PrecisionPath> parsePrecisionPath(const std::string& name) {
  for (PrecisionPath path : {PrecisionPath::Auto, PrecisionPath::Native, PrecisionPath::Emulated}) {
    if (name == precisionPathName(path)) return path;
  }
  return std::nullopt;
}

RunConfig presetFor(ModelKind model) {
  RunConfig config;
  config.model = model;
  switch (model) {
    case ModelKind::TinyMLP:
      // The chapter's TinyMLP(128, 512, 10), batch 32, AdamW at torch's defaults.
      config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
      config.batchSize = 32;
      config.lr = 1e-3;
      config.steps = 300;
      break;
    case ModelKind::DeepMLP:
      // A small loss weight (auxiliary-loss style) pushes FP16 gradients below 2^-24, where they flush
      // to zero without a scaler; eps 1e-12 keeps AdamW from hiding the tiny gradients behind eps.
      config.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16AmpScaled,
                      PrecisionMode::BF16Amp};
      config.batchSize = 64;
      config.lr = 1e-3;
      config.adamEps = 1e-12;
      config.lossWeight = 1e-5;
      config.steps = 300;
      break;
    case ModelKind::TinyTransformer:
      config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
      config.batchSize = 16;
      config.lr = 3e-3;
      config.steps = 400;
      break;
  }
  return config;
}

std::vector<ConfigError> validate(const RunConfig& config) {
  std::vector<ConfigError> errors;
  for (const ConfigField& field : configFields()) {
    // max-norm means nothing while clipping is off (a lesson may leave any value there).
    if (field.key == "clip.max-norm" && config.clipOrder == ClipOrder::Off) continue;
    if (auto error = checkField(config, field)) errors.push_back(std::move(*error));
  }
  return errors;
}

bool usesGradScaler(const RunConfig& config, PrecisionMode mode) {
  if (mode == PrecisionMode::Plan) {
    for (PrecisionMode used : planModesUsed(config.plan)) {
      if (used == PrecisionMode::FP16AmpScaled) return true;
    }
    return false;
  }
  return mode == PrecisionMode::FP16AmpScaled ||
         (mode == PrecisionMode::FP16Pure && config.scalerForPureFp16);
}

}  // namespace ampscope
