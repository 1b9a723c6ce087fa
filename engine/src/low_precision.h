// Exact rounding of float32 data to FP16 or BF16 (IEEE-754 round-to-nearest-even, subnormals, overflow
// to inf, NaN kept), leaving the result in float32. This is the building block of the emulated modes:
// a float32 value rounded this way IS an FP16/BF16 value, so FP32 arithmetic on it followed by another
// rounding behaves like a low-precision kernel that accumulates in FP32 (what tensor cores do).
//
// FP16 uses the CPU's F16C conversion instructions when present (IEEE RNE in hardware, the same result
// as c10::Half's software conversion, which is the fallback); BF16 is the usual bit trick
// (add 0x7FFF plus the lowest kept bit, truncate), identical to c10::BFloat16(float).
//
// The counting variants fill RoundingCounts in the same pass: flushed = non-zero before and zero after,
// subnormal = subnormal after rounding, overflowed = finite before and inf after, nan = NaN after.
#pragma once

#include <cstdint>

#include "ampscope/engine/telemetry.h"

namespace ampscope::detail {

enum class LowFormat { FP16, BF16 };

const char* lowFormatDtypeName(LowFormat format);  // "float16", "bfloat16"
float lowFormatMinNormal(LowFormat format);        // 2^-14, 2^-126

// out[i] = round(in[i]); in and out may be the same array. counts may be null.
void roundToFormat(const float* in, float* out, int64_t n, LowFormat format, RoundingCounts* counts);
// Only the counts of rounding `in` (nothing written): for native casts that happen inside autocast.
void countRounding(const float* in, int64_t n, LowFormat format, RoundingCounts* counts);
// Counts of data already stored in a 16-bit format (raw bits): subnormal, inf (as overflowed), NaN.
// Flushes cannot be seen after the fact, so flushedToZero is left alone.
void classifyStored(const uint16_t* bits, int64_t n, LowFormat format, RoundingCounts* counts);

float roundScalar(float value, LowFormat format);

}  // namespace ampscope::detail
