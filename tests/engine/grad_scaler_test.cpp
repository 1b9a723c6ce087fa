// GradScaler against torch.amp.GradScaler's documented behaviour (torch/cuda/amp/grad_scaler.py in
// PyTorch 1.13, and the _amp_update_scale_ kernel it calls). Each test names the rule it checks.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cfloat>
#include <cmath>
#include <cstring>
#include <random>
#include <limits>
#include <stdexcept>
#include <vector>

#include "grad_scaler.h"
#include "support/under_isa.h"
#include "torch_compat.h"

namespace ampscope::detail {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

ScalerConfig configWith(double initScale, int64_t growthInterval) {
  ScalerConfig config;
  config.initScale = initScale;
  config.growthInterval = growthInterval;
  return config;
}

// One parameter of ones with a given (already scaled) gradient, and an SGD optimizer over it.
struct OneParam {
  torch::Tensor param = torch::ones({4}).requires_grad_(true);
  torch::optim::SGD sgd{std::vector<torch::Tensor>{param}, torch::optim::SGDOptions(/*lr=*/0.5)};
  void setGrad(std::vector<float> values) { param.mutable_grad() = torch::tensor(values); }
};

// A clean iteration: finite gradients, step, update.
void cleanIteration(GradScaler& scaler, OneParam& p) {
  p.setGrad({1, 2, 3, 4});
  ASSERT_TRUE(scaler.step(p.sgd));
  scaler.update();
}

TEST(GradScaler, DefaultsAreTorchDefaults) {
  // torch.amp.GradScaler(init_scale=2.**16, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000)
  GradScaler scaler{ScalerConfig{}};
  EXPECT_TRUE(scaler.isEnabled());
  EXPECT_EQ(scaler.getScale(), 65536.0);
  EXPECT_EQ(scaler.growthTracker(), 0);
  const auto state = scaler.stateDict();
  EXPECT_EQ(state.growthFactor, 2.0);
  EXPECT_EQ(state.backoffFactor, 0.5);
  EXPECT_EQ(state.growthInterval, 2000);
}

TEST(GradScaler, ScaleMultipliesTheLossAndKeepsItsDtype) {
  // scale(outputs) returns outputs * scale; the scale is a float32 tensor, so a float32 loss stays float32.
  GradScaler scaler{ScalerConfig{}};
  const torch::Tensor loss = torch::tensor(0.25f);
  const torch::Tensor scaled = scaler.scale(loss);
  EXPECT_EQ(scaled.scalar_type(), torch::kFloat);
  EXPECT_EQ(scaled.item<float>(), 16384.0f);
}

TEST(GradScaler, GrowsAfterExactlyGrowthIntervalCleanSteps) {
  // "growth_interval: number of consecutive iterations without inf/NaN gradients that must occur for the
  // scale to be multiplied by growth_factor": the kernel increments the tracker and grows when it
  // reaches the interval, then resets it.
  GradScaler scaler{configWith(1024.0, /*growthInterval=*/3)};
  OneParam p;
  cleanIteration(scaler, p);
  cleanIteration(scaler, p);
  EXPECT_EQ(scaler.getScale(), 1024.0) << "must not grow one step early";
  EXPECT_EQ(scaler.growthTracker(), 2);
  cleanIteration(scaler, p);
  EXPECT_EQ(scaler.getScale(), 2048.0);
  EXPECT_EQ(scaler.growthTracker(), 0);
  cleanIteration(scaler, p);
  cleanIteration(scaler, p);
  EXPECT_EQ(scaler.getScale(), 2048.0);
  cleanIteration(scaler, p);
  EXPECT_EQ(scaler.getScale(), 4096.0);
}

TEST(GradScaler, SkipsStepAndHalvesScaleOnInf) {
  // "If no inf/NaN gradients are found, invokes optimizer.step() ... Otherwise, optimizer.step() is
  // skipped"; update() multiplies the scale by backoff_factor and resets the growth tracker.
  GradScaler scaler{configWith(65536.0, /*growthInterval=*/10)};
  OneParam p;
  cleanIteration(scaler, p);
  cleanIteration(scaler, p);
  ASSERT_EQ(scaler.growthTracker(), 2);
  const torch::Tensor before = p.param.detach().clone();

  p.setGrad({1, kInf, 3, 4});
  EXPECT_FALSE(scaler.step(p.sgd));
  EXPECT_TRUE(scaler.foundInfLastStep());
  EXPECT_TRUE(torch::equal(p.param.detach(), before)) << "a skipped step must not move the parameters";
  scaler.update();
  EXPECT_EQ(scaler.getScale(), 32768.0);
  EXPECT_EQ(scaler.growthTracker(), 0);
  EXPECT_TRUE(scaler.foundInfLastStep()) << "after update() it reports what update() consumed";
}

TEST(GradScaler, NanCountsAsInf) {
  // _amp_foreach_non_finite_check_and_unscale_ sets found_inf for any non-finite value, NaN included.
  GradScaler scaler{configWith(8.0, 2000)};
  OneParam p;
  p.setGrad({kNaN, 0, 0, 0});
  EXPECT_FALSE(scaler.step(p.sgd));
  scaler.update();
  EXPECT_EQ(scaler.getScale(), 4.0);
}

TEST(GradScaler, NegativeInfCountsAsInf) {
  GradScaler scaler{configWith(8.0, 2000)};
  OneParam p;
  p.setGrad({0, 0, -kInf, 0});
  EXPECT_FALSE(scaler.step(p.sgd));
}

TEST(GradScaler, SkippedStepLeavesParametersAndAdamWStateUnchanged) {
  // The skipped optimizer.step() is never called, so AdamW's exp_avg, exp_avg_sq and step count stay.
  torch::manual_seed(7);
  torch::nn::Linear layer(/*in=*/3, /*out=*/2);
  torch::optim::AdamW adamw(layer->parameters(), torch::optim::AdamWOptions(/*lr=*/1e-2));
  GradScaler scaler{configWith(1024.0, 2000)};

  const auto runBackward = [&](bool poison) {
    adamw.zero_grad();
    const torch::Tensor loss = layer(torch::ones({5, 3})).pow(2).sum();
    scaler.scale(loss).backward();
    if (poison) layer->weight.mutable_grad()[0][1] = kInf;
  };
  runBackward(false);
  ASSERT_TRUE(scaler.step(adamw));
  scaler.update();

  std::vector<torch::Tensor> params;
  for (const auto& p : layer->parameters()) params.push_back(p.detach().clone());
  std::vector<torch::Tensor> expAvg;
  std::vector<torch::Tensor> expAvgSq;
  std::vector<int64_t> stepCounts;
  for (const auto& p : layer->parameters()) {
    const auto& state = static_cast<const torch::optim::AdamWParamState&>(
        *adamw.state().at(optimizerStateKey(p)));
    expAvg.push_back(state.exp_avg().clone());
    expAvgSq.push_back(state.exp_avg_sq().clone());
    stepCounts.push_back(state.step());
  }

  runBackward(true);
  EXPECT_FALSE(scaler.step(adamw));
  scaler.update();

  const auto current = layer->parameters();
  for (size_t i = 0; i < current.size(); ++i) {
    EXPECT_TRUE(torch::equal(current[i].detach(), params[i])) << "parameter " << i;
    const auto& state = static_cast<const torch::optim::AdamWParamState&>(
        *adamw.state().at(optimizerStateKey(current[i])));
    EXPECT_TRUE(torch::equal(state.exp_avg(), expAvg[i])) << "exp_avg " << i;
    EXPECT_TRUE(torch::equal(state.exp_avg_sq(), expAvgSq[i])) << "exp_avg_sq " << i;
    EXPECT_EQ(state.step(), stepCounts[i]);
  }
  EXPECT_EQ(scaler.getScale(), 512.0);
}

// The float32 unscale loop is compiled once per instruction set (kernel_isa.h): these run under each.
class GradScalerUnderIsa : public support::UnderIsa {};
AMPSCOPE_UNDER_EACH_ISA(GradScalerUnderIsa);

TEST_P(GradScalerUnderIsa, UnscaleMultipliesByTheFloat32ReciprocalOfTheScale) {
  // unscale_: inv_scale = scale.double().reciprocal().float(), and the kernel computes grad * inv_scale.
  GradScaler scaler{ScalerConfig{}};
  scaler.update(3.0);  // no iteration yet: update(new_scale) needs no inf check
  OneParam p;
  const torch::Tensor grad = torch::randn({4}) * 1000;
  p.param.mutable_grad() = grad.clone();
  scaler.unscale_(p.sgd);
  const float invScale = static_cast<float>(1.0 / 3.0);
  for (int64_t i = 0; i < 4; ++i) {
    EXPECT_EQ(p.param.grad()[i].item<float>(), grad[i].item<float>() * invScale);
  }
}

TEST_P(GradScalerUnderIsa, PowerOfTwoUnscaleIsExactDivision) {
  GradScaler scaler{ScalerConfig{}};
  OneParam p;
  p.setGrad({65536.0f, 3.0f, -1.5f, 0.0f});
  scaler.unscale_(p.sgd);
  EXPECT_TRUE(torch::equal(p.param.grad(), torch::tensor({1.0f, 3.0f / 65536, -1.5f / 65536, 0.0f})));
}

TEST_P(GradScalerUnderIsa, FlatUnscaleMatchesThePerTensorUnscale) {
  // _amp_foreach_non_finite_check_and_unscale_: every listed gradient *= the float32 inv_scale; found_inf
  // when any of them held inf/NaN. Over one buffer, only the spans are touched and checked: the gap
  // between them (a parameter without a gradient) may hold anything, here an inf.
  GradScaler perTensor{ScalerConfig{}};
  GradScaler flat{ScalerConfig{}};
  perTensor.update(3.0);
  flat.update(3.0);
  OneParam p;
  const torch::Tensor grad = torch::randn({4}) * 1000;
  p.param.mutable_grad() = grad.clone();
  perTensor.unscale_(p.sgd);

  OneParam q;
  std::vector<float> buffer = {grad[0].item<float>(), grad[1].item<float>(), kInf,
                               grad[2].item<float>(), grad[3].item<float>()};
  flat.unscaleFlat_(q.sgd, buffer.data(), {{0, 2}, {3, 2}});
  EXPECT_EQ(flat.state(q.sgd), GradScaler::OptState::Unscaled);
  EXPECT_FALSE(flat.foundInfLastStep());
  const std::vector<float> expected = {p.param.grad()[0].item<float>(), p.param.grad()[1].item<float>(),
                                       kInf, p.param.grad()[2].item<float>(),
                                       p.param.grad()[3].item<float>()};
  EXPECT_EQ(buffer, expected);
  EXPECT_THROW(flat.unscaleFlat_(q.sgd, buffer.data(), {{0, 2}}), std::logic_error);

  buffer[4] = kNaN;
  flat.update();
  flat.unscaleFlat_(q.sgd, buffer.data(), {{3, 2}});
  EXPECT_TRUE(flat.foundInfLastStep()) << "a NaN inside a span counts as inf";
}

// sum_of_squares.h's sum by its definition: lane j of 64 sums the squares (in double) of elements j,
// j + 64, ... of the whole chunks of 64, lane 0 then the rest in order, and the lanes are added in order.
double laneSumOfSquares(const std::vector<float>& values) {
  double lanes[64] = {};
  const std::size_t whole = values.size() / 64 * 64;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    lanes[i < whole ? i % 64 : 0] += v * v;
  }
  double total = 0;
  for (const double lane : lanes) total += lane;
  return total;
}

