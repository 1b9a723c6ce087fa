#include "number_format_mx.h"

#include <cmath>
#include <cstring>

#include "ampscope/engine/number_format.h"

namespace ampscope {

namespace mx {

uint64_t e8m0Encode(double value, bool saturate, bool* overflowed, bool* noEncoding) {
  *overflowed = false;
  *noEncoding = false;
  if (std::isnan(value)) return kE8M0NaN;
  if (value <= 0) {  // zeros and negative values, -inf included
    *noEncoding = true;
    return kE8M0NaN;
  }
  if (std::isinf(value)) {
    *overflowed = true;
    return saturate ? kE8M0Max : kE8M0NaN;
  }
  // value = m * 2^k with 1 <= m < 2 (ilogb is exact, double subnormals included). The candidates are
  // 2^k and 2^(k+1); their midpoint is 1.5 * 2^k.
  int k = std::ilogb(value);
  if (std::ldexp(value, -k) >= 1.5) ++k;
  if (k > 127) {
    *overflowed = true;
    return saturate ? kE8M0Max : kE8M0NaN;
  }
  if (k < -127) k = -127;  // no zero to round to: everything below is nearest to 2^-127
  return static_cast<uint64_t>(k + 127);
}

uint64_t e8m0FromFloat32LikePyTorch(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  uint32_t exponent = (bits >> 23) & 0xFF;
  if (exponent == 0xFF) return kE8M0NaN;
  const bool guard = (bits & 0x400000u) != 0;
  const bool round = (bits & 0x200000u) != 0;
  const bool sticky = (bits & 0x1FFFFFu) != 0;
  const bool impliedBit = exponent > 0;
  if (guard && (round || sticky || impliedBit)) ++exponent;  // 254 + 1 lands on NaN: the overflow
  return exponent;
}

}  // namespace mx

uint64_t e8m0FloorBits(double amax) {
  if (!(amax > 0) || std::isinf(amax)) return mx::kE8M0NaN;
  int k = std::ilogb(amax);
  if (k < -127) k = -127;
  if (k > 127) k = 127;
  return static_cast<uint64_t>(k + 127);
}

}  // namespace ampscope
