#include "ampscope/engine/telemetry.h"

namespace ampscope {

const char* rangeFormatKey(RangeFormat format) {
  switch (format) {
    case RangeFormat::FP16: return "fp16";
    case RangeFormat::BF16: return "bf16";
    case RangeFormat::FP8E4M3: return "fp8-e4m3";
    case RangeFormat::FP8E5M2: return "fp8-e5m2";
  }
  return "fp16";
}

const char* tensorRoleKey(TensorRole role) {
  switch (role) {
    case TensorRole::Gradient: return "gradient";
    case TensorRole::Activation: return "activation";
    case TensorRole::ActivationGradient: return "activation-gradient";
    case TensorRole::Weight: return "weight";
  }
  return "gradient";
}

TensorRole tensorRole(const TensorStats& tensor) {
  if (tensor.isParameter) return TensorRole::Gradient;
  return tensor.role == TensorRole::Gradient ? TensorRole::ActivationGradient : tensor.role;
}

const char* quantFormatKey(QuantFormat format) {
  switch (format) {
    case QuantFormat::E4M3: return "e4m3";
    case QuantFormat::E5M2: return "e5m2";
    case QuantFormat::E2M1: return "e2m1";
  }
  return "e4m3";
}

const char* scalingKindKey(ScalingKind kind) {
  switch (kind) {
    case ScalingKind::None: return "none";
    case ScalingKind::Delayed: return "delayed";
    case ScalingKind::Current: return "current";
    case ScalingKind::MxBlock: return "mx-block";
    case ScalingKind::Nvfp4Block: return "nvfp4-block";
  }
  return "none";
}

std::optional<QuantFormat> parseQuantFormat(const std::string& key) {
  for (QuantFormat f : {QuantFormat::E4M3, QuantFormat::E5M2, QuantFormat::E2M1}) {
    if (key == quantFormatKey(f)) return f;
  }
  return std::nullopt;
}

std::optional<ScalingKind> parseScalingKind(const std::string& key) {
  for (ScalingKind k : {ScalingKind::None, ScalingKind::Delayed, ScalingKind::Current, ScalingKind::MxBlock,
                        ScalingKind::Nvfp4Block}) {
    if (key == scalingKindKey(k)) return k;
  }
  return std::nullopt;
}

int64_t ExponentHistogram::total() const {
  return zero + posInf + negInf + nan + counts.sum();
}

void ExponentHistogram::add(const ExponentHistogram& other) {
  counts.add(other.counts);
  zero += other.zero;
  posInf += other.posInf;
  negInf += other.negInf;
  nan += other.nan;
  targetSubnormal += other.targetSubnormal;
  targetUnderflow += other.targetUnderflow;
  for (std::size_t f = 0; f < formats.size(); ++f) {
    formats[f].flushed += other.formats[f].flushed;
    formats[f].subnormal += other.formats[f].subnormal;
    formats[f].overflowed += other.formats[f].overflowed;
  }
  formatsMeasured = formatsMeasured || other.formatsMeasured;
}

void FoldedEntries::addCounts(const FoldedEntries& other) {
  tensors += other.tensors;
  parameters += other.parameters;
  roundingPoints += other.roundingPoints;
  quantized += other.quantized;
  names += other.names;
}

void FoldedEntries::add(const FoldedEntries& other) {
  addCounts(other);
  if (!other.parameterSum) return;
  if (!parameterSum) {
    parameterSum = other.parameterSum;
    return;
  }
  auto sum = std::make_shared<TensorStats>(*parameterSum);
  sum->numel += other.parameterSum->numel;
  sum->scaled.add(other.parameterSum->scaled);
  sum->unscaled.add(other.parameterSum->unscaled);
  parameterSum = std::move(sum);
}

void RoundingCounts::add(const RoundingCounts& other) {
  elements += other.elements;
  flushedToZero += other.flushedToZero;
  subnormal += other.subnormal;
  overflowed += other.overflowed;
  nan += other.nan;
}

}  // namespace ampscope
