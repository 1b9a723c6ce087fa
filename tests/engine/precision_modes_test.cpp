// What each precision mode does to gradients and updates, checked on tiny cases with known answers:
// the chapter's 1e-8 gradient (its sections 5 and 6), model.half()'s lost updates (section 3),
// lock-step starts, and the op-dtype report of the chapter's TinyMLP under CPU autocast (section 4).
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <optional>

#include "ampscope/engine/comparison.h"
#include "autocast_scope.h"
#include "mode_trainer.h"
#include "models/model.h"
#include "precision_context.h"
#include "rounded_adamw.h"
#include "synthetic_data.h"
#include "torch_compat.h"

namespace ampscope::detail {
namespace {

ModeCapability capabilityOf(PrecisionMode mode, PrecisionPath path = PrecisionPath::Auto) {
  return probeCapabilities({mode}, path).front();
}

// Whether this LibTorch runs FP16 natively on the CPU (autocast to float16, FP16 GEMM). 1.13 does not:
// its CPU autocast takes bfloat16 only, so every FP16 mode is emulated there. PyTorch added float16 to
// CPU autocast in 2.2 (pytorch/pytorch#112484; torch.autocast's documentation: CPU autocast supports
// torch.bfloat16 and torch.float16), and the probe finds it on Debian 13's 2.6.
constexpr bool kNativeCpuFp16 = AMPSCOPE_TORCH_AT_LEAST(2, 2);

// A 1x1 linear layer (w = 1, x = 1) whose output gets the gradient 1e-8 * scale; returns the weight
// gradient divided by the scale (what the optimizer would see after unscale_).
float weightGradientOfTinyUpstreamGradient(PrecisionMode mode, double scale,
                                           RoundingCounts* gradOutputCounts = nullptr,
                                           PrecisionPath path = PrecisionPath::Auto) {
  const ModeCapability capability = capabilityOf(mode, path);
  PrecisionContext ctx(mode, capability.native);
  ctx.beginPass(/*instrument=*/true, /*recordOps=*/false, static_cast<float>(1.0 / scale));
  const torch::Tensor w = torch::ones({1, 1}).requires_grad_(true);
  const torch::Tensor b = torch::zeros({1}).requires_grad_(true);
  torch::Tensor y;
  {
    std::optional<AutocastScope> autocast;
    if (ctx.kind() == ExecKind::AmpNative) autocast.emplace(c10::DeviceType::CPU, ctx.lowDtype());
    y = ctx.linear("fc", Act{torch::ones({1, 1}), false}, w, b).t;
  }
  (y.to(torch::kFloat).sum() * (1e-8 * scale)).backward();
  if (gradOutputCounts != nullptr) {
    for (const auto& p : ctx.roundingPoints()) {
      if (p.name == "fc.grad_output") *gradOutputCounts = p.counts;
    }
  }
  return w.grad().item<float>() / static_cast<float>(scale);
}

// The chapter, section 5: 1e-8 is below FP16's smallest subnormal/2 (2^-25), so FP16 flushes it to zero.
// The count is the emulation's (its rounding point "fc.grad_output"), so that path is asked for; it is
// the only one on LibTorch 1.13. Where FP16 autocast is native the gradient must be 0 there too.
TEST(PrecisionModes, TinyGradientIsZeroInFp16AmpWithoutScaler) {
  RoundingCounts counts;
  EXPECT_EQ(weightGradientOfTinyUpstreamGradient(PrecisionMode::FP16Amp, 1.0, &counts, PrecisionPath::Emulated),
            0.0f);
  EXPECT_EQ(counts.flushedToZero, 1);
  EXPECT_EQ(capabilityOf(PrecisionMode::FP16Amp).native, kNativeCpuFp16);
  if (kNativeCpuFp16) {
    EXPECT_EQ(weightGradientOfTinyUpstreamGradient(PrecisionMode::FP16Amp, 1.0, nullptr, PrecisionPath::Native),
              0.0f);
  }
}

// The chapter, section 6: 1e-8 * 65536 = 6.5536e-04 is a normal FP16 value; dividing by the scale recovers
// 1e-8 to FP16's relative precision (2^-11).
TEST(PrecisionModes, TinyGradientSurvivesInFp16AmpScaled) {
  const float g = weightGradientOfTinyUpstreamGradient(PrecisionMode::FP16AmpScaled, 65536.0);
  EXPECT_NEAR(g, 1e-8f, 1e-8f * 1.0f / 2048.0f);
}

// The chapter, section 5: in BF16 1e-8 becomes 1.0012e-08 (natively, via CPU autocast's backward).
TEST(PrecisionModes, TinyGradientSurvivesInBf16Amp) {
  const float g = weightGradientOfTinyUpstreamGradient(PrecisionMode::BF16Amp, 1.0);
  EXPECT_FLOAT_EQ(g, static_cast<float>(c10::BFloat16(1e-8f)));
  EXPECT_NEAR(g, 1.0012e-08f, 1e-12f);
}

float halfUlp(float v) {
  // FP16 spacing at v: 2^(e-10) for normal values, 2^-24 below 2^-14.
  const float a = std::fabs(v);
  if (a < 6.103515625e-05f) return std::ldexp(1.0f, -25);
  int e;
  std::frexp(a, &e);
  return std::ldexp(1.0f, e - 1 - 10 - 1);
}

// The chapter, section 3: model.half() keeps parameters in FP16 through the optimizer update, so an update
// smaller than half an FP16 ulp of the weight is rounded away; FP32 keeps it.
TEST(PrecisionModes, Fp16PureLosesUpdatesBelowHalfAnUlp) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.optimizer = OptimizerKind::SGD;
  config.momentum = 0.0;
  config.lr = 1e-5;
  torch::manual_seed(0);
  auto reference = makeModel(ModelKind::TinyMLP);
  // The emulated path (FP32 tensors holding FP16 values, read below as floats): LibTorch 1.13's only
  // one; a LibTorch with native CPU FP16 would otherwise hand the trainer real float16 tensors.
  ModeTrainer pure(config, capabilityOf(PrecisionMode::FP16Pure, PrecisionPath::Emulated), *reference);
  ModeTrainer fp32(config, capabilityOf(PrecisionMode::FP32), *reference);
  SyntheticData data(ModelKind::TinyMLP, 0, config.batchSize);
  const Batch batch = data.batch(1);

