// Lesson claims: the parser names every bad field, and the evaluator's states follow hand-made records
// whose expected readings are worked out here from the definitions in lesson_claim.h (means of plain
// numbers, shares of counts), so each test fails if a measure or a state transition changes.
#include <gtest/gtest.h>

#include <string>

#include "ampscope/engine/lesson_claim.h"
#include "ampscope/engine/lesson_claim_evaluator.h"

namespace ampscope {
namespace {

ClaimSpec parse(const std::string& text) {
  JsonParseError jsonError;
  const auto json = parseJson(text, &jsonError);
  EXPECT_TRUE(json) << jsonError.message;
  ClaimParseError error;
  const auto spec = parseLessonClaim(*json, "callouts[3].claim", &error);
  EXPECT_TRUE(spec) << error.field << ": " << error.message;
  return spec ? *spec : ClaimSpec{};
}

ClaimParseError parseError(const std::string& text) {
  JsonParseError jsonError;
  const auto json = parseJson(text, &jsonError);
  EXPECT_TRUE(json) << jsonError.message;
  ClaimParseError error;
  EXPECT_FALSE(parseLessonClaim(*json, "callouts[3].claim", &error)) << text;
  return error;
}

ModeStep modeStep(PrecisionMode mode, int64_t step, double loss) {
  ModeStep m;
  m.mode = mode;
  m.step = step;
  m.loss = loss;
  return m;
}

StepRecord record(int64_t step, std::vector<ModeStep> modes) {
  StepRecord r;
  r.step = step;
  r.modes = std::move(modes);
  return r;
}

TEST(LessonClaimParse, ReadsAnAtomWithEveryKey) {
  const ClaimSpec spec = parse(
      R"({"measure": "loss-gap", "mode": "fp16-pure", "over": "fp32", "window": 5, "at-least": 0.2,
          "below": 3, "steps": [10, 20], "by-step": 30, "variants": ["a", "b"]})");
  EXPECT_EQ(spec.measure, ClaimMeasure::LossGap);
  EXPECT_EQ(spec.mode, PrecisionMode::FP16Pure);
  EXPECT_EQ(spec.over, PrecisionMode::FP32);
  EXPECT_EQ(spec.window, 5);
  EXPECT_EQ(spec.bounds.atLeast, 0.2);
  EXPECT_EQ(spec.bounds.below, 3.0);
  EXPECT_EQ(spec.fromStep, 10);
  EXPECT_EQ(spec.toStep, 20);
  EXPECT_EQ(spec.byStep, 30);
  EXPECT_EQ(spec.variants, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(claimModes(spec), (std::vector<PrecisionMode>{PrecisionMode::FP16Pure, PrecisionMode::FP32}));
}

TEST(LessonClaimParse, AllOfNestsAndListsItsAtomsInOrder) {
  const ClaimSpec spec = parse(R"({"all-of": [{"measure": "steps", "mode": "every", "at-least": 1},
      {"all-of": [{"measure": "flushed-to-zero", "mode": "fp16-amp", "above": 0},
                  {"measure": "flushed-to-zero", "mode": "bf16-amp", "at-most": 0}]}], "by-step": 50})");
  ASSERT_TRUE(spec.isAllOf());
  const auto atoms = claimAtoms(spec);
  ASSERT_EQ(atoms.size(), 3u);
  EXPECT_FALSE(atoms[0]->mode.has_value());  // "every"
  EXPECT_EQ(atoms[2]->mode, PrecisionMode::BF16Amp);
  EXPECT_EQ(spec.byStep, 50);
}