TEST_P(GradScalerUnderIsa, FlatUnscaleMatchesAScalarReferenceOnSpecialValues) {
  // The vectorised float32 loop against the plain definition, value by value: bits of x * invScale
  // (float32) and found_inf = some value held inf/NaN before the multiply. Lengths around the vector
  // widths, one non-finite value at every position, and scales 1 (values untouched), 2^-k and 1/3.
  const float specials[] = {0.0f, -0.0f, 1e-45f, -1e-45f, 1.1754942e-38f, 1.17549435e-38f,
                            6.1035156e-05f, 5.9604645e-08f, 65504.0f, 3.4028235e38f, -3.4028235e38f,
                            1.5f, -2.5f, 0.33333334f, 1.0f + 1.1920929e-07f};
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> anyBits;
  for (const float scaleValue : {1.0f, 65536.0f, 3.0f, 1.0f / 1024}) {
    for (const int64_t n : {1, 7, 15, 16, 17, 31, 33, 64, 100, 1000}) {
      std::vector<float> values(static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) {
        const uint32_t r = anyBits(rng);
        float v;
        if (i % 3 == 0) {
          v = specials[r % (sizeof specials / sizeof specials[0])];
        } else {
          uint32_t bits = r;
          if ((bits & 0x7f800000u) == 0x7f800000u) bits &= 0xbfffffffu;  // finite here; inf/NaN below
          std::memcpy(&v, &bits, sizeof v);
        }
        values[static_cast<size_t>(i)] = v;
      }
      for (int64_t bad = -1; bad < std::min<int64_t>(n, 40); ++bad) {
        for (const float nonFinite : {kInf, -kInf, kNaN}) {
          if (bad < 0 && nonFinite != kInf) continue;  // the all-finite case once
          std::vector<float> buffer = values;
          if (bad >= 0) buffer[static_cast<size_t>(bad)] = nonFinite;
          GradScaler scaler{ScalerConfig{}};
          scaler.update(static_cast<double>(scaleValue));
          OneParam p;
          const float invScale = static_cast<float>(1.0 / static_cast<double>(scaleValue));
          std::vector<float> expected = buffer;
          bool expectedInf = false;
          for (float& v : expected) {
            expectedInf |= !std::isfinite(v);
            if (invScale != 1.0f) v = v * invScale;
          }
          // The same unscale with the squares summed in its pass (the norm a step shows without a clip).
          std::vector<float> summed = buffer;
          GradScaler summing{ScalerConfig{}};
          summing.update(static_cast<double>(scaleValue));
          OneParam q;
          std::vector<double> squares;
          scaler.unscaleFlat_(p.sgd, buffer.data(), {{0, n}});
          summing.unscaleFlat_(q.sgd, summed.data(), {{0, n}}, &squares);
          ASSERT_EQ(scaler.foundInfLastStep(), expectedInf) << "n " << n << " bad " << bad;
          ASSERT_EQ(summing.foundInfLastStep(), expectedInf) << "n " << n << " bad " << bad;
          for (int64_t i = 0; i < n; ++i) {
            uint32_t got, want, gotSummed;
            std::memcpy(&got, &buffer[static_cast<size_t>(i)], sizeof got);
            std::memcpy(&gotSummed, &summed[static_cast<size_t>(i)], sizeof gotSummed);
            std::memcpy(&want, &expected[static_cast<size_t>(i)], sizeof want);
            ASSERT_EQ(got, want) << "n " << n << " i " << i << " scale " << scaleValue;
            ASSERT_EQ(gotSummed, want) << "n " << n << " i " << i << " scale " << scaleValue;
          }
          ASSERT_EQ(squares.size(), 1u);
          const double reference = laneSumOfSquares(expected);
          if (std::isnan(reference)) {
            ASSERT_TRUE(std::isnan(squares[0])) << "n " << n << " bad " << bad;
          } else {
            ASSERT_EQ(std::memcmp(&squares[0], &reference, sizeof reference), 0)
                << "n " << n << " bad " << bad << " scale " << scaleValue << ": " << squares[0] << " vs " << reference;
          }
        }
      }
    }
  }
}

