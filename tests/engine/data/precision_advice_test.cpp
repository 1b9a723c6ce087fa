// precision_advice.h and precision_plan.h: the advice's decision rules on hand-built records, each
// threshold from both sides, the GradScaler's cover, the plan's choice per layer and the plan file's round
// trip. The records are built as a probe builds them (probe_record_builder.h). Where an expected verdict follows from a format's range, the
// test says which fact: FP16's smallest subnormal is 2^-24, so a value below 2^-25 rounds to zero (the tie
// at 2^-25 goes to the even zero); its largest finite value is 65504 and |x| >= 65520 rounds to inf.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "ampscope/engine/number_format.h"
#include "ampscope/engine/precision_advice.h"
#include "ampscope/engine/precision_plan.h"
#include "ampscope/engine/rounding_cost.h"
#include "probe_record_builder.h"

namespace ampscope {
namespace {

using testing::costsOf;
using testing::histogramOf;
using testing::tensorOf;

ModeStep stepOf(int64_t step, std::vector<TensorStats> tensors, double lossScale = 1) {
  ModeStep s;
  s.mode = PrecisionMode::FP32;
  s.step = step;
  s.lossScale = lossScale;
  s.instrumented = true;
  s.tensors = std::move(tensors);
  return s;
}

// n values: `small` of them 1.5 x 2^smallExp, the rest 1.5 x 2^bigExp (never a rounding tie).
std::vector<float> valuesOf(int n, int small, int smallExp, int bigExp) {
  std::vector<float> v;
  for (int i = 0; i < n; ++i) v.push_back(std::ldexp(1.5f, i < small ? smallExp : bigExp));
  return v;
}

const FormatEvidence* find(const PrecisionAdvice& a, const std::string& layer, const std::string& role,
                           const std::string& column) {
  for (const auto& e : a.evidence)
    if (e.layer == layer && e.role == role && e.column == column) return &e;
  return nullptr;
}

PrecisionAdvice adviseOn(const std::vector<ModeStep>& steps, const std::string& target = "auto",
                         AdviceThresholds thresholds = {}) {
  AdviceBuilder builder(PrecisionMode::FP32, thresholds);
  for (const auto& s : steps) builder.add(s);
  return builder.finish(RunIdentity{"run.jsonl", "probe-stream", "r", "", "", 0, 0, 0}, target);
}

TEST(PrecisionAdvice, LayersAndRolesOfTensors) {
  EXPECT_EQ(adviceLayer(tensorOf("net.0.weight", TensorRole::Gradient, {1})), "net.0");
  EXPECT_EQ(adviceLayer(tensorOf("net.0.weight", TensorRole::Weight, {1})), "net.0");
  EXPECT_EQ(adviceLayer(tensorOf("scale", TensorRole::Gradient, {1})), "scale");
  EXPECT_EQ(adviceLayer(tensorOf("encoder.layers.0.linear1", TensorRole::Activation, {1})),
            "encoder.layers.0.linear1");
  TensorStats tap = tensorOf("act:fc1.out", TensorRole::Gradient, {1});
  tap.isParameter = false;  // version 3's tapped gradient: no role, not a parameter
  EXPECT_EQ(adviceRole(tap), "activation-gradient");
  EXPECT_EQ(adviceLayer(tap), "fc1");
}

// The SQNR a format's rounding alone gives, 10 log10(7 4^p), is what rounding values spread over a binade
// costs: measured on 4096 values evenly spread over [1, 2) with rounding_cost.h.
TEST(PrecisionAdvice, FormatSqnrMatchesTheRoundingOfABinade) {
  EXPECT_NEAR(*formatSqnrDb("fp16"), 10 * std::log10(7.0 * std::pow(4.0, 11)), 1e-9);
  EXPECT_FALSE(formatSqnrDb("fp8-delayed").has_value());
  std::vector<float> binade;
  for (int i = 0; i < 4096; ++i) binade.push_back(1.0f + (static_cast<float>(i) + 0.37f) / 4096.0f);
  const double fp16 = roundingCost(CostFormat::FP16, binade.data(), 4096).sqnrDb();
  const double bf16 = roundingCost(CostFormat::BF16, binade.data(), 4096).sqnrDb();
  EXPECT_NEAR(fp16, *formatSqnrDb("fp16"), 1.0);
  EXPECT_NEAR(bf16, *formatSqnrDb("bf16"), 1.0);
}

// FP16 flushes a value below 2^-25: 1.5 x 2^-27 goes to zero. 11 of 1000 (1.1%) is over the 1% unsafe
// share, 10 (1.0%) is not (the rule is "more than"), but it is over the 0.01% caution share; none is ok.
// BF16 (smallest subnormal 2^-133) holds all of them.
TEST(PrecisionAdvice, FlushShareEachSideOfTheThresholds) {
  for (const auto& [small, expected] : std::vector<std::pair<int, Verdict>>{
           {11, Verdict::Unsafe}, {10, Verdict::Caution}, {0, Verdict::Ok}}) {
    std::vector<ModeStep> steps;
    for (int s = 1; s <= 5; ++s)
      steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(1000, small, -27, -8))}));
    const PrecisionAdvice a = adviseOn(steps);
    ASSERT_FALSE(a.tooShort);
    const FormatEvidence* fp16 = find(a, "fc1", "gradient", "fp16");
    ASSERT_NE(fp16, nullptr);
    EXPECT_EQ(fp16->verdict, expected) << small << ": " << fp16->reason;
    EXPECT_DOUBLE_EQ(fp16->worstFlushShare, small / 1000.0);
    EXPECT_EQ(fp16->steps, 5);
    EXPECT_EQ(find(a, "fc1", "gradient", "bf16")->verdict, Verdict::Ok);
    EXPECT_EQ(a.scaler.needed, expected == Verdict::Unsafe);
  }
}