TEST(LessonClaimParse, EveryBadFieldIsNamed) {
  struct Case {
    const char* json;
    const char* field;
    const char* words;
  };
  const Case cases[] = {
      {R"({"measure": "loss", "mode": "fp32", "at-least": "x"})", "callouts[3].claim.at-least", "finite number"},
      {R"({"measure": "loss", "mode": "fp32", "at-lest": 1})", "callouts[3].claim.at-lest", "unknown key"},
      {R"({"measure": "lost", "mode": "fp32", "at-least": 1})", "callouts[3].claim.measure", "unknown measure 'lost'"},
      {R"({"measure": "loss", "mode": "fp17", "at-least": 1})", "callouts[3].claim.mode", "unknown precision mode"},
      {R"({"measure": "loss", "at-least": 1})", "callouts[3].claim.mode", "missing"},
      {R"({"measure": "loss", "mode": "fp32"})", "callouts[3].claim", "give a bound"},
      {R"({"measure": "loss-gap", "mode": "fp32", "at-least": 1})", "callouts[3].claim.over", "missing"},
      {R"({"measure": "loss-gap", "mode": "fp32", "over": "fp32", "at-least": 1})", "callouts[3].claim.over",
       "another mode"},
      {R"({"measure": "loss", "mode": "fp32", "over": "fp16-amp", "at-least": 1})", "callouts[3].claim.over",
       "compares no two modes"},
      {R"({"measure": "loss", "mode": "fp32", "window": 0, "at-least": 1})", "callouts[3].claim.window", "[1, 10000]"},
      {R"({"measure": "loss-scale", "mode": "fp32", "window": 3, "at-least": 1})", "callouts[3].claim.window",
       "not a window"},
      {R"({"measure": "saturated-share", "mode": "fp8-delayed", "above": 0.9})", "callouts[3].claim.tensor",
       "missing"},
      {R"({"measure": "scale-log2", "mode": "fp8-delayed", "tensor": "gradients", "above": 0.9})",
       "callouts[3].claim.tensor", "name the tensor"},
      {R"({"measure": "loss", "mode": "fp32", "at-least": 2, "at-most": 1})", "callouts[3].claim.at-most",
       "no value lies within"},
      {R"({"measure": "loss", "mode": "fp32", "above": 1, "below": 1})", "callouts[3].claim.below",
       "no value lies within"},
      {R"({"measure": "loss", "mode": "fp32", "at-least": 1, "above": 0})", "callouts[3].claim.above", "not both"},
      {R"({"measure": "loss", "mode": "fp32", "at-least": 1, "at-step": 0})", "callouts[3].claim.at-step", ">= 1"},
      {R"({"measure": "loss", "mode": "fp32", "at-least": 1, "steps": [5, 4]})", "callouts[3].claim.steps[1]",
       "before the first"},
      {R"({"measure": "loss", "mode": "fp32", "at-least": 1, "steps": [5]})", "callouts[3].claim.steps",
       "[first, last]"},
      {R"({"all-of": [{"measure": "loss", "mode": "fp32", "at-least": 1}]})", "callouts[3].claim.all-of",
       "at least two"},
      {R"({"all-of": [{"measure": "loss", "mode": "fp32", "at-least": 1},
                      {"measure": "loss", "mode": "fp32", "at-least": 1, "by-step": 3}]})",
       "callouts[3].claim.all-of[1].by-step", "outermost"},
      {R"({"measure": "loss", "mode": "fp32", "at-least": 1, "variants": []})", "callouts[3].claim.variants",
       "at least one"},
      {R"({"measure": "loss-gap", "mode": "every", "over": "fp32", "at-least": 1})", "callouts[3].claim.mode",
       "one mode"},
  };
  for (const Case& c : cases) {
    const ClaimParseError error = parseError(c.json);
    EXPECT_EQ(error.field, c.field) << c.json;
    EXPECT_NE(error.message.find(c.words), std::string::npos) << c.json << " -> " << error.message;
  }
}

// fp16-pure's losses 12, 12, 12 against fp32's 10, 10, 10 over a window of 3: gap (12 - 10) / 10 = 0.2.
TEST(LessonClaimEvaluator, LossGapWaitsForTheWindowThenHoldsThenStopsHolding) {
  LessonClaimEvaluator evaluator(
      parse(R"({"measure": "loss-gap", "mode": "fp16-pure", "over": "fp32", "window": 3, "at-least": 0.2})"));
  const double pure[] = {12, 12, 12, 12, 16};
  for (int64_t step = 1; step <= 3; ++step) {
    EXPECT_EQ(evaluator.state().status, ClaimStatus::Waiting);
    evaluator.observe(record(step, {modeStep(PrecisionMode::FP32, step, 10),
                                    modeStep(PrecisionMode::FP16Pure, step, pure[step - 1])}));
  }
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Holds);
  EXPECT_EQ(evaluator.state().since, 3);
  ASSERT_EQ(evaluator.state().readings.size(), 1u);
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[0].value, 0.2);
  EXPECT_EQ(evaluator.state().readings[0].mode, PrecisionMode::FP16Pure);
  // fp16-pure now 8: mean of (12, 12, 8) = 32/3, gap 0.0667 < 0.2.
  evaluator.observe(record(4, {modeStep(PrecisionMode::FP32, 4, 10), modeStep(PrecisionMode::FP16Pure, 4, 8)}));
  EXPECT_EQ(evaluator.state().status, ClaimStatus::HeldBefore);
  EXPECT_EQ(evaluator.state().since, 3);
  EXPECT_EQ(evaluator.state().until, 3);
  EXPECT_NEAR(*evaluator.state().readings[0].value, (32.0 / 3 - 10) / 10, 1e-15);
  // Back above: (12, 8, 16) = 12, gap 0.2 again: holds since 5.
  evaluator.observe(record(5, {modeStep(PrecisionMode::FP32, 5, 10), modeStep(PrecisionMode::FP16Pure, 5, 16)}));
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Holds);
  EXPECT_EQ(evaluator.state().since, 5);
  evaluator.finish();
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Holds);
}

