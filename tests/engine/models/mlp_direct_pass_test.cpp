// The MLPs' pass without autograd (models/mlp_direct_pass.h) against the autograd pass it replaces, in
// FP32 and every emulated mode: the same loss, gradients, gradient-tap histograms and rounding counts,
// bit for bit, and the same training over many steps (the optimizers, the GradScaler, a loss weight,
// clipping, an injected inf and a divergence included). The autograd pass is the reference: in FP32 it
// is what PyTorch runs for the chapter's TinyMLP (loss.backward() through nn.Linear, nn.GELU and
// F.cross_entropy), and its emulated roundings are tested against real FP16/BF16 elsewhere.
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "ampscope/engine/comparison.h"
#include "mode_trainer.h"
#include "models/mlp.h"
#include "models/mlp_direct_pass.h"
#include "models/model.h"
#include "precision_context.h"
#include "synthetic_data.h"

namespace ampscope::detail {
namespace {

bool sameBits(const torch::Tensor& a, const torch::Tensor& b) {
  if (!a.defined() || !b.defined()) return a.defined() == b.defined();
  const torch::Tensor x = a.contiguous();
  const torch::Tensor y = b.contiguous();
  return x.sizes() == y.sizes() && x.scalar_type() == y.scalar_type() &&
         std::memcmp(x.data_ptr(), y.data_ptr(), static_cast<size_t>(x.numel() * x.element_size())) == 0;
}

bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Empty when equal, else the first difference.
std::string histogramDifference(const ExponentHistogram& a, const ExponentHistogram& b) {
  std::ostringstream out;
  for (int e = ExponentHistogram::kMinExponent; e <= ExponentHistogram::kMaxExponent; ++e) {
    if (a.countAt(e) != b.countAt(e)) {
      out << "bin 2^" << e << ": " << a.countAt(e) << " vs " << b.countAt(e);
      return out.str();
    }
  }
  if (a.zero != b.zero || a.posInf != b.posInf || a.negInf != b.negInf || a.nan != b.nan) return "zero/inf/nan";
  if (a.targetSubnormal != b.targetSubnormal || a.targetUnderflow != b.targetUnderflow) return "overlays";
  if (a.formatsMeasured != b.formatsMeasured) return "formatsMeasured";
  for (int f = 0; f < kRangeFormats; ++f) {
    const FormatRangeCounts& x = a.formats[static_cast<size_t>(f)];
    const FormatRangeCounts& y = b.formats[static_cast<size_t>(f)];
    if (x.flushed != y.flushed || x.subnormal != y.subnormal || x.overflowed != y.overflowed) {
      return std::string("range counts of ") + rangeFormatKey(static_cast<RangeFormat>(f));
    }
  }
  return "";
}

void expectSameTensors(const std::vector<TensorStats>& a, const std::vector<TensorStats>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].numel, b[i].numel) << a[i].name;
    EXPECT_EQ(histogramDifference(a[i].scaled, b[i].scaled), "") << a[i].name << " scaled";
    EXPECT_EQ(histogramDifference(a[i].unscaled, b[i].unscaled), "") << a[i].name << " unscaled";
  }
}

Mlp& asMlp(Model& model) { return dynamic_cast<Mlp&>(model); }

void expectSamePoints(const std::vector<RoundingPointStats>& a, const std::vector<RoundingPointStats>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].name, b[i].name);
    EXPECT_EQ(a[i].layer, b[i].layer);
    EXPECT_EQ(a[i].backward, b[i].backward) << a[i].name;
    const RoundingCounts& x = a[i].counts;
    const RoundingCounts& y = b[i].counts;
    EXPECT_TRUE(x.elements == y.elements && x.flushedToZero == y.flushedToZero && x.subnormal == y.subnormal &&
                x.overflowed == y.overflowed && x.nan == y.nan)
        << a[i].name << ": " << x.elements << "/" << x.flushedToZero << "/" << x.subnormal << " vs "
        << y.elements << "/" << y.flushedToZero << "/" << y.subnormal;
  }
}

struct PassCase {
  ModelKind model = ModelKind::TinyMLP;
  PrecisionMode mode = PrecisionMode::FP32;
  bool instrument = true;
  bool intoBuffers = false;
  double lossWeight = 1.0;
  double scale = 1.0;
};

