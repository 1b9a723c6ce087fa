// The "plan" lane (RunConfig::plan, docs/precision-plans.md): each GEMM layer in its own mode, the other
// ops as the plan's default runs them, trained beside the uniform modes on the same weights and batches.
// Expected values come from two places: the uniform modes themselves (a plan giving every layer mode M
// is mode M, bit for bit), and an independent forward pass written here with torch's own casts
// (Tensor.to(float16/bfloat16) rounds to nearest even, IEEE 754), the way PyTorch code runs a layer in
// another precision: `with autocast(dtype)` around it, `.float()` on what leaves it.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/plan_search.h"
#include "ampscope/engine/precision_plan.h"

namespace ampscope {
namespace {

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

const ModeStep* find(const StepRecord& record, PrecisionMode mode) {
  for (const auto& m : record.modes) {
    if (m.mode == mode) return &m;
  }
  return nullptr;
}

std::vector<std::pair<std::string, PrecisionMode>> everyLayerIn(ModelKind model, PrecisionMode mode) {
  std::vector<std::pair<std::string, PrecisionMode>> layers;
  for (const auto& name : planLayerNames(model)) layers.emplace_back(name, mode);
  return layers;
}

// The names the model's forward pass gives its linear and matmul ops are the plan's layers, in order.
TEST(PlanLane, PlanLayerNamesAreTheModelsGemmOps) {
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer}) {
    RunConfig config = presetFor(model);
    config.modes = {PrecisionMode::FP32};
    Comparison comparison(config);
    std::vector<std::string> gemms;
    for (const OpDtypeEntry& entry : comparison.opDtypeReport(PrecisionMode::FP32)) {
      if (entry.op == "linear" || entry.op == "matmul") gemms.push_back(entry.where);
    }
    EXPECT_EQ(gemms, planLayerNames(model)) << modelName(model);
  }
}

// A plan that gives every layer (or none: its default does it) the mode M trains as M does, bit for bit:
// the loss, the loss scale and the rounding totals of every step, on every model, for AMP and quantised
// modes. Both lanes emulate (the plan lane always does).
TEST(PlanLane, AUniformPlanIsItsModeBitForBit) {
  struct Case {
    ModelKind model;
    PrecisionMode mode;
  };
  const Case cases[] = {{ModelKind::TinyMLP, PrecisionMode::FP16Amp},
                        {ModelKind::DeepMLP, PrecisionMode::BF16Amp},
                        {ModelKind::DeepMLP, PrecisionMode::FP16AmpScaled},
                        {ModelKind::TinyTransformer, PrecisionMode::FP16AmpScaled},
                        {ModelKind::TinyTransformer, PrecisionMode::Fp8Current},
                        {ModelKind::TinyMLP, PrecisionMode::Fp8Delayed},
                        {ModelKind::DeepMLP, PrecisionMode::MXFP8},
                        {ModelKind::TinyTransformer, PrecisionMode::NVFP4},
                        {ModelKind::TinyTransformer, PrecisionMode::FP32}};
  for (const Case& c : cases) {
    for (bool named : {true, false}) {
      RunConfig config = presetFor(c.model);
      config.modes = {c.mode, PrecisionMode::Plan};
      config.precisionPath = PrecisionPath::Emulated;
      config.instrumentEvery = 3;
      config.plan.defaultMode = c.mode;
      if (named) config.plan.layers = everyLayerIn(c.model, c.mode);
      ASSERT_TRUE(validate(config).empty()) << modelName(c.model);
      Comparison comparison(config);
      const std::string what = modelName(c.model) + " " + modeName(c.mode) + (named ? " (layers named)" : "");
      for (int step = 1; step <= 7; ++step) {
        const StepRecord record = comparison.step();
        const ModeStep* uniform = find(record, c.mode);
        const ModeStep* plan = find(record, PrecisionMode::Plan);
        ASSERT_TRUE(uniform && plan) << what;
        EXPECT_TRUE(sameBits(uniform->loss, plan->loss)) << what << " step " << step << ": " << uniform->loss
                                                         << " vs " << plan->loss;
        EXPECT_EQ(uniform->lossScale, plan->lossScale) << what;
        EXPECT_EQ(uniform->instrumented, plan->instrumented) << what;
        EXPECT_EQ(uniform->rounding.elements, plan->rounding.elements) << what << " step " << step;
        EXPECT_EQ(uniform->rounding.flushedToZero, plan->rounding.flushedToZero) << what << " step " << step;
        EXPECT_EQ(uniform->quantized.size(), plan->quantized.size()) << what;
      }
    }
  }
}