// FP16's subnormals lie in [2^-24, 2^-14): 1.5 x 2^-20 keeps only 5 significant bits there. 51 of 1000
// (5.1%) is over the 5% caution share, 50 (5.0%) is not.
TEST(PrecisionAdvice, SubnormalShareEachSideOfTheCautionThreshold) {
  for (const auto& [small, expected] : std::vector<std::pair<int, Verdict>>{{51, Verdict::Caution}, {50, Verdict::Ok}}) {
    std::vector<ModeStep> steps;
    for (int s = 1; s <= 5; ++s)
      steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(1000, small, -20, -8))}));
    const PrecisionAdvice a = adviseOn(steps);
    const FormatEvidence* fp16 = find(a, "fc1", "gradient", "fp16");
    ASSERT_NE(fp16, nullptr);
    EXPECT_EQ(fp16->worstFlushShare, 0);
    EXPECT_DOUBLE_EQ(fp16->worstSubnormalShare, small / 1000.0);
    EXPECT_EQ(fp16->verdict, expected) << small << ": " << fp16->reason;
  }
}

// Flushing at one step only: the worst step and the count of steps over the threshold say where.
TEST(PrecisionAdvice, WorstStepAndUnsafeStepsAreReported) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 6; ++s) {
    const int small = s == 4 ? 50 : (s == 5 ? 20 : 0);
    steps.push_back(stepOf(s * 10, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(1000, small, -30, -8))}));
  }
  const PrecisionAdvice a = adviseOn(steps);
  const FormatEvidence* e = find(a, "fc1", "gradient", "fp16");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->worstFlushStep, 40);
  EXPECT_DOUBLE_EQ(e->worstFlushShare, 0.05);
  EXPECT_EQ(e->unsafeSteps, 2);
  EXPECT_EQ(e->firstUnsafeStep, 40);
  EXPECT_EQ(e->firstStep, 10);
  EXPECT_EQ(e->lastStep, 60);
  EXPECT_NE(e->reason.find("at step 40"), std::string::npos) << e->reason;
}

