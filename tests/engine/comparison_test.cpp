// Comparison (public API): lock-step modes, determinism, telemetry contents, divergence handling,
// the op-dtype report and the memory ledger, and the underflow phenomenon produced by training.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "ampscope/engine/comparison.h"
#include "torch_compat.h"

namespace ampscope {
namespace {

const ModeStep* find(const StepRecord& record, PrecisionMode mode) {
  for (const auto& m : record.modes) {
    if (m.mode == mode) return &m;
  }
  return nullptr;
}

TEST(Comparison, Fp32RunIsDeterministicBySeed) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32};
  Comparison a(config);
  Comparison b(config);
  config.seed = 1;
  Comparison c(config);
  bool anyDifferent = false;
  for (int i = 0; i < 5; ++i) {
    const double la = a.step().modes[0].loss;
    EXPECT_EQ(la, b.step().modes[0].loss);  // bit-identical
    anyDifferent |= la != c.step().modes[0].loss;
  }
  EXPECT_TRUE(anyDifferent);
}

TEST(Comparison, ModesShareInitialWeightsAndBatches) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp};
  Comparison a(config);
  config.modes = {PrecisionMode::FP16Amp};
  Comparison b(config);
  const auto pa = a.initialParameters();
  const auto pb = b.initialParameters();
  ASSERT_EQ(pa.size(), pb.size());
  for (size_t i = 0; i < pa.size(); ++i) {
    EXPECT_EQ(pa[i].name, pb[i].name);
    EXPECT_EQ(pa[i].values, pb[i].values);
  }
  EXPECT_EQ(a.batch(3)[0].values, b.batch(3)[0].values);
  EXPECT_EQ(a.batch(3)[1].intValues, b.batch(3)[1].intValues);
  EXPECT_NE(a.batch(3)[0].values, a.batch(4)[0].values);
  EXPECT_EQ(a.batch(1)[0].shape, (std::vector<int64_t>{32, 128}));
  // Same weights and same batch: the step-1 losses agree to low-precision accuracy.
  const StepRecord first = a.step();
  EXPECT_NEAR(first.modes[0].loss, first.modes[1].loss, 0.02);
  EXPECT_NEAR(first.modes[0].loss, b.step().modes[0].loss, 0.01);
}

// The chapter, section 6: the first step of the chapter's FP16 run reports "Current scale: 65536.0".
TEST(Comparison, ChapterTinyMlpFirstScaledStepUsesScale65536) {
  Comparison comparison(presetFor(ModelKind::TinyMLP));
  const StepRecord record = comparison.step();
  const ModeStep* scaled = find(record, PrecisionMode::FP16AmpScaled);
  ASSERT_NE(scaled, nullptr);
  EXPECT_EQ(scaled->lossScale, 65536.0);
  EXPECT_EQ(find(record, PrecisionMode::FP32)->lossScale, 1.0);
}

// The chapter, section 4: under CPU autocast the chapter's TinyMLP gives bfloat16 logits and a float32 loss;
// linear runs in bfloat16, cross_entropy in float32.
TEST(Comparison, OpDtypeReportOfTinyMlpUnderBf16Autocast) {
  Comparison comparison(presetFor(ModelKind::TinyMLP));
  const auto report = comparison.opDtypeReport(PrecisionMode::BF16Amp);
  auto entry = [&](const std::string& op, const std::string& where) {
    const auto it = std::find_if(report.begin(), report.end(), [&](const OpDtypeEntry& e) {
      return e.op == op && e.where == where;
    });
    EXPECT_NE(it, report.end()) << op << " " << where;
    return it == report.end() ? OpDtypeEntry{} : *it;
  };
  EXPECT_EQ(entry("linear", "fc1").inputDtype, "float32");
  EXPECT_EQ(entry("linear", "fc1").outputDtype, "bfloat16");
  EXPECT_EQ(entry("linear", "fc2").outputDtype, "bfloat16");
  EXPECT_EQ(entry("cross_entropy", "loss").outputDtype, "float32");
  EXPECT_EQ(entry("tensor", "logits").outputDtype, "bfloat16");
  EXPECT_EQ(entry("tensor", "loss").outputDtype, "float32");
  EXPECT_FALSE(entry("linear", "fc1").emulated);

  const auto fp16 = Comparison(presetFor(ModelKind::TinyMLP)).opDtypeReport(PrecisionMode::FP16AmpScaled);
  const auto linear = std::find_if(fp16.begin(), fp16.end(), [](const OpDtypeEntry& e) {
    return e.op == "linear";
  });
  ASSERT_NE(linear, fp16.end());
  EXPECT_EQ(linear->outputDtype, "float16");
  // LibTorch 1.13's CPU autocast takes bfloat16 only, so FP16 autocast is emulated there; PyTorch 2.2
  // added float16 to CPU autocast (pytorch/pytorch#112484, torch.autocast's documentation), and there
  // the linear runs natively in float16.
  EXPECT_EQ(linear->emulated, !AMPSCOPE_TORCH_AT_LEAST(2, 2));
}