// Parameters by name from the comparison's export, as tensors.
torch::Tensor parameter(const std::vector<Comparison::NamedTensor>& params, const std::string& name) {
  for (const auto& p : params) {
    if (p.name == name) return torch::tensor(p.values).reshape(p.shape);
  }
  ADD_FAILURE() << "no parameter " << name;
  return torch::Tensor();
}

torch::Tensor roundTo(const torch::Tensor& x, torch::ScalarType dtype) { return x.to(dtype).to(torch::kFloat); }

// The deep MLP's step-1 loss under a mixed plan, computed independently with torch's casts, against
// the engine's. `modes[i]`: fc<i+1>'s dtype (kFloat: FP32), `defaultDtype` the autocast region around
// the whole pass (kFloat: none). In autocast a low-precision linear casts its input, weight and bias and
// returns its dtype; GELU runs in its input's dtype; mixing FP16 and BF16 promotes to FP32 (PyTorch's
// type promotion; no op of the MLP mixes them but the next linear's cast). Outside autocast a
// low-precision layer's output leaves as `.float()`.
double deepMlpPlanLoss(const Comparison& comparison, const std::vector<torch::ScalarType>& layerDtypes,
                       torch::ScalarType defaultDtype) {
  const auto params = comparison.initialParameters();
  const auto batch = comparison.batch(1);
  torch::Tensor x = torch::tensor(batch[0].values).reshape(batch[0].shape);
  const torch::Tensor targets = torch::tensor(batch[1].intValues).reshape(batch[1].shape);
  torch::ScalarType held = torch::kFloat;  // the dtype x's values are in
  for (size_t i = 0; i < layerDtypes.size(); ++i) {
    const std::string net = "net." + std::to_string(2 * i);
    const torch::ScalarType dtype = layerDtypes[i];
    torch::Tensor w = parameter(params, net + ".weight");
    torch::Tensor b = parameter(params, net + ".bias");
    if (dtype != torch::kFloat) {
      if (held != dtype) x = roundTo(x, dtype);
      x = roundTo(torch::linear(x, roundTo(w, dtype), roundTo(b, dtype)), dtype);
      held = defaultDtype == torch::kFloat ? torch::kFloat : dtype;  // .float() outside autocast
    } else {
      x = torch::linear(x, w, b);
      held = torch::kFloat;
    }
    if (i + 1 < layerDtypes.size()) {
      x = torch::gelu(x);
      if (held != torch::kFloat) x = roundTo(x, held);
    }
  }
  return torch::cross_entropy_loss(x, targets).item<float>();
}

TEST(PlanLane, MixedPlansComputeWhatTheirPyTorchCodeComputes) {
  struct Case {
    PrecisionMode defaultMode;
    std::vector<std::pair<std::string, PrecisionMode>> layers;
    std::vector<torch::ScalarType> dtypes;  // fc1..fc5
    torch::ScalarType region;
  };
  const auto f16 = torch::kHalf, b16 = torch::kBFloat16, f32 = torch::kFloat;
  const Case cases[] = {
      // FP16 autocast with the last layer kept in FP32.
      {PrecisionMode::FP16Amp, {{"fc5", PrecisionMode::FP32}}, {f16, f16, f16, f16, f32}, f16},
      // FP16 autocast, fc3 in BF16 (its FP16 input rounded again to BF16, its BF16 output through
      // GELU in BF16, then cast to FP16 by fc4).
      {PrecisionMode::FP16Amp, {{"fc3", PrecisionMode::BF16Amp}}, {f16, f16, b16, f16, f16}, f16},
      // No autocast; fc2 and fc4 in FP16 and BF16 regions, leaving as FP32.
      {PrecisionMode::FP32,
       {{"fc2", PrecisionMode::FP16AmpScaled}, {"fc4", PrecisionMode::BF16Amp}},
       {f32, f16, f32, b16, f32},
       f32},
  };
  for (const Case& c : cases) {
    RunConfig config = presetFor(ModelKind::DeepMLP);
    // Initial weights x2 make the logits 32x larger: at PyTorch's init the deep MLP's loss is log(10)
    // to within a float32 ulp whatever its layers round, and could not tell the plans apart.
    config.initGain = 2;
    config.modes = {PrecisionMode::Plan};
    config.plan.defaultMode = c.defaultMode;
    config.plan.layers = c.layers;
    ASSERT_TRUE(validate(config).empty());
    Comparison comparison(config);
    const double expected = deepMlpPlanLoss(comparison, c.dtypes, c.region);
    const double got = comparison.step().modes[0].loss;
    EXPECT_TRUE(sameBits(got, expected)) << planLayersText(c.layers) << ": " << got << " vs " << expected;
    // The check can fail: the same pass with every layer in the region's dtype (or FP32) gives another loss.
    const torch::ScalarType uniform = c.region == torch::kFloat ? torch::kHalf : c.region;
    const double other = deepMlpPlanLoss(comparison, std::vector<torch::ScalarType>(5, uniform), c.region);
    EXPECT_NE(expected, other) << planLayersText(c.layers);
  }
}