// One pass each way over copies of the same weights: loss, gradients, taps and rounding points.
void expectPassMatchesAutograd(const PassCase& c) {
  SCOPED_TRACE(modeName(c.mode));
  torch::manual_seed(7);
  auto viaAutograd = makeModel(c.model);
  auto direct = makeModel(c.model);
  {
    torch::NoGradGuard noGrad;
    const auto source = viaAutograd->named_parameters();
    for (auto& item : direct->named_parameters()) item.value().copy_(source[item.key()]);
  }
  const SyntheticData data(c.model, /*seed=*/3, /*batchSize=*/32);
  const Batch batch = data.batch(1);
  const auto invScale = static_cast<float>(1.0 / c.scale);
  const bool native = c.mode == PrecisionMode::FP32;

  PrecisionContext reference(c.mode, native);
  reference.beginPass(c.instrument, false, invScale);
  const Act logits = viaAutograd->forward(reference, batch.inputs);
  const torch::Tensor expectedLoss = viaAutograd->loss(reference, logits, batch.targets);
  const torch::Tensor weighted = reference.weightLoss(expectedLoss, c.lossWeight);
  (c.scale != 1.0 ? weighted * torch::scalar_tensor(c.scale, torch::kFloat) : weighted).backward();
  if (reference.kind() == ExecKind::PureEmulated) {
    // What the trainer's gather does with a pure mode's gradients; the direct pass does it in backward.
    torch::NoGradGuard noGrad;
    for (auto& item : viaAutograd->named_parameters()) {
      roundInPlace(item.value().mutable_grad(), reference.format(), reference.parameterGradientCounts(item.value()));
    }
  }

  PrecisionContext ctx(c.mode, native);
  ctx.beginPass(c.instrument, false, invScale);
  MlpDirectPass pass(asMlp(*direct));
  ASSERT_TRUE(pass.applies(ctx));
  const torch::Tensor loss = pass.forward(ctx, batch.inputs, batch.targets);
  EXPECT_FALSE(loss.requires_grad());
  std::map<const c10::TensorImpl*, torch::Tensor> buffers;
  pass.backward(ctx, c.lossWeight, c.scale, [&](const torch::Tensor& p) {
    if (!c.intoBuffers) return torch::Tensor();
    torch::Tensor& buffer = buffers[p.unsafeGetTensorImpl()];
    EXPECT_FALSE(buffer.defined()) << "asked twice for one parameter's buffer";
    buffer = torch::full_like(p, std::nanf(""));  // every element must be overwritten
    return buffer;
  });

  EXPECT_TRUE(sameBits(loss, expectedLoss)) << loss.item<float>() << " vs " << expectedLoss.item<float>();
  const auto expected = viaAutograd->named_parameters();
  for (const auto& item : direct->named_parameters()) {
    const torch::Tensor& grad = item.value().grad();
    EXPECT_TRUE(sameBits(grad, expected[item.key()].grad())) << item.key();
    if (c.intoBuffers) {
      const auto buffer = buffers.find(item.value().unsafeGetTensorImpl());
      ASSERT_NE(buffer, buffers.end()) << item.key();
      EXPECT_EQ(grad.data_ptr(), buffer->second.data_ptr()) << item.key() << " not written in place";
    }
    // Pure emulated: where the gather counts each gradient's rounding, the same point on both sides.
    const RoundingCounts* counts = ctx.parameterGradientCounts(item.value());
    const RoundingCounts* expectedCounts = reference.parameterGradientCounts(expected[item.key()]);
    EXPECT_EQ(counts == nullptr, expectedCounts == nullptr) << item.key();
  }
  const auto taps = ctx.activationTaps();
  expectSameTensors(taps, reference.activationTaps());
  expectSamePoints(ctx.roundingPoints(), reference.roundingPoints());
  if (c.instrument) {
    const auto& layers = asMlp(*direct).layers();
    ASSERT_EQ(taps.size(), layers.size());
    for (size_t i = 0; i < taps.size(); ++i) {
      EXPECT_EQ(taps[i].name, "act:fc" + std::to_string(i + 1) + ".out");
      EXPECT_EQ(taps[i].numel, batch.inputs.size(0) * layers[i]->weight.size(0)) << taps[i].name;
    }
    if (c.mode != PrecisionMode::FP32) {
      EXPECT_FALSE(ctx.roundingPoints().empty());
    }
  } else {
    EXPECT_TRUE(taps.empty());
    EXPECT_TRUE(ctx.roundingPoints().empty());
  }
}

