#include "ampscope/engine/run_config.h"

#include <charconv>
#include <cmath>
#include <set>
#include <system_error>

namespace ampscope {
namespace {

struct ModeNames {
  PrecisionMode mode;
  const char* name;
  const char* label;
};
// The CLI spelling and the English label of each mode, in the order of architecture.md's table.
constexpr ModeNames kModeNames[] = {
    {PrecisionMode::FP32, "fp32", "FP32"},
    {PrecisionMode::FP16AmpScaled, "fp16-amp-scaled", "FP16 AMP + GradScaler"},
    {PrecisionMode::FP16Amp, "fp16-amp", "FP16 AMP, no scaler"},
    {PrecisionMode::BF16Amp, "bf16-amp", "BF16 AMP"},
    {PrecisionMode::FP16Pure, "fp16-pure", "FP16 pure (model.half())"},
    {PrecisionMode::BF16Pure, "bf16-pure", "BF16 pure"},
};

// Shortest text that reads back to the same double; "nan"/"inf" for the non-finite ones.
std::string numberText(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  if (result.ec != std::errc()) return "?";
  return std::string(buffer, result.ptr);
}

bool finitePositive(double value) { return std::isfinite(value) && value > 0; }

}  // namespace

const std::vector<PrecisionMode>& allPrecisionModes() {
  static const std::vector<PrecisionMode> kAll = {
      PrecisionMode::FP32,    PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp,
      PrecisionMode::BF16Amp, PrecisionMode::FP16Pure,      PrecisionMode::BF16Pure};
  return kAll;
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
  auto positive = [&](const char* field, double value) {
    if (!finitePositive(value)) {
      errors.push_back({field, "must be > 0 and finite (got " + numberText(value) + ")"});
    }
  };
  auto atLeast = [&](const char* field, int64_t value, int64_t minimum) {
    if (value < minimum) {
      errors.push_back(
          {field, "must be >= " + std::to_string(minimum) + " (got " + std::to_string(value) + ")"});
    }
  };

  if (config.modes.empty()) errors.push_back({"modes", "at least one precision mode is needed"});
  std::set<PrecisionMode> seen;
  for (PrecisionMode mode : config.modes) {
    if (modeName(mode) == "unknown") {
      errors.push_back({"modes", "unknown precision mode"});
    } else if (!seen.insert(mode).second) {
      errors.push_back({"modes", "mode " + modeName(mode) + " is listed twice"});
    }
  }
  if (modelName(config.model) == "unknown") errors.push_back({"model", "unknown model"});
  if (config.optimizer != OptimizerKind::SGD && config.optimizer != OptimizerKind::AdamW) {
    errors.push_back({"optimizer", "unknown optimizer"});
  }
  positive("lr", config.lr);
  if (!std::isfinite(config.momentum) || config.momentum < 0 || config.momentum >= 1) {
    errors.push_back({"momentum", "must be in [0, 1) (got " + numberText(config.momentum) + ")"});
  }
  if (!std::isfinite(config.weightDecay) || config.weightDecay < 0) {
    errors.push_back(
        {"weight-decay", "must be >= 0 and finite (got " + numberText(config.weightDecay) + ")"});
  }
  positive("adam-eps", config.adamEps);
  atLeast("batch", config.batchSize, 1);
  if (config.batchSize > 65536) {
    errors.push_back({"batch", "must be <= 65536 (got " + std::to_string(config.batchSize) + ")"});
  }
  atLeast("steps", config.steps, 1);
  positive("loss-weight", config.lossWeight);
  positive("init-scale", config.scaler.initScale);
  if (!std::isfinite(config.scaler.growthFactor) || config.scaler.growthFactor <= 1) {
    errors.push_back({"growth-factor",
                      "must be > 1 and finite (got " + numberText(config.scaler.growthFactor) + ")"});
  }
  if (!(config.scaler.backoffFactor > 0 && config.scaler.backoffFactor < 1)) {
    errors.push_back({"backoff-factor",
                      "must be in (0, 1) (got " + numberText(config.scaler.backoffFactor) + ")"});
  }
  atLeast("growth-interval", config.scaler.growthInterval, 1);
  if (clipOrderName(config.clipOrder) == "unknown") {
    errors.push_back({"clip-order", "unknown clipping order"});
  }
  if (config.clipOrder != ClipOrder::Off) positive("clip", config.clipMaxNorm);
  atLeast("instrument-every", config.instrumentEvery, 1);
  atLeast("threads", config.threadsPerMode, 1);
  return errors;
}

}  // namespace ampscope
