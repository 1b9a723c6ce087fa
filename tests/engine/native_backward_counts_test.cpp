// The native path's backward rounding counts (engine/src/native_backward_counts.cpp): a native kernel's
// flushes found against the float64 recomputation, with expected counts from IEEE-754's
// round-to-nearest-even; the same counts as the emulation's on a real model; and instrumenting a step
// changes none of its numbers or its measured memory.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <optional>

#include "ampscope/engine/comparison.h"
#include "autocast_scope.h"
#include "counting_allocator.h"
#include "mode_trainer.h"
#include "models/model.h"
#include "precision_context.h"
#include "synthetic_data.h"
#include "torch_compat.h"

namespace ampscope::detail {
namespace {

ModeCapability capabilityOf(PrecisionMode mode, PrecisionPath path) {
  return probeCapabilities({mode}, path).front();
}

RoundingCounts countsAt(const PrecisionContext& ctx, const std::string& name) {
  for (const auto& p : ctx.roundingPoints()) {
    if (p.name == name) return p.counts;
  }
  ADD_FAILURE() << "no rounding point " << name;
  return {};
}

// y = fc(x) with one output and x = 2^e_k, then z = y * 2^s (a pass-through op of the context), and
// d(sum z)/dz = 1. So the gradient arriving at fc's output is 2^s (exact), fc's weight gradient is
// 2^s * x_k: each a single product, rounded once by the native GEMM. Which of them IEEE-754's
// round-to-nearest-even takes to 0 is known from the format alone (below), not from the kernel.
struct TinyCase {
  double scaleExponent;       // s
  std::vector<double> x;      // the input row
};

void runTinyCase(PrecisionContext& ctx, const TinyCase& c) {
  ctx.beginPass(/*instrument=*/true, /*recordOps=*/false, 1.0f);
  const auto k = static_cast<int64_t>(c.x.size());
  torch::Tensor x = torch::empty({1, k});
  for (int64_t i = 0; i < k; ++i) x[0][i] = c.x[static_cast<size_t>(i)];
  const torch::Tensor w = torch::ones({1, k}).requires_grad_(true);
  const torch::Tensor b = torch::zeros({1}).requires_grad_(true);
  torch::Tensor z;
  {
    AutocastScope autocast(c10::DeviceType::CPU, ctx.lowDtype());
    const Act y = ctx.linear("fc", Act{x, false}, w, b);
    z = ctx.mulScalar("scale", y, std::ldexp(1.0, static_cast<int>(c.scaleExponent))).t;
  }
  z.to(torch::kFloat).sum().backward();
}

// FP16 (IEEE-754 binary16): the smallest subnormal is 2^-24, so |v| < 2^-25 rounds to 0 and |v| = 2^-25,
// a tie between 0 and 2^-24, rounds to the even one, 0; anything above 2^-25 becomes at least 2^-24.
TEST(NativeBackwardCounts, Fp16KernelFlushesAreCountedAsIeeeRoundingSaysTheyHappen) {
#if !AMPSCOPE_TORCH_AT_LEAST(2, 2)
  GTEST_SKIP() << "LibTorch " << TORCH_VERSION
               << " has no CPU FP16 autocast (added in 2.2): fp16-amp runs only emulated here";
#else
  // 2^-14 times: 2^-14 (2^-28: flushed), 1 (2^-14: normal), 2^-12 (2^-26: flushed), 2^-11 (2^-25: the
  // tie, flushed), 3*2^-12 (3*2^-26 = 0.75*2^-24: rounds up to the subnormal 2^-24).
  ASSERT_TRUE(capabilityOf(PrecisionMode::FP16Amp, PrecisionPath::Native).native);
  PrecisionContext ctx(PrecisionMode::FP16Amp, /*native=*/true);
  runTinyCase(ctx, {-14, {std::ldexp(1.0, -14), 1.0, std::ldexp(1.0, -12), std::ldexp(1.0, -11),
                                     3 * std::ldexp(1.0, -12)}});
  const RoundingCounts weight = countsAt(ctx, "fc.grad_weight");
  EXPECT_EQ(weight.elements, 5);
  EXPECT_EQ(weight.flushedToZero, 3);
  EXPECT_EQ(weight.subnormal, 1);
  const RoundingCounts output = countsAt(ctx, "fc.grad_output");  // 2^-14: FP16's smallest normal
  EXPECT_EQ(output.elements, 1);
  EXPECT_EQ(output.flushedToZero, 0);
  EXPECT_EQ(output.subnormal, 0);
  EXPECT_EQ(countsAt(ctx, "fc.grad_bias").flushedToZero, 0);
#endif
}

// BF16: FP32's exponent range with 8 significant bits; the smallest subnormal is 2^-133, so the tie is at
// 2^-134. Every product below is representable in float32 too (down to 2^-149), so nothing but the
// BF16 rounding can make it 0.
TEST(NativeBackwardCounts, Bf16KernelFlushesAreCountedAsIeeeRoundingSaysTheyHappen) {
  // 2^-100 times: 2^-30 (2^-130: subnormal), 2^-34 (2^-134: the tie, flushed), 2^-40 (2^-140: flushed),
  // 1 (normal), 3*2^-35 (0.75*2^-133: rounds up to the subnormal 2^-133).
  ASSERT_TRUE(capabilityOf(PrecisionMode::BF16Amp, PrecisionPath::Native).native);
  PrecisionContext ctx(PrecisionMode::BF16Amp, /*native=*/true);
  runTinyCase(ctx, {-100, {std::ldexp(1.0, -30), std::ldexp(1.0, -34), std::ldexp(1.0, -40), 1.0,
                                      3 * std::ldexp(1.0, -35)}});
  const RoundingCounts weight = countsAt(ctx, "fc.grad_weight");
  EXPECT_EQ(weight.elements, 5);
  EXPECT_EQ(weight.flushedToZero, 2);
  EXPECT_EQ(weight.subnormal, 2);
  EXPECT_EQ(countsAt(ctx, "fc.grad_output").flushedToZero, 0);
}

ModeStep stepOf(ModelKind model, PrecisionMode mode, PrecisionPath path, bool instrument, int steps,
                std::vector<torch::Tensor>* finalParameters = nullptr) {
  RunConfig config = presetFor(model);
  torch::manual_seed(0);
  auto reference = makeModel(model);
  ModeTrainer trainer(config, capabilityOf(mode, path), *reference);
  const SyntheticData data(model, 0, config.batchSize);
  ModeStep last;
  for (int s = 1; s <= steps; ++s) last = trainer.step(s, data.batch(s), instrument, false);
  if (finalParameters != nullptr) {
    for (const auto& p : trainer.namedParameters()) finalParameters->push_back(p.second.detach().clone());
  }
  return last;
}

// The deep MLP of the underflow lesson, fp16-amp without a scaler: tens of thousands of gradient values
// flush per step. The emulation counts each at its exact RNE rounding; the native count must find the
// same flushes in the kernels' results. They may differ only where a native GEMM's summation order puts
// a value on the other side of the flush threshold than the emulation's FP32 GEMM does.
TEST(NativeBackwardCounts, NativeFp16AmpFlushesMatchTheEmulationsOnTheDeepMlp) {
#if !AMPSCOPE_TORCH_AT_LEAST(2, 2)
  GTEST_SKIP() << "LibTorch " << TORCH_VERSION << " has no CPU FP16 autocast: nothing native to compare";
#else
  const ModeStep native = stepOf(ModelKind::DeepMLP, PrecisionMode::FP16Amp, PrecisionPath::Native, true, 1);
  const ModeStep emulated = stepOf(ModelKind::DeepMLP, PrecisionMode::FP16Amp, PrecisionPath::Emulated, true, 1);
  ASSERT_GT(emulated.rounding.flushedToZero, 1000);
  EXPECT_NEAR(static_cast<double>(native.rounding.flushedToZero),
              static_cast<double>(emulated.rounding.flushedToZero), 0.005 * emulated.rounding.flushedToZero);
#endif
}

// Instrumenting a native step (explicit casts, hooks, the float64 recomputation) must not change what
// the step computes or the memory it is measured to hold: the recomputation's scratch is not counted.
TEST(NativeBackwardCounts, InstrumentingANativeStepChangesNoNumberAndNoMeasuredByte) {
  installCountingAllocator();
  for (const PrecisionMode mode : {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure}) {
    std::vector<torch::Tensor> plainParams, instrumentedParams;
    const ModeStep plain =
        stepOf(ModelKind::TinyTransformer, mode, PrecisionPath::Native, false, 3, &plainParams);
    const ModeStep instrumented =
        stepOf(ModelKind::TinyTransformer, mode, PrecisionPath::Native, true, 3, &instrumentedParams);
    EXPECT_EQ(plain.loss, instrumented.loss) << modeName(mode);
    EXPECT_EQ(plain.gradNormBeforeClip, instrumented.gradNormBeforeClip) << modeName(mode);
    EXPECT_GT(plain.peakBytes, 0) << modeName(mode);
    EXPECT_EQ(plain.peakBytes, instrumented.peakBytes) << modeName(mode);
    EXPECT_EQ(plain.currentBytes, instrumented.currentBytes) << modeName(mode);
    ASSERT_EQ(plainParams.size(), instrumentedParams.size());
    for (size_t i = 0; i < plainParams.size(); ++i) {
      EXPECT_TRUE(torch::equal(plainParams[i], instrumentedParams[i])) << modeName(mode) << " parameter " << i;
    }
    EXPECT_GT(instrumented.rounding.elements, 0) << modeName(mode);
  }
}

}  // namespace
}  // namespace ampscope::detail