TEST(Comparison, InstrumentedStepsCarryHistogramsThatSumToNumel) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.instrumentEvery = 3;
  Comparison comparison(config);
  const StepRecord first = comparison.step();
  for (const auto& mode : first.modes) {
    EXPECT_TRUE(mode.instrumented);
    int parameters = 0;
    for (const auto& t : mode.tensors) {
      EXPECT_EQ(t.scaled.total(), t.numel) << t.name;
      EXPECT_EQ(t.unscaled.total(), t.numel) << t.name;
      parameters += t.isParameter ? 1 : 0;
    }
    EXPECT_EQ(parameters, 4);
    EXPECT_GT(mode.tensors.size(), 4u);  // plus activation-gradient taps
  }
  const ModeStep* scaled = find(first, PrecisionMode::FP16AmpScaled);
  EXPECT_FALSE(scaled->roundingPoints.empty());
  EXPECT_GT(scaled->rounding.elements, 0);
  // Scaled and unscaled differ by exactly 16 binary exponents for a 2^16 scale.
  const TensorStats& w = scaled->tensors.front();
  for (int e = -100; e < 100; ++e) EXPECT_EQ(w.scaled.countAt(e), w.unscaled.countAt(e - 16)) << e;
  EXPECT_FALSE(comparison.step().modes[0].instrumented);  // step 2
  comparison.step();
  EXPECT_TRUE(comparison.step().modes[0].instrumented == false);  // step 4
}

// A mode without a scaler that gets an inf gradient steps into NaN weights and is marked diverged;
// the scaled mode skips that step, halves its scale, and both it and the comparison go on.
TEST(Comparison, InjectedOverflowDivergesScalerlessModeAndOthersGoOn) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
  Comparison comparison(config);
  comparison.step();
  comparison.injectOverflowNextStep();
  const StepRecord second = comparison.step();
  ASSERT_EQ(second.modes.size(), 3u);
  EXPECT_TRUE(find(second, PrecisionMode::FP32)->diverged);
  EXPECT_TRUE(find(second, PrecisionMode::FP32)->foundInf);
  EXPECT_TRUE(find(second, PrecisionMode::BF16Amp)->diverged);
  const ModeStep* scaled = find(second, PrecisionMode::FP16AmpScaled);
  EXPECT_TRUE(scaled->skipped);
  EXPECT_TRUE(scaled->foundInf);
  EXPECT_FALSE(scaled->diverged);
  EXPECT_FALSE(comparison.allDiverged());
  const StepRecord third = comparison.step();
  ASSERT_EQ(third.modes.size(), 1u);
  EXPECT_EQ(third.modes[0].mode, PrecisionMode::FP16AmpScaled);
  EXPECT_EQ(third.modes[0].lossScale, 32768.0);  // backoff 0.5
  EXPECT_TRUE(std::isfinite(third.modes[0].loss));
}

