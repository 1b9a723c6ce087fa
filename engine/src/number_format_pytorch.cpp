// pytorchConversion(): the value PyTorch stores for a Python float, beside the exact rounding.
#include <cmath>
#include <string>

#include "ampscope/engine/number_format.h"
#include "ampscope/engine/number_text.h"
#include "number_format_mx.h"

namespace ampscope {

namespace {

bool sameValue(double a, double b) { return a == b ? std::signbit(a) == std::signbit(b) : std::isnan(a) && std::isnan(b); }

// Why rounding the float32 differs from rounding the double. Every midpoint between neighbours of the
// formats here is a float32 value, so the first rounding cannot jump over one; it can land on one, and
// the second rounding then breaks a tie that the double did not have.
std::string whyItDiffers(DType dtype, double viaFloat32, double stored) {
  const FInfo info = finfo(dtype);
  const double overflowThreshold = info.max + ulp(dtype, info.max) / 2;
  if (std::fabs(viaFloat32) == overflowThreshold) {
    return dtype == DType::E8M0 ? "a tie at the overflow threshold, rounded up"
                                : "ties to even at the overflow threshold";
  }
  const double other = 2 * viaFloat32 - stored;  // the other neighbour when viaFloat32 is their midpoint
  if (std::isfinite(stored) && roundTo(dtype, viaFloat32) != viaFloat32 && roundTo(dtype, other) == other) {
    return dtype == DType::E8M0 ? "a tie there, rounded up" : "a tie there, broken to even";
  }
  return "a rounding boundary there";
}

}  // namespace

PyTorchConversion pytorchConversion(DType dtype, double value) {
  PyTorchConversion c;
  if (dtype == DType::TF32 || dtype == DType::FP4E2M1) return c;  // no such cast in PyTorch
  c.available = true;
  const RoundingResult exact = roundValue(dtype, value);
  if (dtype == DType::FP64) {
    c.viaFloat32 = value;  // no conversion at all
    c.bits = exact.bits;
    c.stored = exact.stored;
    return c;
  }
  const float f = static_cast<float>(value);  // IEEE round-to-nearest-even, the first rounding
  c.viaFloat32 = static_cast<double>(f);
  c.bits = dtype == DType::E8M0 ? mx::e8m0FromFloat32LikePyTorch(f) : encode(dtype, c.viaFloat32);
  c.stored = decode(dtype, c.bits);
  c.differs = !sameValue(c.stored, exact.stored);
  if (!c.differs) return c;
  if (dtype == DType::E8M0 && value == 0) {
    c.reason = "PyTorch's float8_e8m0fnu cast keeps float32's exponent field: 0 becomes 2^-127 (E8M0 has no "
               "zero)";
  } else if (dtype == DType::E8M0 && value < 0) {
    c.reason = "PyTorch's float8_e8m0fnu cast drops the sign: " + numberText(value) + " -> " +
               numberText(c.stored) + " (E8M0 has no sign)";
  } else if (dtype == DType::E8M0 && c.viaFloat32 != 0 && std::fabs(c.viaFloat32) < 0x1p-126) {
    c.reason = "PyTorch's float8_e8m0fnu cast rounds a float32 subnormal by its leading mantissa bits: " +
               numberText(value) + " -> " + numberText(c.stored);
  } else {
    c.reason = "PyTorch rounds to float32 first: " + numberText(value) + " -> " + numberText(c.viaFloat32) +
               " (float32) -> " + numberText(c.stored) + " (" + whyItDiffers(dtype, c.viaFloat32, c.stored) +
               ")";
  }
  return c;
}

}  // namespace ampscope