TEST(LessonClaimEvaluator, WaitingAtTheEndOrPastTheDeadlineDoesNotHold) {
  LessonClaimEvaluator ended(parse(R"({"measure": "steps", "mode": "fp32", "at-least": 3})"));
  ended.observe(record(1, {modeStep(PrecisionMode::FP32, 1, 1)}));
  EXPECT_EQ(ended.state().status, ClaimStatus::Waiting);
  EXPECT_DOUBLE_EQ(*ended.state().readings[0].value, 1);
  ended.finish();
  EXPECT_EQ(ended.state().status, ClaimStatus::Fails);

  LessonClaimEvaluator late(parse(R"({"measure": "steps", "mode": "fp32", "at-least": 3, "by-step": 2})"));
  late.observe(record(1, {modeStep(PrecisionMode::FP32, 1, 1)}));
  late.observe(record(2, {modeStep(PrecisionMode::FP32, 2, 1)}));
  EXPECT_EQ(late.state().status, ClaimStatus::Fails);
  late.observe(record(3, {modeStep(PrecisionMode::FP32, 3, 1)}));  // it would hold now: too late
  EXPECT_EQ(late.state().status, ClaimStatus::Fails);
}

TEST(LessonClaimEvaluator, EveryModeMustReachTheStep) {
  LessonClaimEvaluator evaluator(parse(R"({"measure": "steps", "mode": "every", "at-least": 2})"));
  evaluator.observe(record(1, {modeStep(PrecisionMode::FP32, 1, 1), modeStep(PrecisionMode::BF16Amp, 1, 1)}));
  // bf16-amp stopped (diverged): only fp32 reaches step 2, and bf16-amp's 1 is what is shown.
  evaluator.observe(record(2, {modeStep(PrecisionMode::FP32, 2, 1)}));
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Waiting);
  EXPECT_EQ(evaluator.state().readings[0].mode, PrecisionMode::BF16Amp);
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[0].value, 1);
}

// Losses 10 x4 then 4 x2 over a window of 2: first mean 10, last mean 4: drop 6. fp16-pure: 10, 10, 10, 10,
// 7, 7: drop 3, ratio 3 / 6 = 0.5.
TEST(LessonClaimEvaluator, DropRatioAndAllOfCombineTwoAtoms) {
  LessonClaimEvaluator evaluator(parse(R"({"all-of": [
      {"measure": "drop-ratio", "mode": "fp16-pure", "over": "fp32", "window": 2, "below": 0.6},
      {"measure": "loss-drop", "mode": "fp32", "window": 2, "at-least": 5}]})"));
  const double fp32[] = {10, 10, 10, 10, 4, 4};
  const double pure[] = {10, 10, 10, 10, 7, 7};
  for (int64_t step = 1; step <= 6; ++step)
    evaluator.observe(record(step, {modeStep(PrecisionMode::FP32, step, fp32[step - 1]),
                                    modeStep(PrecisionMode::FP16Pure, step, pure[step - 1])}));
  // Step 5: fp32's last two (10, 4) mean 7, drop 3 < 5 (ratio 1.5 / 3 = 0.5 already); step 6: drop 6.
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Holds);
  EXPECT_EQ(evaluator.state().since, 6);
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[0].value, 0.5);
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[1].value, 6);
}

TEST(LessonClaimEvaluator, SkippedStepsAndTheScaleGrowingAgain) {
  LessonClaimEvaluator regrown(parse(R"({"measure": "scale-regrowths", "mode": "fp16-amp-scaled", "at-least": 1})"));
  LessonClaimEvaluator skipped(parse(R"({"measure": "skipped-steps", "mode": "fp16-amp-scaled", "at-least": 1})"));
  // Scales 4, 8 (skipped), 4, 4, 8: the growth at step 5 follows the backoff.
  const double scales[] = {4, 8, 4, 4, 8};
  for (int64_t step = 1; step <= 5; ++step) {
    ModeStep m = modeStep(PrecisionMode::FP16AmpScaled, step, 1);
    m.lossScale = scales[step - 1];
    m.skipped = step == 2;
    regrown.observe(record(step, {m}));
    skipped.observe(record(step, {m}));
    if (step == 2) {
      EXPECT_EQ(regrown.state().status, ClaimStatus::Waiting) << "the growth at step 2 was before any skip";
    }
  }
  EXPECT_EQ(skipped.state().since, 2);
  EXPECT_EQ(regrown.state().status, ClaimStatus::Holds);
  EXPECT_EQ(regrown.state().since, 5);
}

QuantTensorStats quant(const std::string& name, bool backward, int64_t numel, int64_t saturated, int64_t flushed) {
  QuantTensorStats q;
  q.name = name;
  q.backward = backward;
  q.numel = numel;
  q.saturated = saturated;
  q.flushed = flushed;
  q.measured = true;
  q.scale = 128;
  return q;
}