// The same plan with one more layer kept in FP32 computes another loss: the layer's mode is used (the
// check above could pass by a plan that ignored its layers only if every case's dtypes were uniform).
TEST(PlanLane, KeepingALayerHigherChangesWhatItRounds) {
  RunConfig config = presetFor(ModelKind::DeepMLP);
  config.initGain = 2;  // a loss that shows its logits' rounding (above)
  config.modes = {PrecisionMode::FP16Amp, PrecisionMode::Plan};
  config.precisionPath = PrecisionPath::Emulated;
  config.instrumentEvery = 1;
  config.plan.defaultMode = PrecisionMode::FP16Amp;
  config.plan.layers = {{"fc5", PrecisionMode::FP32}};
  Comparison comparison(config);
  const StepRecord record = comparison.step();
  const ModeStep* uniform = find(record, PrecisionMode::FP16Amp);
  const ModeStep* plan = find(record, PrecisionMode::Plan);
  ASSERT_TRUE(uniform && plan);
  EXPECT_NE(uniform->loss, plan->loss);
  bool uniformRoundsFc5 = false, planRoundsFc5 = false, planRoundsFc4 = false;
  for (const auto& p : uniform->roundingPoints) uniformRoundsFc5 |= p.layer == "fc5" && p.counts.elements > 0;
  for (const auto& p : plan->roundingPoints) {
    planRoundsFc5 |= p.layer == "fc5" && p.counts.elements > 0;
    planRoundsFc4 |= p.layer == "fc4" && p.counts.elements > 0;
  }
  EXPECT_TRUE(uniformRoundsFc5);
  EXPECT_FALSE(planRoundsFc5);
  EXPECT_TRUE(planRoundsFc4);
}

// Quantised layers: only the plan's FP8 layers have quantised operands; the layer kept in FP32 has none.
TEST(PlanLane, OnlyThePlansQuantisedLayersAreQuantised) {
  RunConfig config = presetFor(ModelKind::DeepMLP);
  config.modes = {PrecisionMode::Plan};
  config.plan.defaultMode = PrecisionMode::Fp8Current;
  config.plan.layers = {{"fc1", PrecisionMode::FP32}, {"fc5", PrecisionMode::MXFP8}};
  Comparison comparison(config);
  const ModeStep step = comparison.step().modes[0];
  std::set<std::string> layers;
  for (const auto& q : step.quantized) layers.insert(q.layer);
  EXPECT_EQ(layers, (std::set<std::string>{"fc2", "fc3", "fc4", "fc5"}));
}

// The lane has a GradScaler exactly when one of its modes is fp16-amp-scaled (torch's default scale).
TEST(PlanLane, AScaledLayerGivesTheLaneAGradScaler) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::Plan};
  config.plan.defaultMode = PrecisionMode::BF16Amp;
  EXPECT_EQ(Comparison(config).step().modes[0].lossScale, 1.0);
  config.plan.layers = {{"fc2", PrecisionMode::FP16AmpScaled}};
  EXPECT_EQ(Comparison(config).step().modes[0].lossScale, 65536.0);
}