const PrecisionMode kDirectModes[] = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16AmpScaled,
                                      PrecisionMode::BF16Amp, PrecisionMode::FP16Pure, PrecisionMode::BF16Pure};

TEST(MlpDirectPass, TinyMlpPassEqualsAutograd) {
  for (PrecisionMode mode : kDirectModes) {
    expectPassMatchesAutograd({ModelKind::TinyMLP, mode, /*instrument=*/false});
  }
}

TEST(MlpDirectPass, TinyMlpInstrumentedPassIntoBuffersEqualsAutograd) {
  for (PrecisionMode mode : kDirectModes) {
    expectPassMatchesAutograd({ModelKind::TinyMLP, mode, /*instrument=*/true, /*intoBuffers=*/true});
  }
}

// A scale of 2^16 pushes FP16 gradients towards overflow, 2^-20 towards underflow: both counted.
TEST(MlpDirectPass, ScaledAndWeightedPassesEqualAutograd) {
  for (PrecisionMode mode : kDirectModes) {
    expectPassMatchesAutograd({ModelKind::TinyMLP, mode, true, true, /*lossWeight=*/0.3, /*scale=*/65536.0});
    expectPassMatchesAutograd({ModelKind::TinyMLP, mode, true, false, /*lossWeight=*/1.0, /*scale=*/0x1p-20});
  }
}

TEST(MlpDirectPass, DeepMlpInstrumentedPassEqualsAutograd) {
  for (PrecisionMode mode : kDirectModes) {
    expectPassMatchesAutograd({ModelKind::DeepMLP, mode, true, /*intoBuffers=*/false});
    expectPassMatchesAutograd({ModelKind::DeepMLP, mode, true, /*intoBuffers=*/true});
  }
}

TEST(MlpDirectPass, AppliesOnlyWhereItIsTheSameComputation) {
  torch::manual_seed(0);
  auto model = makeModel(ModelKind::TinyMLP);
  MlpDirectPass pass(asMlp(*model));
  EXPECT_TRUE(pass.applies(PrecisionContext(PrecisionMode::FP32, true)));
  EXPECT_TRUE(pass.applies(PrecisionContext(PrecisionMode::FP16Amp, false)));
  EXPECT_TRUE(pass.applies(PrecisionContext(PrecisionMode::BF16Pure, false)));
  EXPECT_FALSE(pass.applies(PrecisionContext(PrecisionMode::BF16Amp, true)));   // native autocast
  EXPECT_FALSE(pass.applies(PrecisionContext(PrecisionMode::BF16Pure, true)));  // native BF16 tensors
  EXPECT_FALSE(pass.applies(PrecisionContext(PrecisionMode::Fp8Delayed, true)));
  Fp8Config outlier;
  outlier.outlierFactor = 16.0;
  EXPECT_FALSE(pass.applies(PrecisionContext(PrecisionMode::FP32, true, outlier)));
  torch::NoGradGuard noGrad;
  model->to(torch::kBFloat16);
  EXPECT_FALSE(pass.applies(PrecisionContext(PrecisionMode::FP32, true)));
}

