// E8M0, the OCP MX block-scale format, apart from the sign/exponent/mantissa formats: it has no sign
// bit and no mantissa, so number_format.cpp hands its encoding to these functions.
#pragma once

#include <cstdint>

namespace ampscope::mx {

constexpr uint64_t kE8M0NaN = 0xFF;
constexpr uint64_t kE8M0Max = 0xFE;  // 2^127

// The value conversion (see number_format.h): nearest power of two, a tie rounding up; 0 and negative
// values (and -inf) have no encoding and give NaN; beyond the range NaN, or 2^127 when saturating.
uint64_t e8m0Encode(double value, bool saturate, bool* overflowed, bool* noEncoding);

// PyTorch's float -> float8_e8m0fnu cast, from the float32's bits: the sign is dropped, the float32
// exponent field is kept and rounded up by guard/round/sticky bits of the float32 mantissa with the
// implied bit (1 for normals, 0 for subnormals) as the "even" bit; float32 inf and NaN become NaN.
uint64_t e8m0FromFloat32LikePyTorch(float value);

}  // namespace ampscope::mx
