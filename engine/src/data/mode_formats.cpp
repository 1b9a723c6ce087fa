#include "ampscope/engine/mode_formats.h"

namespace ampscope {

ModeFormats modeFormats(PrecisionMode mode) {
  ModeFormats f;
  switch (mode) {
    case PrecisionMode::FP32:
      break;  // nothing rounds; measured against FP16
    case PrecisionMode::Plan:
      break;  // each layer rounds as its own mode (RunConfig::plan); the lane is measured against FP16
    case PrecisionMode::FP16AmpScaled:
    case PrecisionMode::FP16Amp:
    case PrecisionMode::FP16Pure:
      f.forward = f.gradient = f.measuredAgainst = DType::FP16;
      break;
    case PrecisionMode::BF16Amp:
    case PrecisionMode::BF16Pure:
      f.forward = f.gradient = f.measuredAgainst = DType::BF16;
      break;
    case PrecisionMode::Fp8Delayed:
    case PrecisionMode::Fp8Current:
      // Transformer Engine's HYBRID format: E4M3 forward, E5M2 for the gradients.
      f.forward = DType::FP8E4M3FN;
      f.gradient = f.measuredAgainst = DType::FP8E5M2;
      f.quantised = true;
      break;
    case PrecisionMode::MXFP8:
      // OCP MX v1.0 MXFP8 (E4M3 elements), 32 values per E8M0 scale; gradients in E4M3 too.
      f.forward = f.gradient = f.measuredAgainst = DType::FP8E4M3FN;
      f.quantised = true;
      f.blockSize = kMxfp8BlockSize;
      f.blockScale = DType::E8M0;
      break;
    case PrecisionMode::NVFP4:
      // E2M1 elements, an E4M3 scale per 16 values (and one FP32 scale per tensor).
      f.forward = f.gradient = f.measuredAgainst = DType::FP4E2M1;
      f.quantised = true;
      f.blockSize = kNvfp4BlockSize;
      f.blockScale = DType::FP8E4M3FN;
      break;
  }
  return f;
}

DType dtypeOf(QuantFormat format) {
  switch (format) {
    case QuantFormat::E4M3: return DType::FP8E4M3FN;
    case QuantFormat::E5M2: return DType::FP8E5M2;
    case QuantFormat::E2M1: return DType::FP4E2M1;
  }
  return DType::FP8E4M3FN;
}

std::optional<QuantFormat> quantFormatOf(DType dtype) {
  switch (dtype) {
    case DType::FP8E4M3FN: return QuantFormat::E4M3;
    case DType::FP8E5M2: return QuantFormat::E5M2;
    case DType::FP4E2M1: return QuantFormat::E2M1;
    default: return std::nullopt;
  }
}

std::optional<RangeFormat> rangeFormatOf(DType dtype) {
  switch (dtype) {
    case DType::FP16: return RangeFormat::FP16;
    case DType::BF16: return RangeFormat::BF16;
    case DType::FP8E4M3FN: return RangeFormat::FP8E4M3;
    case DType::FP8E5M2: return RangeFormat::FP8E5M2;
    default: return std::nullopt;
  }
}

}  // namespace ampscope
