#include "mode_trainer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>

#include "autocast_scope.h"
#include "counting_allocator.h"
#include "exponent_histogram_builder.h"
#include "fused_optimizer.h"
#include "grad_clip.h"
#include "rounded_adamw.h"
#include "rounded_sgd.h"
#include "sum_of_squares.h"

namespace ampscope::detail {
namespace {

int64_t bytesOf(const torch::Tensor& t) {
  return t.defined() ? static_cast<int64_t>(t.numel()) * static_cast<int64_t>(t.element_size()) : 0;
}

// The clip coefficient torch.nn.utils.clip_grad_norm_ applies (1e-6 guards a zero norm).
double clipCoefficient(double norm, double maxNorm) {
  return std::min(1.0, maxNorm / (norm + 1e-6));
}

// A shown norm from its sum of squares in double, rounded to float32, the dtype clip_grad_norm_'s norm
// has: the float32 nearest the true norm, where torch's float32 accumulation lands up to tens of ulps away.
double float32Norm(double squares) { return static_cast<double>(static_cast<float>(std::sqrt(squares))); }

}  // namespace

ModeTrainer::ModeTrainer(const RunConfig& config, const ModeCapability& capability, Model& reference)
    : config_(config),
      mode_(capability.mode),
      context_(capability.mode, capability.native, config.fp8, &config.plan),
      model_(makeModel(config.model)) {
  at::NoGradGuard noGrad;
  const auto source = reference.named_parameters();
  for (auto& item : model_->named_parameters()) item.value().copy_(source[item.key()]);
  if (context_.kind() == ExecKind::PureNative) model_->to(context_.lowDtype());
  for (const auto& item : model_->named_parameters()) {
    named_.emplace_back(item.key(), item.value());
    params_.push_back(item.value());
    parameterBytes_ += bytesOf(item.value());
  }
  flat_ = std::make_unique<FlatParameters>(params_);
  const bool pureEmulated = context_.kind() == ExecKind::PureEmulated;
  if (pureEmulated) roundInPlace(flat_->values(), context_.format(), nullptr);
  const auto adamOptions =
      torch::optim::AdamWOptions(config.lr).eps(config.adamEps).weight_decay(config.weightDecay);
  const auto sgdOptions = torch::optim::SGDOptions(config.lr).momentum(config.momentum);
  // model.half() (emulated): the optimizer's every in-place op writes FP16.
  const std::optional<LowFormat> rounding =
      pureEmulated ? std::optional<LowFormat>(context_.format()) : std::nullopt;
  if (fusedStepsAvailable(flat_->values().scalar_type())) {
    if (config.optimizer == OptimizerKind::AdamW) {
      auto adam = std::make_unique<FusedAdamW>(*flat_, params_, adamOptions, rounding);
      if (rounding) countUpdates_ = [o = adam.get()](RoundingCounts* c) { o->setUpdateCounts(c); };
      fusedFinite_ = [adam = adam.get()] { return adam->parametersFinite(); };
      optimizer_ = std::move(adam);
    } else {
      auto sgd = std::make_unique<FusedSgd>(*flat_, params_, sgdOptions, rounding);
      if (rounding) countUpdates_ = [o = sgd.get()](RoundingCounts* c) { o->setUpdateCounts(c); };
      fusedFinite_ = [sgd = sgd.get()] { return sgd->parametersFinite(); };
      optimizer_ = std::move(sgd);
    }
  } else if (pureEmulated) {
    if (config.optimizer == OptimizerKind::AdamW) {
      auto adam = std::make_unique<RoundedAdamW>(params_, adamOptions, context_.format());
      countUpdates_ = [o = adam.get()](RoundingCounts* c) { o->setUpdateCounts(c); };
      optimizer_ = std::move(adam);
    } else {
      auto sgd = std::make_unique<RoundedSgd>(params_, sgdOptions, context_.format());
      countUpdates_ = [o = sgd.get()](RoundingCounts* c) { o->setUpdateCounts(c); };
      optimizer_ = std::move(sgd);
    }
  } else if (config.optimizer == OptimizerKind::AdamW) {
    optimizer_ = std::make_unique<torch::optim::AdamW>(params_, adamOptions);
  } else {
    optimizer_ = std::make_unique<torch::optim::SGD>(params_, sgdOptions);
  }
  if (usesGradScaler(config, mode_)) {
    scaler_ = std::make_unique<GradScaler>(config.scaler,
                                           /*allowFp16=*/mode_ == PrecisionMode::FP16Pure);
  }
  // Histogram overlays: the mode's own low format; FP32 is shown against FP16 ("what would happen").
  histogramTarget_ = context_.format();
  if (auto* mlp = dynamic_cast<Mlp*>(model_.get())) directPass_ = std::make_unique<MlpDirectPass>(*mlp);
  context_.setRoundingCost(config.roundingCost && mode_ == PrecisionMode::FP32);
}

torch::Tensor ModeTrainer::forwardLoss(const Batch& batch) {
  std::optional<AutocastScope> autocast;
  if (context_.kind() == ExecKind::AmpNative) {
    autocast.emplace(c10::DeviceType::CPU, context_.lowDtype());
  }
  const Act logits = model_->forward(context_, batch.inputs);
  return model_->loss(context_, logits, batch.targets);
}

std::vector<torch::Tensor> ModeTrainer::optimizerStateTensors() {
  std::vector<torch::Tensor> tensors;
  for (auto& entry : optimizer_->state()) {
    if (auto* adam = dynamic_cast<torch::optim::AdamWParamState*>(entry.second.get())) {
      tensors.push_back(adam->exp_avg());
      tensors.push_back(adam->exp_avg_sq());
      if (adam->max_exp_avg_sq().defined()) tensors.push_back(adam->max_exp_avg_sq());
    } else if (auto* sgd = dynamic_cast<torch::optim::SGDParamState*>(entry.second.get())) {
      if (sgd->momentum_buffer().defined()) tensors.push_back(sgd->momentum_buffer());
    }
  }
  return tensors;
}

int64_t ModeTrainer::optimizerStateBytes() {
  // The state only grows when a parameter steps for the first time: measured again after such steps.
  if (optimizerStateBytes_ < 0) {
    int64_t bytes = 0;
    for (const auto& t : optimizerStateTensors()) bytes += bytesOf(t);
    optimizerStateBytes_ = bytes;
  }
  return optimizerStateBytes_;
}

bool ModeTrainer::parametersFinite() const {
  for (const auto& p : params_) {
    if (p.scalar_type() == torch::kFloat && p.is_contiguous()) {
      const float* data = p.data_ptr<float>();
      const int64_t n = p.numel();
      bool finite = true;
      for (int64_t i = 0; i < n; ++i) finite &= std::isfinite(data[i]);
      if (!finite) return false;
    } else if (!torch::isfinite(p).all().item<bool>()) {
      return false;
    }
  }
  return true;
}

bool ModeTrainer::parametersFiniteAfterStep() const {
  return fusedFinite_ ? fusedFinite_() : parametersFinite();
}

ModeStep ModeTrainer::step(int64_t stepIndex, const Batch& batch, bool instrument, bool injectInf) {
  const auto started = std::chrono::steady_clock::now();
  ModeStep out;
  out.mode = mode_;
  out.step = stepIndex;
  out.lr = config_.lr;
  out.instrumented = instrument;

  for (auto& p : params_) p.mutable_grad() = torch::Tensor();  // zero_grad(set_to_none=True)
  // The flat gradient buffer is held between steps (backward's own gradients are copied into it).
  const int64_t held = parameterBytes_ + bytesOf(flat_->gradients()) + optimizerStateBytes();
  const int64_t base = allocatorCounters().currentBytes;
  resetAllocatorPeak();

  const double scale = scaler_ ? scaler_->getScale() : 1.0;
  out.lossScale = scale;
  context_.beginPass(instrument, /*recordOps=*/false, static_cast<float>(1.0 / scale));

  const int64_t forwardStart = allocatorCounters().currentBytes;
  const bool direct = directAllowed_ && directPass_ && directPass_->applies(context_);
  const torch::Tensor loss =
      direct ? directPass_->forward(context_, batch.inputs, batch.targets) : forwardLoss(batch);
  const int64_t activationBytes = allocatorCounters().currentBytes - forwardStart;
  out.loss = loss.item<double>();

  auto finish = [&]() {
    out.stepTimeMs =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    const AllocatorCounters counters = allocatorCounters();
    out.currentBytes = held + (counters.currentBytes - base);
    out.peakBytes = held + (counters.peakBytes - base);
  };

  if (!std::isfinite(out.loss) && !scaler_) {
    // Without a scaler nothing recovers from a non-finite loss: the mode has diverged.
    out.diverged = diverged_ = true;
    out.foundInf = true;
    out.gradNormBeforeClip = out.gradNormAfterClip = std::numeric_limits<double>::quiet_NaN();
    if (direct) directPass_->release();
    finish();
    return out;
  }

  if (direct) {
    // The gradients are written straight into their slices of the flat buffer, a pure mode's rounded
    // there (the gather below then finds them in place and only sums their squares).
    directPass_->backward(context_, config_.lossWeight, scale, [this](const torch::Tensor& p) {
      for (size_t i = 0; i < params_.size(); ++i) {
        if (params_[i].unsafeGetTensorImpl() == p.unsafeGetTensorImpl()) return flat_->viewOf(flat_->gradients(), i);
      }
      return torch::Tensor();
    });
  } else {
    const torch::Tensor weighted = context_.weightLoss(loss, config_.lossWeight);
    (scaler_ ? scaler_->scale(weighted) : weighted).backward();
  }

  at::NoGradGuard noGrad;
  // Without a clip the norm is only shown (a clip keeps clip_grad_norm_'s own arithmetic, since its
  // coefficient changes the gradients): without a scaler its squares are summed in the gather's copy,
  // with one over the unscaled buffer (sum_of_squares.h).
  const bool flatFloat = flat_->gradients().scalar_type() == torch::kFloat && flat_->gradients().device().is_cpu();
  const bool normInGather = !scaler_ && config_.clipOrder == ClipOrder::Off && !injectInf && flatFloat;
  double squaredNorm = 0;
  double* const squaredNormOut = normInGather ? &squaredNorm : nullptr;
  if (context_.kind() == ExecKind::PureEmulated) {
    gradientCounts_.resize(params_.size());
    for (size_t i = 0; i < params_.size(); ++i) {
      gradientCounts_[i] = context_.parameterGradientCounts(params_[i]);
    }
    flat_->gatherGradients(context_.format(), &gradientCounts_, squaredNormOut);
  } else {
    flat_->gatherGradients(std::nullopt, nullptr, squaredNormOut);
  }
  if (injectInf) {
    for (auto& p : params_) {
      if (p.grad().defined()) {
        p.mutable_grad().view({-1})[0].fill_(std::numeric_limits<double>::infinity());
        break;
      }
    }
  }

  // With a scaler, the unscaled gradients are the scaled ones times the float32 1/scale, which is how
  // unscale_ computes them, unless a clip changes them in between: then they are read after unscale_.
  const bool unscaledFromScaled = scaler_ && config_.clipOrder != ClipOrder::BeforeUnscale &&
                                  flat_->gradients().scalar_type() == torch::kFloat;
  const float invScale = static_cast<float>(1.0 / scale);
  std::vector<TensorStats> paramStats;
  if (instrument) {
    paramStats.reserve(named_.size());
    const auto& defined = flat_->gradientDefined();
    for (size_t i = 0; i < named_.size(); ++i) {
      TensorStats stats;
      stats.name = named_[i].first;
      stats.isParameter = true;
      stats.numel = params_[i].numel();
      if (defined[i] && config_.roundingCost && mode_ == PrecisionMode::FP32) {
        // The FP32 lane's gradient as it is (no scaler): what rounding it into each format would cost.
        const FlatSegment& s = flat_->segments()[i];
        stats.roundingCost =
            formatCostStats(roundingCosts(flat_->gradients().data_ptr<float>() + s.offset, s.numel));
      }
      if (defined[i]) {
        if (unscaledFromScaled) {
          const FlatSegment& s = flat_->segments()[i];
          accumulateHistogramPair(flat_->gradients().data_ptr<float>() + s.offset, s.numel, invScale,
                                  histogramTarget_, stats.scaled, stats.unscaled);
        } else {
          accumulateHistogram(params_[i].grad(), 1.0f, histogramTarget_, stats.scaled);
        }
      }
      paramStats.push_back(std::move(stats));
    }
  }

  updateCounts_ = RoundingCounts{};  // filled by the rounded optimizers' final rounding
  if (countUpdates_) countUpdates_(instrument ? &updateCounts_ : nullptr);
  const ClipOrder clipOrder = config_.clipOrder;
  const double maxNorm = config_.clipMaxNorm;
  if (scaler_) {
    double seenScaled = 0;
    if (clipOrder == ClipOrder::BeforeUnscale) seenScaled = clipGradNorm(params_, maxNorm);
    // Without a clip the norm is only shown: each gradient's squares are summed in the unscale's pass,
    // one span per gradient (the sum's lanes start again at each, as sumOfSquares over it would).
    const bool normInUnscale = flatFloat && clipOrder == ClipOrder::Off;
    std::vector<double>& unscaledSquares = unscaledSquares_;
    unscaledSquares.clear();  // stays empty where the scaler is disabled or the norm is not summed here
    if (flatFloat) {
      std::vector<GradScaler::Span>& spans = unscaleSpans_;
      spans.clear();
      const auto& defined = flat_->gradientDefined();
      for (size_t i = 0; i < params_.size(); ++i) {
        if (!defined[i]) continue;
        const FlatSegment& s = flat_->segments()[i];
        if (!normInUnscale && !spans.empty() && spans.back().offset + spans.back().numel == s.offset) {
          spans.back().numel += s.numel;  // neighbours: one pass
        } else {
          spans.push_back({s.offset, s.numel});
        }
      }
      scaler_->unscaleFlat_(*optimizer_, flat_->gradients().data_ptr<float>(), spans,
                            normInUnscale ? &unscaledSquares : nullptr);
    } else {
      scaler_->unscale_(*optimizer_);
    }
    if (instrument && !unscaledFromScaled) {
      for (size_t i = 0; i < params_.size(); ++i) {
        if (params_[i].grad().defined()) {
          accumulateHistogram(params_[i].grad(), 1.0f, histogramTarget_, paramStats[i].unscaled);
        }
      }
    }
    if (clipOrder == ClipOrder::AfterUnscale) {
      const double norm = clipGradNorm(params_, maxNorm);
      out.clipNormSeen = out.gradNormBeforeClip = norm;
      out.gradNormAfterClip = norm * clipCoefficient(norm, maxNorm);
    } else if (clipOrder == ClipOrder::BeforeUnscale) {
      // The clip saw the scaled norm; the true (unscaled) norms follow from the same coefficient.
      out.clipNormSeen = seenScaled;
      out.gradNormBeforeClip = seenScaled / scale;
      out.gradNormAfterClip = seenScaled * clipCoefficient(seenScaled, maxNorm) / scale;
    } else if (flatFloat) {
      // Only shown, as without a scaler (below): summed over the unscaled flat buffer, in the unscale's
      // pass unless the scaler is disabled.
      double squares = 0;
      if (!unscaledSquares.empty()) {
        for (const double segment : unscaledSquares) squares += segment;
      } else {
        const float* grads = flat_->gradients().data_ptr<float>();
        const auto& defined = flat_->gradientDefined();
        for (size_t i = 0; i < params_.size(); ++i) {
          if (defined[i]) squares += sumOfSquares(grads + flat_->segments()[i].offset, flat_->segments()[i].numel);
        }
      }
      out.gradNormBeforeClip = out.gradNormAfterClip = float32Norm(squares);
    } else {
      out.gradNormBeforeClip = out.gradNormAfterClip = gradNorm(params_);
    }
    const bool stepped = scaler_->step(*optimizer_);
    out.foundInf = scaler_->foundInfLastStep();
    out.skipped = !stepped;
    scaler_->update();
  } else {
    if (instrument) {
      for (auto& stats : paramStats) stats.unscaled = stats.scaled;
    }
    if (clipOrder != ClipOrder::Off) {
      const double norm = clipGradNorm(params_, maxNorm);
      out.clipNormSeen = out.gradNormBeforeClip = norm;
      out.gradNormAfterClip = norm * clipCoefficient(norm, maxNorm);
    } else {
      out.gradNormBeforeClip = out.gradNormAfterClip = normInGather ? float32Norm(squaredNorm) : gradNorm(params_);
    }
    out.foundInf = !std::isfinite(out.gradNormBeforeClip);
    optimizer_->step();  // PyTorch without a scaler steps whatever the gradients hold
  }

  if (!out.skipped && !parametersFiniteAfterStep()) out.diverged = diverged_ = true;
  if (optimizer_->state().size() != stateEntries_) {
    stateEntries_ = optimizer_->state().size();
    optimizerStateBytes_ = -1;
  }
  out.quantized = context_.endStep();  // rolls the FP8 amax histories (precision_context.h)

  if (instrument) {
    out.roundingPoints = context_.roundingPoints();
    if (context_.kind() == ExecKind::PureEmulated) {
      RoundingPointStats update;
      update.name = "optimizer.parameters";
      update.layer = "optimizer";
      update.backward = true;
      update.counts = updateCounts_;
      out.roundingPoints.push_back(update);
    }
    for (const auto& p : out.roundingPoints) out.rounding.add(p.counts);
    out.tensors = std::move(paramStats);
    for (auto& tap : context_.activationTaps()) out.tensors.push_back(std::move(tap));
  }

  int64_t gradientBytes = 0;
  const auto& defined = flat_->gradientDefined();
  for (size_t i = 0; i < params_.size(); ++i) {
    if (defined[i]) gradientBytes += bytesOf(params_[i]);
  }
  finish();
  ledger_.parameters = parameterBytes_;
  ledger_.gradients = gradientBytes;
  ledger_.optimizerState = optimizerStateBytes();
  ledger_.activations = activationBytes;
  ledger_.peak = out.peakBytes;
  ledger_.temporaries = std::max<int64_t>(
      0, ledger_.peak - ledger_.parameters - ledger_.gradients - ledger_.optimizerState -
             ledger_.activations);
  return out;
}

std::vector<OpDtypeEntry> ModeTrainer::opDtypeReport(const Batch& batch) {
  at::NoGradGuard noGrad;
  context_.beginPass(/*instrument=*/false, /*recordOps=*/true, 1.0f);
  torch::Tensor loss;
  Act logits;
  {
    std::optional<AutocastScope> autocast;
    if (context_.kind() == ExecKind::AmpNative) {
      autocast.emplace(c10::DeviceType::CPU, context_.lowDtype());
    }
    logits = model_->forward(context_, batch.inputs);
    loss = model_->loss(context_, logits, batch.targets);
  }
  std::vector<OpDtypeEntry> entries = context_.takeOpRecord();
  const std::string low = lowFormatDtypeName(context_.format());
  const bool emulated = context_.emulated();
  auto tensorEntry = [&](const char* where, const torch::Tensor& t, bool isLow) {
    OpDtypeEntry entry;
    entry.op = "tensor";
    entry.where = where;
    entry.inputDtype = entry.outputDtype = (emulated && isLow) ? low : dtypeName(t.scalar_type());
    entry.emulated = emulated && isLow;
    entries.push_back(entry);
  };
  tensorEntry("logits", logits.t, logits.low);
  tensorEntry("loss", loss, context_.kind() == ExecKind::PureEmulated);
  context_.beginPass(false, false, 1.0f);
  return entries;
}

}  // namespace ampscope::detail