// Unscales `buffer` by a scaler at `scaleValue` with the squares summed in the pass; expects the
// unscaled values and laneSumOfSquares of them, bit for bit. Returns that sum.
double expectUnscaledSquares(std::vector<float> buffer, float scaleValue) {
  const float invScale = static_cast<float>(1.0 / static_cast<double>(scaleValue));
  std::vector<float> unscaled = buffer;
  if (invScale != 1.0f) {
    for (float& v : unscaled) v = v * invScale;
  }
  GradScaler scaler{ScalerConfig{}};
  scaler.update(static_cast<double>(scaleValue));
  OneParam p;
  std::vector<double> squares;
  const auto n = static_cast<int64_t>(buffer.size());
  scaler.unscaleFlat_(p.sgd, buffer.data(), {{0, n}}, &squares);
  const double reference = laneSumOfSquares(unscaled);
  EXPECT_EQ(squares.size(), 1u);
  if (squares.size() == 1) {
    EXPECT_EQ(std::memcmp(&squares[0], &reference, sizeof reference), 0)
        << "n " << n << " scale " << scaleValue << ": " << squares[0] << " vs " << reference;
  }
  EXPECT_EQ(std::memcmp(buffer.data(), unscaled.data(), buffer.size() * sizeof(float)), 0);
  return reference;
}