// Shares of counts: fc1.input 99 of 100 saturated at step 100; the forward operands 99 of 100 + 0 of 300.
TEST(LessonClaimEvaluator, AtStepReadsOnlyThatStepAndSelectorsSumTheirTensors) {
  LessonClaimEvaluator named(parse(
      R"({"measure": "saturated-share", "mode": "fp8-delayed", "tensor": "fc1.input", "above": 0.9, "at-step": 2})"));
  LessonClaimEvaluator forward(parse(
      R"({"measure": "saturated-share", "mode": "fp8-delayed", "tensor": "forward-operands", "at-least": 0.2475,
          "at-most": 0.2475, "at-step": 2})"));
  LessonClaimEvaluator scale(parse(
      R"({"measure": "scale-log2", "mode": "fp8-delayed", "tensor": "fc1.input", "at-least": 7, "at-most": 7})"));
  for (int64_t step = 1; step <= 3; ++step) {
    ModeStep m = modeStep(PrecisionMode::Fp8Delayed, step, 1);
    m.quantized = {quant("fc1.input", false, 100, step == 2 ? 99 : 0, 0), quant("fc1.weight", false, 300, 0, 0),
                   quant("fc1.grad_output", true, 50, 50, 0)};
    named.observe(record(step, {m}));
    forward.observe(record(step, {m}));
    scale.observe(record(step, {m}));
    if (step == 1) {
      EXPECT_EQ(named.state().status, ClaimStatus::Waiting);
    }
  }
  EXPECT_EQ(named.state().status, ClaimStatus::Holds) << "decided at step 2, not undone by step 3's 0";
  EXPECT_EQ(named.state().since, 2);
  EXPECT_DOUBLE_EQ(*named.state().readings[0].value, 0.99);
  EXPECT_EQ(named.state().readings[0].step, 2);
  EXPECT_EQ(forward.state().status, ClaimStatus::Holds);
  EXPECT_EQ(scale.state().since, 1);  // log2(128) = 7, every step
}

TEST(LessonClaimEvaluator, ARangeFailsAtItsFirstFailingMeasuredStep) {
  LessonClaimEvaluator evaluator(parse(
      R"({"measure": "flushed-share", "mode": "fp8-delayed", "tensor": "fc1.input", "above": 0, "steps": [2, 4]})"));
  for (int64_t step = 1; step <= 4; ++step) {
    ModeStep m = modeStep(PrecisionMode::Fp8Delayed, step, 1);
    m.quantized = {quant("fc1.input", false, 10, 0, step == 3 ? 0 : 1)};
    evaluator.observe(record(step, {m}));
  }
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Fails);
  EXPECT_EQ(evaluator.state().readings[0].step, 3);
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[0].value, 0);
}

TEST(LessonClaimEvaluator, InstrumentedMeasuresWaitForInstrumentedSteps) {
  LessonClaimEvaluator evaluator(parse(R"({"all-of": [
      {"measure": "flushed-to-zero", "mode": "fp16-amp", "above": 0},
      {"measure": "zero-gradient-share", "mode": "fp16-amp", "at-least": 0.75}]})"));
  ModeStep plain = modeStep(PrecisionMode::FP16Amp, 1, 1);
  evaluator.observe(record(1, {plain}));
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Waiting);
  EXPECT_FALSE(evaluator.state().readings[0].value.has_value());
  ModeStep measured = modeStep(PrecisionMode::FP16Amp, 2, 1);
  measured.instrumented = true;
  measured.rounding.flushedToZero = 5;
  TensorStats gradient;
  gradient.numel = 4;
  gradient.unscaled.zero = 3;  // 3 of 4 exactly zero: 0.75
  TensorStats activation;      // not a parameter's gradient: not counted
  activation.isParameter = false;
  activation.numel = 100;
  measured.tensors = {gradient, activation};
  evaluator.observe(record(2, {measured}));
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Holds);
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[1].value, 0.75);
}

TEST(LessonClaimEvaluator, ClipRatioAndOutOfOrderRecordsIgnored) {
  LessonClaimEvaluator evaluator(parse(R"({"measure": "clip-norm-ratio", "mode": "fp16-amp-scaled", "at-least": 1000})"));
  ModeStep m = modeStep(PrecisionMode::FP16AmpScaled, 2, 1);
  m.clipNormSeen = 65536 * 1.5;
  m.gradNormBeforeClip = 1.5;
  evaluator.observe(record(2, {m}));
  EXPECT_DOUBLE_EQ(*evaluator.state().readings[0].value, 65536);
  m.clipNormSeen = 1.5;
  evaluator.observe(record(1, {m}));  // not after step 2: ignored
  EXPECT_EQ(evaluator.state().status, ClaimStatus::Holds);
}

}  // namespace
}  // namespace ampscope