// FP16's largest finite value is 65504; 65520 (65504 + half its ulp of 32, tie to the odd max goes up)
// rounds to inf: one such activation makes FP16 unsafe (any overflow is), while 65504 itself is fine.
// BF16 reaches 3.4e38 and holds both.
TEST(PrecisionAdvice, OverflowEachSideOfFp16sMaximum) {
  for (const auto& [big, expected] : std::vector<std::pair<float, Verdict>>{{65520.0f, Verdict::Unsafe},
                                                                           {65504.0f, Verdict::Ok}}) {
    std::vector<ModeStep> steps;
    for (int s = 1; s <= 5; ++s) {
      std::vector<float> v(999, 1.0f);
      v.push_back(big);
      steps.push_back(stepOf(s, {tensorOf("fc1", TensorRole::Activation, v)}));
    }
    const PrecisionAdvice a = adviseOn(steps);
    EXPECT_EQ(find(a, "fc1", "activation", "fp16")->verdict, expected) << big;
    EXPECT_EQ(find(a, "fc1", "activation", "bf16")->verdict, Verdict::Ok);
    EXPECT_EQ(find(a, "fc1", "activation", "fp16+scaler"), nullptr);  // activations are never scaled
  }
}

// The SQNR floor is the format's own SQNR minus the margin; an evidence entry just below it is unsafe,
// just above it is not.
TEST(PrecisionAdvice, SqnrFloorEachSide) {
  AdviceThresholds t;
  const double floor = *formatSqnrDb("nvfp4") - t.sqnrMarginDb;
  for (const auto& [sqnr, expected] :
       std::vector<std::pair<double, Verdict>>{{floor - 0.01, Verdict::Unsafe}, {floor + 0.01, Verdict::Ok}}) {
    FormatEvidence e;
    e.column = "nvfp4";
    e.steps = 5;
    e.firstStep = 1;
    e.lastStep = 5;
    e.hasSqnr = true;
    e.minSqnrDb = sqnr;
    e.minSqnrStep = 3;
    judgeEvidence(e, t);
    EXPECT_EQ(e.verdict, expected) << e.reason;
  }
}

// A whole-tensor SQNR measured by rounding_cost.h reaches the verdict: values spread over 2^-20 .. 2^10
// hold in BF16 and FP16 (no flush, SQNR near the format's own), while the same values with one outlier of
// 2^20 crush NVFP4's block-scaled elements and flush most of them.
TEST(PrecisionAdvice, RoundingCostColumnsComeFromTheRecord) {
  std::vector<float> values;
  for (int i = 0; i < 512; ++i) values.push_back(std::ldexp(1.0f + static_cast<float>(i % 7) / 8.0f, -20 + i % 31));
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 5; ++s)
    steps.push_back(stepOf(s, {tensorOf("fc1", TensorRole::Activation, values, 1, /*withCost=*/true)}));
  const PrecisionAdvice a = adviseOn(steps);
  const FormatEvidence* bf16 = find(a, "fc1", "activation", "bf16");
  ASSERT_NE(bf16, nullptr);
  EXPECT_TRUE(bf16->hasSqnr);
  EXPECT_EQ(bf16->verdict, Verdict::Ok) << bf16->reason;
  for (const char* column : {"fp8-e4m3", "fp8-e5m2", "mxfp8", "nvfp4"}) {
    const FormatEvidence* e = find(a, "fc1", "activation", column);
    ASSERT_NE(e, nullptr) << column;
    EXPECT_TRUE(e->hasSqnr);
  }
  // Per tensor E4M3 spans about 18 binades (2^-9 .. 448): the values below amax 2^-18 flush, which
  // here are the values under 2^-8 of 2^10's binade: a third of them.
  EXPECT_EQ(find(a, "fc1", "activation", "fp8-e4m3")->verdict, Verdict::Unsafe);
}

// Fewer instrumented steps than minSteps: nothing is judged and the advice says the run is too short.
TEST(PrecisionAdvice, TooShortToJudge) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 4; ++s)
    steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 0, -27, -8))}));
  PrecisionAdvice a = adviseOn(steps);
  EXPECT_TRUE(a.tooShort);
  EXPECT_EQ(a.mostSteps, 4);
  EXPECT_TRUE(a.plan.empty());
  EXPECT_NE(adviceText(a).find("too short to judge"), std::string::npos);
  steps.push_back(stepOf(5, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 0, -27, -8))}));
  a = adviseOn(steps);
  EXPECT_FALSE(a.tooShort);
  AdviceThresholds more;
  more.minSteps = 6;
  EXPECT_TRUE(adviseOn(steps, "auto", more).tooShort);
}