TEST_P(GradScalerUnderIsa, FlatUnscaleSumsTheSquaresInTheNormsOwnOrder) {
  // Full mantissas over 30 binades, so that most additions of squares round and their order shows in
  // the sum's last bits: the squares summed in the unscale's pass must be laneSumOfSquares' bits exactly
  // (lanes of 64, the tail in lane 0), with whole chunks, a tail, and a tail alone.
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> oneToTwo(1.0f, 2.0f);
  std::uniform_int_distribution<int> binade(0, 30);
  for (const float scaleValue : {1.0f, 65536.0f, 3.0f}) {
    for (const int64_t n : {5, 63, 64, 65, 1000, 8192 + 33}) {
      std::vector<float> buffer(static_cast<size_t>(n));
      for (float& v : buffer) v = std::ldexp(oneToTwo(rng), binade(rng));
      expectUnscaledSquares(buffer, scaleValue);
    }
    // Where the tail goes: 65 values, 2^27 first, 1.5 second and last. In lane 0 with 2^54, the last
    // square rounds up to 2^54 + 4 and the second's then to 2^54 + 8; summed with the second in one lane
    // instead (4.5), they would give 2^54 + 4.
    std::vector<float> buffer(65, 0.0f);
    buffer[0] = 134217728.0f;  // 2^27
    buffer[1] = buffer[64] = 1.5f;
    const double sum = expectUnscaledSquares(buffer, scaleValue);
    if (scaleValue == 1.0f) {
      EXPECT_EQ(sum, 18014398509481992.0);  // 2^54 + 8
    }
  }
}