// Two trainers of one mode from the same weights, one allowed the direct pass: every step's record,
// the parameters after it and the memory ledger's activations agree bit for bit.
void expectTrainingMatchesAutograd(RunConfig config, PrecisionMode mode, int64_t steps, int64_t injectInfAt = 0) {
  SCOPED_TRACE(modeName(mode));
  torch::manual_seed(static_cast<int64_t>(config.seed));
  auto reference = makeModel(config.model);
  ModeCapability capability;
  capability.mode = mode;
  capability.native = mode == PrecisionMode::FP32;
  ModeTrainer viaAutograd(config, capability, *reference);
  viaAutograd.allowDirectPass(false);
  ModeTrainer direct(config, capability, *reference);
  const SyntheticData data(config.model, config.seed, config.batchSize);
  int64_t diverged = 0;
  // A diverged mode is stepped on here (the comparison stops it): its non-finite losses end the step
  // before backward, in both passes.
  for (int64_t step = 1; step <= steps; ++step) {
    const Batch batch = data.batch(step);
    const bool instrument = step % 3 == 1;
    const ModeStep a = viaAutograd.step(step, batch, instrument, step == injectInfAt);
    const ModeStep b = direct.step(step, batch, instrument, step == injectInfAt);
    ASSERT_TRUE(sameBits(a.loss, b.loss)) << "step " << step << ": " << a.loss << " vs " << b.loss;
    ASSERT_TRUE(sameBits(a.lossScale, b.lossScale)) << "step " << step;
    ASSERT_TRUE(sameBits(a.gradNormBeforeClip, b.gradNormBeforeClip)) << "step " << step;
    ASSERT_TRUE(sameBits(a.gradNormAfterClip, b.gradNormAfterClip)) << "step " << step;
    ASSERT_TRUE(sameBits(a.clipNormSeen, b.clipNormSeen)) << "step " << step;
    ASSERT_EQ(a.foundInf, b.foundInf) << "step " << step;
    ASSERT_EQ(a.skipped, b.skipped) << "step " << step;
    ASSERT_EQ(a.diverged, b.diverged) << "step " << step;
    expectSameTensors(a.tensors, b.tensors);
    expectSamePoints(a.roundingPoints, b.roundingPoints);
    for (size_t i = 0; i < viaAutograd.namedParameters().size(); ++i) {
      ASSERT_TRUE(sameBits(viaAutograd.namedParameters()[i].second, direct.namedParameters()[i].second))
          << "step " << step << " " << viaAutograd.namedParameters()[i].first;
    }
    EXPECT_EQ(viaAutograd.memoryLedger().activations, direct.memoryLedger().activations) << "step " << step;
    if (b.diverged && diverged == 0) diverged = step;
  }
  EXPECT_EQ(viaAutograd.diverged(), direct.diverged());
  if (config.lr > 1.0) {
    EXPECT_GT(diverged, 0) << "the divergence case did not diverge";
    EXPECT_LT(diverged, steps - 2) << "no steps after the divergence";
  }
}

TEST(MlpDirectPass, TinyMlpAdamWTrainingEqualsAutograd) {
  RunConfig config;
  config.model = ModelKind::TinyMLP;
  config.adamEps = 1e-4;  // fp16-pure trains (1e-8 is 0 in FP16)
  for (PrecisionMode mode : kDirectModes) expectTrainingMatchesAutograd(config, mode, 40);
}

TEST(MlpDirectPass, DeepMlpSgdClippedWeightedTrainingWithInjectedInfEqualsAutograd) {
  RunConfig config;
  config.model = ModelKind::DeepMLP;
  config.optimizer = OptimizerKind::SGD;
  config.clipOrder = ClipOrder::AfterUnscale;
  config.clipMaxNorm = 0.5;
  config.lossWeight = 0.25;
  config.scalerForPureFp16 = true;
  for (PrecisionMode mode : kDirectModes) expectTrainingMatchesAutograd(config, mode, 30, /*injectInfAt=*/5);
}

TEST(MlpDirectPass, ClipBeforeUnscaleTrainingEqualsAutograd) {
  RunConfig config;
  config.model = ModelKind::TinyMLP;
  config.optimizer = OptimizerKind::SGD;
  config.momentum = 0;
  config.clipOrder = ClipOrder::BeforeUnscale;
  expectTrainingMatchesAutograd(config, PrecisionMode::FP16AmpScaled, 20, /*injectInfAt=*/4);
}

TEST(MlpDirectPass, DivergingTrainingDivergesAtTheSameStep) {
  RunConfig config;
  config.model = ModelKind::TinyMLP;
  config.optimizer = OptimizerKind::SGD;
  config.lr = 1e30;
  for (PrecisionMode mode : {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16Pure}) {
    expectTrainingMatchesAutograd(config, mode, 40);
  }
}

}  // namespace
}  // namespace ampscope::detail