// The GradScaler's cover: the smallest gradient 1.5 x 2^-30 needs 2^6 to reach 2^-24 (FP16's smallest
// subnormal), the largest 1.5 x 2^-8 allows 2^(14 + 8) = 2^22 before its binade reaches 2^15..2^16.
// Gradients shrinking to 1.5 x 2^-45 at steps 6..10 need 2^21: the default 2^16 leaves them uncovered.
TEST(PrecisionAdvice, ScalerNeededScaleCeilingAndCover) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 10; ++s) {
    const int smallExp = s <= 5 ? -30 : -45;
    steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 50, smallExp, -8))}));
  }
  const PrecisionAdvice a = adviseOn(steps);
  EXPECT_EQ(a.scaler.steps, 10);
  EXPECT_TRUE(a.scaler.needed);
  EXPECT_EQ(a.scaler.neededLog2, 21);
  EXPECT_EQ(a.scaler.neededStep, 6);
  EXPECT_EQ(a.scaler.ceilingLog2, 22);
  EXPECT_EQ(a.scaler.noScaleFitsSteps, 0);
  ASSERT_EQ(a.scaler.covers.size(), 1u);  // no recorded scale: the default only
  const ScaleCover& c = a.scaler.covers[0];
  EXPECT_EQ(c.uncoveredSteps, 5);
  EXPECT_EQ(c.firstUncoveredStep, 6);
  EXPECT_EQ(c.lastUncoveredStep, 10);
  EXPECT_EQ(c.coveredFromStep, 0);  // uncovered at the last step
  // Flushing at most 1% (of 100 values, none of the 50 small ones) needs 1.5 x 2^-45 x 2^s >= 2^-25:
  // 2^20, one binade less than lifting them to 2^-24. 2^16 flushes half of them at steps 6..10.
  EXPECT_EQ(a.scaler.neededForShareLog2, 20);
  EXPECT_EQ(a.scaler.neededForShareStep, 6);
  EXPECT_EQ(c.overShareSteps, 5);
  EXPECT_EQ(c.firstOverShareStep, 6);
  EXPECT_EQ(c.shareCoveredFromStep, 0);
  // At 2^16, 1.5 x 2^-45 becomes 1.5 x 2^-29, below 2^-25: the "fp16+scaler" column sees it flush.
  EXPECT_EQ(find(a, "fc1", "gradient", "fp16+scaler")->verdict, Verdict::Unsafe);
}

// A recorded scale growing from 2^4 to 2^12 covers gradients that need 2^6 (smallest 1.5 x 2^-30) from the
// step it reaches 2^6 on; the scaled histograms' exact FP16 counts judge "fp16+scaler".
TEST(PrecisionAdvice, RecordedScaleCoversFromAStep) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 6; ++s) {
    const float scale = std::ldexp(1.0f, 2 + 2 * s);  // 2^4, 2^6, ..., 2^14
    steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 50, -30, -8), scale)},
                           scale));
  }
  const PrecisionAdvice a = adviseOn(steps);
  ASSERT_EQ(a.scaler.covers.size(), 2u);
  EXPECT_EQ(a.scaler.covers[0].uncoveredSteps, 0);  // 2^16 covers 2^6 at every step
  const ScaleCover& recorded = a.scaler.covers[1];
  EXPECT_EQ(recorded.uncoveredSteps, 1);
  EXPECT_EQ(recorded.firstUncoveredStep, 1);
  EXPECT_EQ(recorded.coveredFromStep, 2);
  EXPECT_EQ(a.scaler.neededForShareLog2, 5);  // 1.5 x 2^-30 x 2^5 = 1.5 x 2^-25: not below 2^-25
  EXPECT_EQ(recorded.overShareSteps, 1);
  EXPECT_EQ(recorded.shareCoveredFromStep, 2);
  // Step 1: 1.5 x 2^-30 x 2^4 = 1.5 x 2^-26 < 2^-25 flushes: 50% flushed at the worst step.
  const FormatEvidence* scaled = find(a, "fc1", "gradient", "fp16+scaler");
  EXPECT_DOUBLE_EQ(scaled->worstFlushShare, 0.5);
  EXPECT_EQ(scaled->worstFlushStep, 1);
}