TEST(GradScaler, UnscaleTwiceThrows) {
  // "unscale_() has already been called on this optimizer since the last update()."
  GradScaler scaler{ScalerConfig{}};
  OneParam p;
  p.setGrad({1, 2, 3, 4});
  scaler.unscale_(p.sgd);
  EXPECT_EQ(scaler.state(p.sgd), GradScaler::OptState::Unscaled);
  EXPECT_THROW(scaler.unscale_(p.sgd), std::logic_error);
  EXPECT_TRUE(torch::equal(p.param.grad(), torch::tensor({1, 2, 3, 4}) / 65536.0))
      << "the refused call must not unscale a second time";
}

TEST(GradScaler, UnscaleAfterStepThrows) {
  // "unscale_() is being called after step()."
  GradScaler scaler{ScalerConfig{}};
  OneParam p;
  p.setGrad({1, 2, 3, 4});
  scaler.step(p.sgd);
  EXPECT_EQ(scaler.state(p.sgd), GradScaler::OptState::Stepped);
  EXPECT_THROW(scaler.unscale_(p.sgd), std::logic_error);
}

TEST(GradScaler, StepTwiceWithoutUpdateThrows) {
  // "step() has already been called since the last update()."
  GradScaler scaler{ScalerConfig{}};
  OneParam p;
  p.setGrad({1, 2, 3, 4});
  scaler.step(p.sgd);
  EXPECT_THROW(scaler.step(p.sgd), std::logic_error);
}

