// The quantised modes through the public Comparison API: which tensors report, that delayed scaling's
// first step runs at scale 1 and later ones at 448 / history amax, that fp8.scaling off keeps every
// scale at 1, and that the spike step multiplies the inputs in every mode (FP32's loss changes too).
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "ampscope/engine/comparison.h"

namespace ampscope {
namespace {

RunConfig mlpConfig(std::vector<PrecisionMode> modes) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = std::move(modes);
  config.instrumentEvery = 1;
  return config;
}

std::map<std::string, QuantTensorStats> byName(const ModeStep& step) {
  std::map<std::string, QuantTensorStats> out;
  for (const auto& q : step.quantized) out[q.name] = q;
  return out;
}

TEST(Fp8Modes, EveryLinearReportsItsInputWeightAndGradient) {
  Comparison comparison(mlpConfig({PrecisionMode::FP32, PrecisionMode::Fp8Delayed, PrecisionMode::MXFP8}));
  const StepRecord first = comparison.step();
  ASSERT_EQ(first.modes.size(), 3u);
  EXPECT_TRUE(first.modes[0].quantized.empty());  // FP32 quantises nothing
  const auto delayed = byName(first.modes[1]);
  for (const char* name : {"fc1.input", "fc1.weight", "fc1.grad_output", "fc2.input", "fc2.weight",
                           "fc2.grad_output"}) {
    ASSERT_EQ(delayed.count(name), 1u) << name;
    EXPECT_EQ(delayed.at(name).scale, 1.0) << "delayed scaling has no history at step 1: " << name;
    EXPECT_TRUE(delayed.at(name).measured);
  }
  EXPECT_EQ(delayed.at("fc1.grad_output").format, QuantFormat::E5M2);
  EXPECT_EQ(delayed.at("fc1.input").format, QuantFormat::E4M3);
  const auto mx = byName(first.modes[2]);
  EXPECT_EQ(mx.at("fc1.grad_output").format, QuantFormat::E4M3);
  EXPECT_EQ(mx.at("fc1.input").scaling, ScalingKind::MxBlock);

  const StepRecord second = comparison.step();
  const auto later = byName(second.modes[1]);
  const auto& in = later.at("fc1.input");
  EXPECT_EQ(in.amaxHistoryMax, delayed.at("fc1.input").amax);
  EXPECT_EQ(in.scale, static_cast<double>(448.0f / static_cast<float>(in.amaxHistoryMax)));
}

TEST(Fp8Modes, ScalingOffKeepsEveryScaleAtOne) {
  RunConfig config = mlpConfig({PrecisionMode::Fp8Current});
  config.fp8.scaling = false;
  Comparison comparison(config);
  comparison.step();
  const StepRecord record = comparison.step();
  for (const auto& q : record.modes[0].quantized) {
    EXPECT_EQ(q.scale, 1.0) << q.name;
    EXPECT_EQ(q.scaling, ScalingKind::None) << q.name;
  }
}

TEST(Fp8Modes, TheSpikeStepMultipliesTheInputsOfEveryMode) {
  RunConfig plain = mlpConfig({PrecisionMode::FP32, PrecisionMode::Fp8Current});
  RunConfig spiked = plain;
  spiked.fp8.spikeStep = 2;
  spiked.fp8.spikeFactor = 1000;
  Comparison a(plain), b(spiked);
  const StepRecord a1 = a.step(), b1 = b.step();
  EXPECT_EQ(a1.modes[0].loss, b1.modes[0].loss);  // before the spike: the same run
  const StepRecord a2 = a.step(), b2 = b.step();
  EXPECT_GT(b2.modes[0].loss, 10 * a2.modes[0].loss);  // FP32 sees the spike too
  const auto in = byName(b2.modes[1]).at("fc1.input");
  EXPECT_NEAR(in.amax, 1000 * byName(a2.modes[1]).at("fc1.input").amax, 1e-3 * in.amax);
}

}  // namespace
}  // namespace ampscope