// An engine stream: fp32 is judged, and the fp16-amp-scaled mode beside it (its records follow fp32's in
// each step) gives the scale its GradScaler really used: 2^4 at step 1, 2^6 from step 2 on. The smallest
// fp32 gradient 1.5 x 2^-30 needs 2^6; the fp16+scaler column shifts fp32's histogram by that scale.
TEST(PrecisionAdvice, AGradScalerModeBesideTheJudgedOneGivesTheRecordedScale) {
  AdviceBuilder builder(PrecisionMode::FP32, AdviceThresholds{});
  for (int s = 1; s <= 6; ++s) {
    builder.add(stepOf(s, {tensorOf("net.0.weight", TensorRole::Gradient, valuesOf(100, 50, -30, -8))}));
    ModeStep scaled;
    scaled.mode = PrecisionMode::FP16AmpScaled;
    scaled.step = s;
    scaled.lossScale = s == 1 ? 16 : 64;
    builder.add(scaled);
  }
  builder.setEngineModel(ModelKind::DeepMLP);  // (after the steps: the names were taken as they came)
  const PrecisionAdvice a = builder.finish(RunIdentity{}, "auto");
  ASSERT_EQ(a.scaler.covers.size(), 2u);
  EXPECT_NE(a.scaler.covers[1].label.find("fp16-amp-scaled"), std::string::npos) << a.scaler.covers[1].label;
  EXPECT_EQ(a.scaler.covers[1].uncoveredSteps, 1);
  EXPECT_EQ(a.scaler.covers[1].coveredFromStep, 2);
  // 1.5 x 2^-30 x 2^4 = 1.5 x 2^-26 < 2^-25: half the values flush at step 1, none after.
  const FormatEvidence* scaled = find(a, "net.0", "gradient", "fp16+scaler");
  ASSERT_NE(scaled, nullptr);
  EXPECT_DOUBLE_EQ(scaled->worstFlushShare, 0.5);
  EXPECT_EQ(scaled->worstFlushStep, 1);
  EXPECT_EQ(scaled->unsafeSteps, 1);
}

// The engine's parameter layers under the names its rounding points use (mlp.cpp, tiny_transformer.cpp).
TEST(PrecisionAdvice, EngineLayerNames) {
  EXPECT_EQ(engineLayerName(ModelKind::DeepMLP, "net.0"), "fc1");
  EXPECT_EQ(engineLayerName(ModelKind::TinyMLP, "net.2"), "fc2");
  EXPECT_EQ(engineLayerName(ModelKind::DeepMLP, "net.1"), "net.1");  // a GELU: no parameters, no name
  EXPECT_EQ(engineLayerName(ModelKind::TinyTransformer, "blocks.1.attn.qkv"), "block1.attn.qkv");
  EXPECT_EQ(engineLayerName(ModelKind::TinyTransformer, "blocks.0.ln1"), "block0.ln1");
  EXPECT_EQ(engineLayerName(ModelKind::TinyTransformer, "head"), "head");
  EXPECT_EQ(engineLayerName(ModelKind::TinyTransformer, "blocksx.0"), "blocksx.0");
}

// Gradients from 1.5 x 2^-45 to 1.5 x 2^0 span 46 binades; FP16 holds 40 (2^-24 .. 65504): no scale fits.
TEST(PrecisionAdvice, NoScaleFitsWhenTheRangeIsTooWide) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 5; ++s)
    steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 50, -45, 0))}));
  const PrecisionAdvice a = adviseOn(steps);
  EXPECT_EQ(a.scaler.neededLog2, 21);
  EXPECT_EQ(a.scaler.ceilingLog2, 14);
  EXPECT_EQ(a.scaler.noScaleFitsSteps, 5);
  EXPECT_EQ(a.scaler.firstNoScaleFitsStep, 1);
}