TEST(GradScaler, UpdateWithoutInfCheckThrows) {
  // "No inf checks were recorded prior to update."
  GradScaler scaler{ScalerConfig{}};
  EXPECT_THROW(scaler.update(), std::logic_error);
}

TEST(GradScaler, UpdateReturnsEveryOptimizerToReady) {
  GradScaler scaler{ScalerConfig{}};
  OneParam p;
  p.setGrad({1, 2, 3, 4});
  scaler.unscale_(p.sgd);
  EXPECT_TRUE(scaler.step(p.sgd)) << "step() after an explicit unscale_() must not unscale again";
  scaler.update();
  EXPECT_EQ(scaler.state(p.sgd), GradScaler::OptState::Ready);
  p.setGrad({1, 2, 3, 4});
  EXPECT_NO_THROW(scaler.unscale_(p.sgd));
}

TEST(GradScaler, InfInOneOptimizerSkipsOnlyThatOneButBacksOff) {
  // _maybe_opt_step checks the optimizer's own found_inf; update() sums found_inf over all optimizers.
  GradScaler scaler{configWith(64.0, 2000)};
  OneParam clean;
  OneParam poisoned;
  clean.setGrad({64, 64, 64, 64});
  poisoned.setGrad({kInf, 0, 0, 0});
  EXPECT_TRUE(scaler.step(clean.sgd));
  EXPECT_FALSE(scaler.step(poisoned.sgd));
  EXPECT_TRUE(torch::equal(clean.param.detach(), torch::full({4}, 0.5f))) << "1 - 0.5 * 64/64";
  EXPECT_TRUE(torch::equal(poisoned.param.detach(), torch::ones({4})));
  scaler.update();
  EXPECT_EQ(scaler.getScale(), 32.0);
}

TEST(GradScaler, ScaleSaturatesBelowInfinity) {
  // PyTorch keeps the scale in a float32 tensor and _amp_update_scale_ only grows it when
  // float32(scale * growth_factor) is finite ("Do not grow the scale past fp32 bounds to inf").
  // 2^127 * 2 = 2^128 overflows float32 (max ~3.4028e38), so the scale stays and the tracker resets.
  GradScaler scaler{configWith(std::ldexp(1.0, 127), /*growthInterval=*/1)};
  OneParam p;
  for (int i = 0; i < 3; ++i) {
    cleanIteration(scaler, p);
    EXPECT_EQ(scaler.getScale(), std::ldexp(1.0, 127));
    EXPECT_TRUE(std::isfinite(scaler.getScale()));
    EXPECT_EQ(scaler.growthTracker(), 0);
  }
}

TEST(GradScaler, ScaleNearFloatMaxDoesNotGrowToInfinity) {
  GradScaler scaler{configWith(static_cast<double>(FLT_MAX) / 1.5, /*growthInterval=*/1)};
  OneParam p;
  const double start = scaler.getScale();
  cleanIteration(scaler, p);
  EXPECT_EQ(scaler.getScale(), start);
}

TEST(GradScaler, BackedOffScaleIsRoundedToFloat32) {
  // The kernel computes scale * backoff in double and stores it into the float32 scale tensor.
  ScalerConfig config = configWith(3.0, 2000);
  config.backoffFactor = 0.3;
  GradScaler scaler{config};
  OneParam p;
  p.setGrad({kInf, 0, 0, 0});
  scaler.step(p.sgd);
  scaler.update();
  EXPECT_EQ(scaler.getScale(), static_cast<double>(static_cast<float>(3.0 * 0.3)));
}