// The chapter, section 8, and torch.amp.GradScaler's documented unscale_: clip after unscale_ and
// max_norm bounds the true gradient norm; clip the scaled gradients (the wrong order) and the clip
// sees a norm 65536 times too large, so the true gradients shrink to about max_norm / 65536.
TEST(Comparison, ClipOrderDecidesWhichNormTheClipSees) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP16AmpScaled};
  config.clipMaxNorm = 0.5;
  config.clipOrder = ClipOrder::AfterUnscale;
  const ModeStep right = Comparison(config).step().modes[0];
  config.clipOrder = ClipOrder::BeforeUnscale;
  const ModeStep wrong = Comparison(config).step().modes[0];
  ASSERT_GT(right.gradNormBeforeClip, 0.5);  // the clip has work to do
  EXPECT_EQ(right.clipNormSeen, right.gradNormBeforeClip);
  EXPECT_LE(right.gradNormAfterClip, 0.5 * (1 + 1e-6));
  EXPECT_NEAR(wrong.gradNormBeforeClip, right.gradNormBeforeClip, 1e-3 * right.gradNormBeforeClip);
  EXPECT_NEAR(wrong.clipNormSeen, 65536.0 * wrong.gradNormBeforeClip, 1e-3 * wrong.clipNormSeen);
  EXPECT_NEAR(wrong.gradNormAfterClip, 0.5 / 65536.0, 1e-3 * 0.5 / 65536.0);
}

TEST(Comparison, MemoryLedgerCountsParametersGradientsAndAdamState) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Pure};
  Comparison comparison(config);
  comparison.step();
  const MemoryLedger ledger = comparison.memoryLedger(PrecisionMode::FP32);
  const int64_t parameterBytes = 4 * (128 * 512 + 512 + 512 * 10 + 10);  // float32 TinyMLP
  EXPECT_EQ(ledger.parameters, parameterBytes);
  EXPECT_EQ(ledger.gradients, parameterBytes);
  EXPECT_EQ(ledger.optimizerState, 2 * parameterBytes);  // AdamW: exp_avg and exp_avg_sq
  EXPECT_GT(ledger.activations, 32 * 512 * 4);           // at least the hidden layer of a batch
  EXPECT_GE(ledger.peak, ledger.parameters + ledger.gradients + ledger.optimizerState);
  EXPECT_EQ(comparison.memoryLedger(PrecisionMode::BF16Pure).parameters, parameterBytes / 2);
}

TEST(Comparison, ValidateNamesEveryBadField) {
  RunConfig config;
  config.lr = std::nan("");
  config.batchSize = 0;
  config.steps = 0;
  config.scaler.growthFactor = 1.0;
  config.scaler.backoffFactor = 1.5;
  config.modes.clear();
  config.instrumentEvery = 0;
  std::vector<std::string> fields;
  for (const auto& e : validate(config)) fields.push_back(e.field);
  // Full keys of the schema (config_schema.h): the scaler's settings are nested.
  for (const char* f : {"lr", "batch", "steps", "scaler.growth-factor", "scaler.backoff-factor", "modes",
                        "instrument-every"}) {
    EXPECT_NE(std::find(fields.begin(), fields.end(), f), fields.end()) << f;
  }
  EXPECT_TRUE(validate(presetFor(ModelKind::DeepMLP)).empty());
  EXPECT_THROW(Comparison{config}, std::invalid_argument);
}

TEST(Comparison, TinyTransformerTrainsInEveryMode) {
  RunConfig config = presetFor(ModelKind::TinyTransformer);
  config.modes = allPrecisionModes();
  Comparison comparison(config);
  const StepRecord first = comparison.step();
  ASSERT_EQ(first.modes.size(), allPrecisionModes().size());
  for (const auto& m : first.modes) {
    // 13 symbols: an untrained model is near ln 13 = 2.565.
    EXPECT_NEAR(m.loss, std::log(13.0), 0.4) << modeName(m.mode);
  }
  double firstFp32 = first.modes[0].loss;
  double lastFp32 = firstFp32;
  for (int i = 0; i < 40; ++i) lastFp32 = comparison.step().modes[0].loss;
  EXPECT_LT(lastFp32, firstFp32 - 0.3);
}