// The plan walks the chain: fc1's gradients flush in FP16 without a scaler (1.5 x 2^-30, 20%) but a scale
// of 2^16 lifts them to 2^-14 and they hold; fc2's activations overflow FP16 (70000 > 65520), so neither
// FP16 mode holds and BF16 does.
TEST(PrecisionAdvice, PlanWalksTheChainPerLayer) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 5; ++s) {
    std::vector<float> act(99, 1.0f);
    act.push_back(70000.0f);
    steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 20, -30, -8)),
                               tensorOf("fc2", TensorRole::Activation, act),
                               tensorOf("fc2.weight", TensorRole::Gradient, valuesOf(100, 0, -30, -8))}));
  }
  const PrecisionAdvice a = adviseOn(steps, "fp16-amp");
  ASSERT_EQ(a.plan.size(), 2u);
  EXPECT_EQ(a.plan[0].layer, "fc1");
  EXPECT_EQ(a.plan[0].mode, "fp16-amp-scaled");
  EXPECT_TRUE(a.plan[0].keptHigher);
  EXPECT_NE(a.plan[0].reason.find("fp16-amp unsafe"), std::string::npos) << a.plan[0].reason;
  EXPECT_EQ(a.plan[1].layer, "fc2");
  EXPECT_EQ(a.plan[1].mode, "bf16-amp");
  // auto: without rounding costs no FP8 or FP4 mode has evidence, so the cheapest judged safe mode wins.
  const PrecisionAdvice automatic = adviseOn(steps, "auto");
  EXPECT_EQ(automatic.plan[0].mode, "fp16-amp-scaled");
  EXPECT_FALSE(automatic.plan[0].keptHigher);
  EXPECT_NE(automatic.plan[0].reason.find("nvfp4 not judged"), std::string::npos) << automatic.plan[0].reason;
  const std::string text = adviceText(a);
  EXPECT_NE(text.find("keep in higher precision: fc1 (fp16-amp-scaled), fc2 (bf16-amp)"), std::string::npos) << text;
}

// An FP8 mode's quantised operands are evidence "as run": fc1's input saturating at one step makes
// fp8-delayed unsafe for fc1 (any overflow is), so a plan targeting it keeps fc1 in BF16.
TEST(PrecisionAdvice, QuantisedOperandsAreEvidenceAsRun) {
  std::vector<ModeStep> steps;
  for (int s = 1; s <= 5; ++s) {
    steps.push_back(stepOf(s, {tensorOf("fc1.weight", TensorRole::Gradient, valuesOf(100, 0, -30, -8))}));
    ModeStep q;
    q.mode = PrecisionMode::Fp8Delayed;
    q.step = s;
    q.instrumented = true;
    for (const char* operand : {"fc1.input", "fc1.weight", "fc1.grad_output"}) {
      QuantTensorStats t;
      t.name = operand;
      t.layer = "fc1";
      t.numel = 1000;
      t.measured = true;
      t.scaling = ScalingKind::Delayed;
      t.format = QuantFormat::E4M3;
      t.scale = 1;
      t.amax = (s == 3 && std::string(operand) == "fc1.input") ? 1000 : 400;  // 1000 > 464: beyond E4M3
      t.saturated = t.amax > 448 ? 7 : 0;
      q.quantized.push_back(t);
    }
    steps.push_back(q);
  }
  const PrecisionAdvice a = adviseOn(steps, "fp8-delayed");
  const FormatEvidence* input = find(a, "fc1", "gemm-input", "run:fp8-delayed");
  ASSERT_NE(input, nullptr);
  EXPECT_EQ(input->verdict, Verdict::Unsafe);
  EXPECT_EQ(input->worstOverflowStep, 3);
  EXPECT_DOUBLE_EQ(input->worstOverflowShare, 0.007);
  EXPECT_EQ(find(a, "fc1", "weight", "run:fp8-delayed")->verdict, Verdict::Ok);
  ASSERT_EQ(a.plan.size(), 1u);
  EXPECT_EQ(a.plan[0].mode, "bf16-amp");
  EXPECT_TRUE(a.plan[0].keptHigher);
}