TEST(GradScaler, UpdateWithNewScaleSetsItAndKeepsTheTracker) {
  // update(new_scale): "self._scale.fill_(new_scale)"; the growth tracker is not touched.
  GradScaler scaler{configWith(1024.0, 10)};
  OneParam p;
  cleanIteration(scaler, p);
  cleanIteration(scaler, p);
  p.setGrad({1, 2, 3, 4});
  scaler.step(p.sgd);
  scaler.update(0.1);
  EXPECT_EQ(scaler.getScale(), static_cast<double>(0.1f)) << "filled into a float32 tensor";
  EXPECT_EQ(scaler.growthTracker(), 2);
  EXPECT_EQ(scaler.state(p.sgd), GradScaler::OptState::Ready);
  EXPECT_THROW(scaler.update(0.0), std::invalid_argument);
  EXPECT_THROW(scaler.update(std::numeric_limits<double>::infinity()), std::invalid_argument);
}

TEST(GradScaler, StateDictRoundTrips) {
  ScalerConfig config = configWith(4096.0, 5);
  config.growthFactor = 4.0;
  config.backoffFactor = 0.25;
  GradScaler source{config};
  OneParam p;
  cleanIteration(source, p);
  cleanIteration(source, p);
  const GradScaler::State saved = source.stateDict();
  EXPECT_EQ(saved.scale, 4096.0);
  EXPECT_EQ(saved.growthTracker, 2);

  GradScaler target{ScalerConfig{}};
  target.loadStateDict(saved);
  const GradScaler::State loaded = target.stateDict();
  EXPECT_EQ(loaded.scale, saved.scale);
  EXPECT_EQ(loaded.growthFactor, 4.0);
  EXPECT_EQ(loaded.backoffFactor, 0.25);
  EXPECT_EQ(loaded.growthInterval, 5);
  EXPECT_EQ(loaded.growthTracker, 2);
  // Both now behave the same: three more clean steps reach the interval of 5 and grow by 4.
  OneParam q;
  for (int i = 0; i < 3; ++i) {
    cleanIteration(source, p);
    cleanIteration(target, q);
  }
  EXPECT_EQ(source.getScale(), 16384.0);
  EXPECT_EQ(target.getScale(), 16384.0);
}

TEST(GradScaler, LoadingADisabledScalersStateThrows) {
  // load_state_dict: "The source state dict is empty, possibly because it was saved from a disabled
  // instance of GradScaler."; a disabled scaler ignores load_state_dict.
  ScalerConfig off;
  off.enabled = false;
  GradScaler disabled{off};
  GradScaler enabled{ScalerConfig{}};
  EXPECT_THROW(enabled.loadStateDict(disabled.stateDict()), std::invalid_argument);
  EXPECT_NO_THROW(disabled.loadStateDict(enabled.stateDict()));
  EXPECT_EQ(disabled.getScale(), 1.0);
}

TEST(GradScaler, DisabledScalerPassesEverythingThrough) {
  // enabled=False: "step() simply invokes the underlying optimizer.step(), and other methods become
  // no-ops"; get_scale() returns 1.0.
  ScalerConfig off;
  off.enabled = false;
  GradScaler scaler{off};
  EXPECT_FALSE(scaler.isEnabled());
  EXPECT_EQ(scaler.getScale(), 1.0);
  const torch::Tensor loss = torch::tensor(2.5f);
  EXPECT_TRUE(scaler.scale(loss).is_same(loss));

  OneParam p;
  p.setGrad({2, 2, 2, 2});
  scaler.unscale_(p.sgd);
  EXPECT_TRUE(torch::equal(p.param.grad(), torch::full({4}, 2.0f))) << "unscale_ is a no-op";
  EXPECT_TRUE(scaler.step(p.sgd));
  EXPECT_TRUE(scaler.step(p.sgd)) << "no state machine when disabled";
  EXPECT_NO_THROW(scaler.update());
  EXPECT_EQ(scaler.getScale(), 1.0);

  p.setGrad({kInf, 0, 0, 0});
  EXPECT_TRUE(scaler.step(p.sgd)) << "a disabled scaler does not check for inf";
  EXPECT_TRUE(std::isinf(p.param[0].item<float>()));
}