// The headline AmpScope exists to show: on the deep-MLP preset (loss weight 1e-5), FP16 without a
// scaler loses nearly every gradient to underflow and its loss stays near ln 10, while FP16 with a
// scaler and BF16 track FP32. Produced by training, not by decree.
TEST(Comparison, DeepMlpFp16WithoutScalerUnderflowsWhileScaledAndBf16TrackFp32) {
  RunConfig config = presetFor(ModelKind::DeepMLP);
  ASSERT_EQ(config.lossWeight, 1e-5);
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16AmpScaled,
                  PrecisionMode::BF16Amp};
  config.instrumentEvery = 25;
  Comparison comparison(config);
  std::map<PrecisionMode, double> tailLoss;
  std::map<PrecisionMode, double> zeroShare;
  const int steps = 150;
  const int tail = 20;
  for (int i = 1; i <= steps; ++i) {
    for (const auto& m : comparison.step().modes) {
      ASSERT_FALSE(m.diverged) << modeName(m.mode);
      if (i > steps - tail) tailLoss[m.mode] += m.loss / tail;
      if (m.instrumented) {
        int64_t zero = 0;
        int64_t total = 0;
        for (const auto& t : m.tensors) {
          if (t.isParameter) {
            zero += t.unscaled.zero;
            total += t.numel;
          }
        }
        zeroShare[m.mode] = static_cast<double>(zero) / static_cast<double>(total);
      }
    }
  }
  const double fp32 = tailLoss[PrecisionMode::FP32];
  EXPECT_LT(fp32, 1.2);
  EXPECT_GT(tailLoss[PrecisionMode::FP16Amp], fp32 + 1.0);
  EXPECT_GT(tailLoss[PrecisionMode::FP16Amp], 2.0);
  EXPECT_NEAR(tailLoss[PrecisionMode::FP16AmpScaled], fp32, 0.05);
  EXPECT_NEAR(tailLoss[PrecisionMode::BF16Amp], fp32, 0.1);
  EXPECT_GT(zeroShare[PrecisionMode::FP16Amp], 0.9);
  EXPECT_LT(zeroShare[PrecisionMode::FP16AmpScaled], 0.01);
  EXPECT_LT(zeroShare[PrecisionMode::BF16Amp], 0.01);
}

}  // namespace
}  // namespace ampscope

namespace ampscope {
namespace {

// rounding-cost on: the FP32 lane's gradients and activation gradients carry the six formats' costs on
// instrumented steps, and for FP16 and BF16 (no scale) the costs' flushed, subnormal and overflowed counts
// are the histogram's range counts, computed by another path (exponent_histogram_builder) from the same
// values; the low-precision lane and a run without the switch carry none.
TEST(Comparison, RoundingCostOfTheFp32LaneAgreesWithItsRangeCounts) {
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::TinyTransformer}) {
    RunConfig config = presetFor(model);
    config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp};
    config.roundingCost = true;
    Comparison comparison(config);
    const StepRecord record = comparison.step();
    int costed = 0;
    for (const ModeStep& step : record.modes) {
      for (const TensorStats& t : step.tensors) {
        if (step.mode != PrecisionMode::FP32) {
          EXPECT_TRUE(t.roundingCost.empty()) << t.name;
          continue;
        }
        ASSERT_EQ(t.roundingCost.size(), 6u) << t.name;
        ++costed;
        const ExponentHistogram& h = t.unscaled;
        EXPECT_EQ(t.roundingCost[0].format, "fp16");
        EXPECT_EQ(t.roundingCost[0].elements, t.numel - h.posInf - h.negInf - h.nan) << t.name;
        for (int f : {0, 1}) {  // fp16, bf16: RangeFormat FP16, BF16
          const FormatRangeCounts& range = h.formats[static_cast<size_t>(f)];
          EXPECT_EQ(t.roundingCost[static_cast<size_t>(f)].flushed, range.flushed) << t.name << " " << f;
          EXPECT_EQ(t.roundingCost[static_cast<size_t>(f)].subnormal, range.subnormal) << t.name << " " << f;
          EXPECT_EQ(t.roundingCost[static_cast<size_t>(f)].overflowed, range.overflowed) << t.name << " " << f;
        }
      }
    }
    EXPECT_GT(costed, 3) << modelName(model);
  }
  RunConfig off = presetFor(ModelKind::TinyMLP);
  off.modes = {PrecisionMode::FP32};
  Comparison comparison(off);
  const StepRecord record = comparison.step();  // kept: the loop must not outlive it
  for (const TensorStats& t : record.modes[0].tensors) EXPECT_TRUE(t.roundingCost.empty()) << t.name;
}

}  // namespace
}  // namespace ampscope