// Current scaling puts a tensor's amax at E4M3's 448; the float32 product amax x (448 / amax) can land an
// ulp above 448, and the engine counts that value as saturated, but it rounds to 448 (everything up to 464
// does): no overflow. An amax scaled to 470 (> 464) would round beyond the max: overflow.
TEST(PrecisionAdvice, ASaturatedAmaxThatRoundsToTheMaxIsNoOverflow) {
  for (const auto& [top, expected] : std::vector<std::pair<float, Verdict>>{{448.00003f, Verdict::Ok},
                                                                           {464.0f, Verdict::Ok},
                                                                           {470.0f, Verdict::Unsafe}}) {
    AdviceBuilder builder(PrecisionMode::FP32, AdviceThresholds{});
    for (int s = 1; s <= 5; ++s) {
      ModeStep q;
      q.mode = PrecisionMode::Fp8Current;
      q.step = s;
      QuantTensorStats t;
      t.name = "fc1.weight";
      t.layer = "fc1";
      t.numel = 1000;
      t.measured = true;
      t.scaling = ScalingKind::Current;
      t.format = QuantFormat::E4M3;
      t.amax = 2.0;
      t.scale = top / 2.0f;  // exact: a power-of-two division
      t.saturated = 1;
      q.quantized.push_back(t);
      builder.add(q);
    }
    const PrecisionAdvice a = builder.finish(RunIdentity{}, "auto");
    const FormatEvidence* e = find(a, "fc1", "weight", "run:fp8-current");
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->verdict, expected) << top << ": " << e->reason;
  }
}

PrecisionPlan samplePlan() {
  PrecisionPlan p;
  p.source = RunIdentity{"runs/a b.jsonl", "probe-stream", "my-run", "5f0c2a9e1b7d4c3a", "fp32", 1, 200, 20};
  p.target = "fp8-current";
  p.thresholds.minSteps = 7;
  p.thresholds.unsafeFlushShare = 0.02;
  p.thresholds.sqnrMarginDb = 9.5;
  p.layers = {{"fc1", "fp8-current", false, "fp8-current holds activation"},
              {"head", "bf16-amp", true, "fp8-current unsafe: \"quoted\" reason"}};
  return p;
}

TEST(PrecisionPlan, RoundTrip) {
  const PrecisionPlan p = samplePlan();
  const std::string text = encodePrecisionPlan(p);
  std::string error;
  const auto back = decodePrecisionPlan(text, &error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(back->source.file, p.source.file);
  EXPECT_EQ(back->source.kind, p.source.kind);
  EXPECT_EQ(back->source.runId, p.source.runId);
  EXPECT_EQ(back->source.instrumentedSteps, 20);
  EXPECT_EQ(back->target, "fp8-current");
  EXPECT_EQ(back->thresholds.minSteps, 7);
  EXPECT_EQ(back->thresholds.unsafeFlushShare, 0.02);
  EXPECT_EQ(back->thresholds.sqnrMarginDb, 9.5);
  ASSERT_EQ(back->layers.size(), 2u);
  EXPECT_EQ(back->layers[1].layer, "head");
  EXPECT_EQ(back->layers[1].mode, "bf16-amp");
  EXPECT_TRUE(back->layers[1].keptHigher);
  EXPECT_EQ(back->layers[1].reason, p.layers[1].reason);
  EXPECT_EQ(encodePrecisionPlan(*back), text);  // and the bytes again
}

TEST(PrecisionPlan, BadFilesNameTheField) {
  const std::string good = encodePrecisionPlan(samplePlan());
  const auto errorOf = [](const std::string& text) {
    std::string error;
    EXPECT_FALSE(decodePrecisionPlan(text, &error)) << text;
    return error;
  };
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  EXPECT_NE(errorOf("").find("not JSON"), std::string::npos);
  EXPECT_NE(errorOf(replaced("ampscope-precision-plan", "ampscope-session")).find("format"), std::string::npos);
  const std::string newer = errorOf(replaced("\"version\": 1", "\"version\": 9"));
  EXPECT_NE(newer.find("version 9"), std::string::npos) << newer;
  EXPECT_NE(newer.find("(1)"), std::string::npos) << newer;
  EXPECT_NE(errorOf(replaced("\"mode\": \"bf16-amp\"", "\"mode\": \"fp9\"")).find("layers[1].mode"), std::string::npos);
  EXPECT_NE(errorOf(replaced("\"layer\": \"head\"", "\"layer\": \"fc1\"")).find("named twice"), std::string::npos);
  EXPECT_NE(errorOf(replaced("\"target\"", "\"colour\": 1, \"target\"")).find("colour"), std::string::npos);
  EXPECT_NE(errorOf(replaced("\"unsafe-flush-share\": 0.02", "\"unsafe-flush-share\": 2"))
                .find("thresholds.unsafe-flush-share"),
            std::string::npos);
}

}  // namespace
}  // namespace ampscope