TEST(GradScaler, RefusesFp16GradientsUnlessAllowed) {
  // _unscale_grads_(..., allow_fp16=False) from the public unscale_: "Attempting to unscale FP16
  // gradients." The internal allow_fp16=True path accepts them.
  torch::Tensor half = torch::ones({2}, torch::kHalf).requires_grad_(true);
  torch::optim::SGD sgd(std::vector<torch::Tensor>{half}, torch::optim::SGDOptions(0.1));
  half.mutable_grad() = torch::full({2}, 1024.0, torch::kHalf);

  GradScaler strict{configWith(1024.0, 2000)};
  EXPECT_THROW(strict.unscale_(sgd), std::invalid_argument);
  EXPECT_THROW(strict.step(sgd), std::invalid_argument);

  GradScaler lenient{configWith(1024.0, 2000), /*allowFp16=*/true};
  EXPECT_TRUE(lenient.allowFp16());
  lenient.unscale_(sgd);
  EXPECT_EQ(half.grad().scalar_type(), torch::kHalf);
  EXPECT_TRUE(torch::equal(half.grad(), torch::ones({2}, torch::kHalf)));

  half.mutable_grad() = torch::tensor({c10::Half(65504.0f), c10::Half(kInf)});
  lenient.update(1024.0);
  EXPECT_FALSE(lenient.step(sgd)) << "an FP16 inf is found too";
}

TEST(GradScaler, ChecksNonContiguousAndDoubleGradients) {
  torch::Tensor a = torch::ones({2, 3}, torch::kDouble).requires_grad_(true);
  torch::Tensor b = torch::ones({3, 2}).requires_grad_(true);
  torch::optim::SGD sgd(std::vector<torch::Tensor>{a, b}, torch::optim::SGDOptions(0.1));
  a.mutable_grad() = torch::full({2, 3}, 8.0, torch::kDouble);
  b.mutable_grad() = torch::full({2, 3}, 8.0f).t();  // a transposed, non-contiguous gradient
  b.mutable_grad()[2][1] = kNaN;
  GradScaler scaler{configWith(8.0, 2000)};
  scaler.unscale_(sgd);
  EXPECT_TRUE(scaler.foundInfLastStep());
  EXPECT_EQ(a.grad()[1][2].item<double>(), 1.0);
  EXPECT_EQ(b.grad()[0][0].item<float>(), 1.0f);
}

TEST(GradScaler, RejectsInvalidConfiguration) {
  // GradScaler.__init__ asserts growth_factor > 1.0 and backoff_factor < 1.0.
  ScalerConfig growth;
  growth.growthFactor = 1.0;
  EXPECT_THROW(GradScaler{growth}, std::invalid_argument);
  ScalerConfig backoff;
  backoff.backoffFactor = 1.0;
  EXPECT_THROW(GradScaler{backoff}, std::invalid_argument);
  ScalerConfig interval;
  interval.growthInterval = 0;
  EXPECT_THROW(GradScaler{interval}, std::invalid_argument);
  ScalerConfig scale;
  scale.initScale = 1e39;  // inf in float32
  EXPECT_THROW(GradScaler{scale}, std::invalid_argument);
  ScalerConfig disabled = growth;
  disabled.enabled = false;
  EXPECT_NO_THROW(GradScaler{disabled}) << "PyTorch only checks the factors when enabled";
}

}  // namespace
}  // namespace ampscope::detail