  std::vector<torch::Tensor> before;
  for (const auto& [name, p] : pure.namedParameters()) before.push_back(p.detach().clone());
  std::vector<torch::Tensor> beforeFp32;
  for (const auto& [name, p] : fp32.namedParameters()) beforeFp32.push_back(p.detach().clone());
  pure.step(1, batch, false, false);
  fp32.step(1, batch, false, false);

  int64_t tinyUpdates = 0;
  int64_t lostInPure = 0;
  int64_t keptInFp32 = 0;
  for (size_t i = 0; i < before.size(); ++i) {
    const torch::Tensor& p = pure.namedParameters()[i].second;
    const float* b = before[i].data_ptr<float>();
    const float* a = p.data_ptr<float>();
    const float* g = p.grad().data_ptr<float>();
    const float* b32 = beforeFp32[i].data_ptr<float>();
    const float* a32 = fp32.namedParameters()[i].second.data_ptr<float>();
    for (int64_t j = 0; j < p.numel(); ++j) {
      const float update = static_cast<float>(config.lr) * g[j];
      int exponent;
      // At a power of two the spacing below is half the spacing above: leave those out.
      const bool powerOfTwo = b[j] != 0.0f && std::frexp(std::fabs(b[j]), &exponent) == 0.5f;
      if (!powerOfTwo && update != 0.0f && std::fabs(update) < 0.99f * halfUlp(b[j])) {
        ++tinyUpdates;
        lostInPure += (a[j] == b[j]) ? 1 : 0;
        keptInFp32 += (a32[j] != b32[j]) ? 1 : 0;
      }
      // Every stored value is an FP16 value.
      EXPECT_EQ(a[j], static_cast<float>(c10::Half(a[j])));
    }
  }
  EXPECT_GT(tinyUpdates, 10000);            // most of TinyMLP's 71k weights at lr 1e-5
  EXPECT_EQ(lostInPure, tinyUpdates);        // all of them rounded away
  EXPECT_GT(keptInFp32, tinyUpdates * 9 / 10);  // FP32 applies (nearly) all of them
}

// model.half() + Adam: torch.optim's update on FP16 tensors. With eps = 1e-8 (below FP16's 2^-25 it
// rounds to 0) and a small gradient, v = (1 - beta2) * g^2 underflows to 0, denom = 0, and the update
// is inf (g != 0) or NaN (g == 0): the known failure of FP16 Adam. eps = 1e-4 is representable and the
// step is the expected lr-sized move: 1 - 1e-3 rounds to 0.99902 (FP16 spacing below 1 is 2^-11).
TEST(PrecisionModes, RoundedAdamWReproducesModelHalfEpsilonFailure) {
  auto stepOnce = [](double eps) {
    torch::Tensor p = torch::ones({2});
    p.mutable_grad() = torch::tensor({1e-4f, 0.0f});
    RoundedAdamW adam({p}, torch::optim::AdamWOptions(1e-3).eps(eps).weight_decay(0),
                      LowFormat::FP16);
    adam.step();
    return p;
  };
  const torch::Tensor tiny = stepOnce(1e-8);
  EXPECT_TRUE(std::isinf(tiny[0].item<float>()));
  EXPECT_TRUE(std::isnan(tiny[1].item<float>()));
  const torch::Tensor safe = stepOnce(1e-4);
  EXPECT_EQ(safe[0].item<float>(), static_cast<float>(c10::Half(1.0f - 1e-3f)));
  EXPECT_EQ(safe[1].item<float>(), 1.0f);
}

// The emulation checked against a native implementation: LibTorch's CPU BF16 autocast (real bf16
// kernels, FP32 accumulation) and the emulated BF16 AMP path (exact RNE rounding at the same cast
// points) train the same TinyMLP step to the same loss and nearly the same gradients; what remains is
// the kernels' summation order, far below BF16's 2^-8 relative precision in aggregate.
TEST(PrecisionModes, EmulatedBf16AmpAgreesWithNativeBf16Autocast) {
  const RunConfig config = presetFor(ModelKind::TinyMLP);
  torch::manual_seed(0);
  auto reference = makeModel(ModelKind::TinyMLP);
  ModeCapability native = capabilityOf(PrecisionMode::BF16Amp);
  ASSERT_TRUE(native.native);
  ModeCapability emulated = native;
  emulated.native = false;
  ModeTrainer nativeTrainer(config, native, *reference);
  ModeTrainer emulatedTrainer(config, emulated, *reference);
  ASSERT_EQ(emulatedTrainer.context().kind(), ExecKind::AmpEmulated);
  const Batch batch = SyntheticData(ModelKind::TinyMLP, 0, config.batchSize).batch(1);
  const ModeStep a = nativeTrainer.step(1, batch, false, false);
  const ModeStep b = emulatedTrainer.step(1, batch, false, false);
  EXPECT_NEAR(a.loss, b.loss, 2e-3);
  EXPECT_NEAR(a.gradNormBeforeClip, b.gradNormBeforeClip, 0.01 * a.gradNormBeforeClip);
  for (size_t i = 0; i < nativeTrainer.namedParameters().size(); ++i) {
    const torch::Tensor ga = nativeTrainer.namedParameters()[i].second.grad();
    const torch::Tensor gb = emulatedTrainer.namedParameters()[i].second.grad();
    const double relative = ((ga - gb).norm() / ga.norm()).item<double>();
    EXPECT_LT(relative, 0.02) << nativeTrainer.namedParameters()[i].first;
  }
}

TEST(PrecisionModes, EveryModeStartsFromTheSameWeights) {
  const RunConfig config = presetFor(ModelKind::TinyMLP);
  torch::manual_seed(0);
  auto reference = makeModel(ModelKind::TinyMLP);
  const auto refParams = reference->named_parameters();
  for (PrecisionMode mode : allPrecisionModes()) {
    ModeTrainer trainer(config, capabilityOf(mode), *reference);
    for (const auto& [name, p] : trainer.namedParameters()) {
      const torch::Tensor expected = refParams[name];
      torch::Tensor asStored = expected;
      if (mode == PrecisionMode::FP16Pure) asStored = expected.to(torch::kHalf).to(torch::kFloat);
      if (mode == PrecisionMode::BF16Pure && p.scalar_type() == torch::kBFloat16) {
        asStored = expected.to(torch::kBFloat16);
      }
      EXPECT_TRUE(torch::equal(p, asStored)) << modeName(mode) << " " << name;
    }
  }
}

TEST(PrecisionModes, ParameterNamesAreThoseOfTheEquivalentPyTorchModules) {
  torch::manual_seed(0);
  std::vector<std::string> names;
  for (const auto& item : makeModel(ModelKind::TinyMLP)->named_parameters()) names.push_back(item.key());
  EXPECT_EQ(names, (std::vector<std::string>{"net.0.weight", "net.0.bias", "net.2.weight", "net.2.bias"}));
  names.clear();
  for (const auto& item : makeModel(ModelKind::TinyTransformer)->named_parameters()) {
    names.push_back(item.key());
  }
  ASSERT_FALSE(names.empty());
  // A module's own parameters come before its children's, in PyTorch as here.
  EXPECT_EQ(names.front(), "pos_emb");
  EXPECT_EQ(names[1], "tok_emb.weight");
  EXPECT_NE(std::find(names.begin(), names.end(), "blocks.1.attn.qkv.weight"), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), "blocks.0.mlp.2.bias"), names.end());
  EXPECT_EQ(names.back(), "head.bias");
}

}  // namespace
}  // namespace ampscope::detail