TEST(PlanLane, BadPlansAreRefusedNamingTheField) {
  std::string error;
  EXPECT_FALSE(parsePlanLayers("fc1=fp32,fc2", &error));
  EXPECT_EQ(error, "item 2 ('fc2'): expected LAYER=MODE");
  EXPECT_FALSE(parsePlanLayers("fc1=fp16-pure", &error));
  EXPECT_NE(error.find("got 'fp16-pure'"), std::string::npos) << error;
  EXPECT_FALSE(parsePlanLayers("fc1=fp32, fc1=bf16-amp", &error));
  EXPECT_EQ(error, "item 2 ('fc1=bf16-amp'): layer fc1 is named twice");
  const auto spaced = parsePlanLayers(" fc1 = fp32 ,fc2=nvfp4 ", &error);
  ASSERT_TRUE(spaced);
  EXPECT_EQ(planLayersText(*spaced), "fc1=fp32,fc2=nvfp4");

  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::Plan};
  config.plan.layers = {{"fc5", PrecisionMode::FP32}};
  const auto errors = validate(config);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].field, "plan.layers");
  EXPECT_EQ(errors[0].message, "tiny-mlp has no layer 'fc5' (its layers: fc1, fc2)");
  const ConfigField& field = *findConfigField("plan.default");
  EXPECT_TRUE(setFieldText(config, field, "bf16-pure").has_value());
  EXPECT_FALSE(setFieldText(config, field, "mxfp8").has_value());
}

// A plan's config goes through the session/lesson JSON and comes back; one without a plan writes no
// plan keys (older sessions keep their bytes).
TEST(PlanLane, ThePlanTravelsThroughTheConfigJson) {
  RunConfig config = presetFor(ModelKind::TinyTransformer);
  auto json = [](const RunConfig& c) {
    std::string text;
    JsonWriter out(text);
    writeConfigJson(out, c);
    return text;
  };
  EXPECT_EQ(json(config).find("plan"), std::string::npos);
  config.modes.push_back(PrecisionMode::Plan);
  config.plan.defaultMode = PrecisionMode::Fp8Current;
  config.plan.layers = {{"head", PrecisionMode::BF16Amp}, {"block0.attn.qkv", PrecisionMode::FP32}};
  const std::string text = json(config);
  EXPECT_NE(text.find("\"plan\":{\"default\":\"fp8-current\",\"layers\":\"head=bf16-amp,block0.attn.qkv=fp32\"}"),
            std::string::npos)
      << text;
  JsonParseError parseError;
  const auto value = parseJson(text, &parseError);
  ASSERT_TRUE(value);
  RunConfig back;
  EXPECT_TRUE(readConfigJson(*value, back, /*requireAll=*/true).empty());
  EXPECT_EQ(back.modes, config.modes);
  EXPECT_EQ(back.plan.defaultMode, PrecisionMode::Fp8Current);
  EXPECT_EQ(planLayersText(back.plan.layers), planLayersText(config.plan.layers));
}

// An advise plan file becomes the plan lane of an engine model: its target the default ("auto": fp32),
// layers the model lacks left out with a note, and a plan of another model's layers refused.
TEST(PlanLane, AdvisePlansBecomePlanConfigs) {
  PrecisionPlan plan;
  plan.target = "fp16-amp";
  plan.layers = {{"fc1", "fp16-amp", false, ""}, {"fc5", "bf16-amp", true, "fp16-amp unsafe"},
                 {"gelu1", "fp32", true, ""}};
  std::vector<std::string> notes;
  std::string error;
  const auto config = planConfigOf(plan, ModelKind::DeepMLP, &notes, &error);
  ASSERT_TRUE(config) << error;
  EXPECT_EQ(config->defaultMode, PrecisionMode::FP16Amp);
  EXPECT_EQ(planLayersText(config->layers), "fc1=fp16-amp,fc5=bf16-amp");
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("gelu1"), std::string::npos);

  plan.target = "auto";
  EXPECT_EQ(planConfigOf(plan, ModelKind::DeepMLP, nullptr, &error)->defaultMode, PrecisionMode::FP32);

  plan.layers = {{"net.0", "fp32", true, ""}, {"net.2", "bf16-amp", true, ""}};
  EXPECT_FALSE(planConfigOf(plan, ModelKind::DeepMLP, nullptr, &error));
  EXPECT_EQ(error, "none of the plan's layers (net.0, net.2) is a layer of deep-mlp: fc1, fc2, fc3, fc4, fc5");
}

// The deviation is the trailing mean's: losses 1, 3, 5 against 1, 1, 1 with a window of 2 give |1-1|,
// |(1+3)/2-1| = 1, |(3+5)/2-1| = 3; a non-finite loss is an infinite deviation.
TEST(PlanSearch, DeviationIsTheTrailingMeansDifference) {
  EXPECT_EQ(lossDeviation({1, 3, 5}, {1, 1, 1}, 2), (std::vector<double>{0, 1, 3}));
  EXPECT_EQ(lossDeviation({1, NAN}, {1, 1}, 5)[1], std::numeric_limits<double>::infinity());
}

TEST(PlanSearch, BadOptionsAreNamed) {
  PlanSearchOptions options;
  options.base = presetFor(ModelKind::TinyMLP);
  options.target = PrecisionMode::FP16Amp;
  options.tolerance = 0;
  EXPECT_EQ(planSearchProblem(options).value_or(""), "tolerance: must be a finite number > 0 (got 0)");
  options.tolerance = 0.1;
  options.window = options.base.steps + 1;
  EXPECT_EQ(planSearchProblem(options).value_or("").substr(0, 7), "window:");
  options.window = 10;
  options.higher = PrecisionMode::FP16Amp;
  EXPECT_EQ(planSearchProblem(options).value_or("").substr(0, 7), "higher:");
  options.higher = PrecisionMode::FP32;
  options.target = PrecisionMode::BF16Pure;
  EXPECT_EQ(planSearchProblem(options).value_or("").substr(0, 7), "target:");
  EXPECT_THROW(searchPlan(options), std::invalid_argument);
}

// What the search returns is what its trials proved: the result's trial passed over the whole run, and
// every layer it keeps was needed (the trial without it failed), unless it is the only one (the uniform
// target failed then). The FP8 outlier in fc1's input (docs/precision-plans.md) makes fc1 needed.
TEST(PlanSearch, TheResultIsWhatItsTrialsProved) {
  PlanSearchOptions options;
  options.base = presetFor(ModelKind::DeepMLP);
  options.base.steps = 80;
  options.base.lossWeight = 1e-3;
  options.base.fp8.outlierFactor = 1e6;
  options.target = PrecisionMode::Fp8Current;
  options.tolerance = 0.05;
  int progressCalls = 0;
  const PlanSearchResult result = searchPlan(options, [&](const PlanTrial&) { ++progressCalls; });
  ASSERT_TRUE(result.found);
  EXPECT_EQ(progressCalls, static_cast<int>(result.trials.size()));
  EXPECT_FALSE(result.trials[0].passed);
  EXPECT_EQ(result.trials[0].why, "uniform fp8-current");
  EXPECT_EQ(result.fp32Losses.size(), 80u);
  EXPECT_EQ(result.planLosses.size(), 80u);
  ASSERT_FALSE(result.kept.empty());
  EXPECT_EQ(result.kept.front(), "fc1");
  bool resultTrialPassed = false;
  for (const PlanTrial& t : result.trials) resultTrialPassed |= t.kept == result.kept && t.passed;
  EXPECT_TRUE(resultTrialPassed);
  for (const std::string& layer : result.kept) {
    if (result.kept.size() == 1) break;
    bool neededIt = false;
    for (const PlanTrial& t : result.trials) neededIt |= t.why == "without " + layer && !t.passed;
    EXPECT_TRUE(neededIt) << layer;
  }
  // The plan the search returns trains to the losses its trial had.
  RunConfig config = options.base;
  config.modes = {PrecisionMode::Plan};
  config.plan = result.plan;
  config.instrumentEvery = 1000000;
  Comparison comparison(config);
  for (int64_t s = 0; s < 80; ++s) EXPECT_TRUE(sameBits(comparison.step().modes[0].loss, result.planLosses[s])) << s;
  ASSERT_EQ(result.layers.size(), 5u);
  EXPECT_TRUE(result.layers[0].trainingKeeps);
  // Each kept layer names the failing trial that showed it is needed; the others name none.
  for (const PlanLayerVerdict& v : result.layers) {
    if (!v.trainingKeeps) {
      EXPECT_EQ(v.neededByTrial, -1) << v.layer;
      continue;
    }
    ASSERT_GE(v.neededByTrial, 0) << v.layer;
    const PlanTrial& t = result.trials[static_cast<size_t>(v.neededByTrial)];
    EXPECT_FALSE(t.passed) << v.layer;
    EXPECT_EQ(std::count(t.kept.begin(), t.kept.end(), v.layer), 0) << v.layer;
  }
}

}  // namespace
}  // namespace ampscope
