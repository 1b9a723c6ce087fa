// Number formats: the bit layout of every floating-point dtype the chapter discusses, and exact
// IEEE-754 round-to-nearest-even conversion from double into each of them.
//
// Values travel as `double` (every format here, FP64 included, is exactly representable in double)
// and as raw bit patterns in a uint64_t whose low `totalBits` bits hold the encoding.
// FP8 E4M3FN follows the OCP 8-bit spec as PyTorch's float8_e4m3fn does: no infinities, a single NaN
// mantissa pattern (S.1111.111), max 448; a value beyond the range rounds to NaN ("saturate" is offered
// separately). TF32 is 1/8/10 bits; its encoding is stored in 19 bits here (hardware keeps it in a
// 32-bit container with the low 13 mantissa bits ignored).
// The OCP Microscaling (MX) formats: FP4 E2M1 (1/2/1 bits, bias 1, max 6) has neither infinity nor NaN,
// so every overflow saturates to +/-6 and a NaN input has no encoding (it gives a zero of the NaN's sign
// and RoundingResult::noEncoding). E8M0, the MX block scale, is 8 exponent bits and nothing else: no
// sign, no mantissa, value 2^(e-127) for e = 0..254, 0xFF is NaN; it has no zero and no infinity.
// encode() treats E8M0 as a value conversion: round to the nearest power of two, a tie (1.5 * 2^k)
// rounding up (the implied significand bit is odd); below 2^-127 it gives 2^-127, from 1.5 * 2^127 up
// it overflows to NaN (encodeSaturating: 2^127). Zero and negative values have no encoding: NaN with
// noEncoding. The MX spec's scale rule, 2^floor(log2(amax)), is e8m0FloorBits().
//
// Everything is derived from (exponentBits, mantissaBits) with integer arithmetic on the double's bit
// pattern, so the results never depend on the host's float/half conversion. NaN inputs encode to a quiet
// NaN with the input's sign and the top bits of its payload (what x86's F16C and ARM do); E4M3FN has one
// NaN mantissa, so only the sign survives there. Functions taking a bit pattern ignore bits above
// `totalBits`; invalid arguments (a bit index outside the format, a field wider than its width, a
// negative element count) throw std::invalid_argument with a message naming the problem.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ampscope {

enum class DType { FP64, FP32, TF32, FP16, BF16, FP8E4M3FN, FP8E5M2, FP4E2M1, E8M0 };

// Static description of a format.
struct FormatSpec {
  DType dtype;
  std::string name;        // "FP16"
  std::string torchName;   // "float16" (what torch.finfo prints as dtype; TF32 has none: "tf32")
  int totalBits;           // sign + exponent + mantissa
  int exponentBits;
  int mantissaBits;        // explicit (stored) fraction bits
  int bias;                // 2^(exponentBits-1) - 1
  // Bits one element occupies in memory: TF32 lives in 32; FP4 in 4, two elements sharing a byte
  // (PyTorch's float4_e2m1fn_x2), so the memory of n elements is ceil(n * storageBits / 8) bytes.
  int storageBits;
  bool hasSign;            // false only for E8M0
  bool hasInfinity;        // false for FP8 E4M3FN, FP4 E2M1 and E8M0
  bool hasNaN;             // false only for FP4 E2M1
};

enum class ValueClass { Zero, Subnormal, Normal, Infinite, NaN };

// Field-by-field view of one encoding.
struct Decomposed {
  bool sign = false;
  uint32_t exponentField = 0;   // biased exponent bits as stored
  uint64_t mantissaField = 0;   // fraction bits as stored
  int unbiasedExponent = 0;     // exponent of the value: 1-bias for subnormals, field-bias for normals
  ValueClass cls = ValueClass::Zero;
};

// Everything the number-format panel shows for one value in one format.
struct RoundingResult {
  double input = 0;       // the value asked for (already a double)
  uint64_t bits = 0;      // the encoding after round-to-nearest-even
  double stored = 0;      // the value that encoding means
  double absError = 0;    // |stored - input| (inf when it overflowed, NaN when either is NaN)
  double relError = 0;    // absError / |input| (0 when input is 0)
  ValueClass cls = ValueClass::Zero;
  bool flushedToZero = false;   // input was finite and non-zero, stored is zero
  bool becameSubnormal = false; // stored is subnormal in this format
  bool overflowed = false;      // input was finite, stored is inf (or NaN for E4M3FN and E8M0)
  bool saturated = false;       // input (inf included) was beyond the range, stored is the largest finite
                                // value of its sign: saturating conversion, and FP4 E2M1 always
  bool noEncoding = false;      // the format has no encoding for the input: NaN in E2M1, 0 and negative
                                // values in E8M0 (stored is what encode() gives, see above)
};

// torch.finfo-style limits.
struct FInfo {
  double max = 0;
  double lowest = 0;             // -max (E8M0, without a sign: its smallest value 2^-127)
  double smallestNormal = 0;     // torch.finfo().tiny
  double smallestSubnormal = 0;  // E8M0 has no subnormals: its smallest value, 2^-127
  double eps = 0;                // 2^-mantissaBits: distance from 1 to the next value
  int decimalDigits = 0;         // floor(mantissaBits * log10(2)), numpy/torch "precision"
  double resolution = 0;         // 10^-decimalDigits, torch.finfo().resolution
  double maxExponent = 0;        // log2 of the largest finite value's exponent (emax)
  double minExponent = 0;        // emin = 1 - bias
};

const std::vector<DType>& allDTypes();
const FormatSpec& formatSpec(DType dtype);
// "fp16", "float16", "half", "bf16", "fp4", "e2m1", "float4_e2m1fn_x2", "e8m0", "float8_e8m0fnu", ...
std::optional<DType> parseDType(const std::string& name);

uint64_t encode(DType dtype, double value);   // round-to-nearest-even, ties to even
double decode(DType dtype, uint64_t bits);
double roundTo(DType dtype, double value);    // decode(encode(value))
Decomposed decompose(DType dtype, uint64_t bits);
uint64_t compose(DType dtype, bool sign, uint32_t exponentField, uint64_t mantissaField);
ValueClass classify(DType dtype, uint64_t bits);
// The neighbouring encodings, IEEE-754 nextUp/nextDown: -0 and +0 both step to the smallest subnormal
// of the direction, the largest finite value steps to inf, inf stays inf, NaN stays NaN. E4M3FN has no
// infinity: its largest finite value (448) stays where it is.
uint64_t nextUp(DType dtype, uint64_t bits);    // next representable toward +inf
uint64_t nextDown(DType dtype, uint64_t bits);  // toward -inf
// The spacing of the format's values in the binade of |value| (2^(max(floor(log2|value|), emin) - M)):
// the smallest subnormal for 0 and subnormals, the top binade's spacing for finite values beyond max,
// inf for inf, NaN for NaN. The value need not be representable in the format.
double ulp(DType dtype, double value);
RoundingResult roundValue(DType dtype, double value);
FInfo finfo(DType dtype);
uint64_t flipBit(DType dtype, uint64_t bits, int bitIndex);  // bitIndex 0 = least significant
uint64_t bitMask(DType dtype);

// The "satfinite" conversion: like encode, but a value that would overflow (infinities included) becomes
// the largest finite value of its sign; NaN stays NaN. Meant for E4M3FN (+/-448 instead of NaN) and
// E5M2 (+/-57344 instead of inf), valid for every format (E2M1 saturates either way).
uint64_t encodeSaturating(DType dtype, double value);
RoundingResult roundValueSaturating(DType dtype, double value);

// Encodings of the format's special values (quietNaN: the pattern encode() gives for a positive NaN
// without payload; infinity: for E4M3FN and E8M0, which have none, the NaN pattern; for E2M1 the largest
// finite value). quietNaNBits throws std::invalid_argument for E2M1, which has no NaN.
uint64_t maxFiniteBits(DType dtype, bool negative = false);
uint64_t infinityBits(DType dtype, bool negative = false);
uint64_t quietNaNBits(DType dtype);

// The MX spec's block-scale rule: 2^floor(log2(amax)) as an E8M0 pattern, clamped to 2^-127..2^127;
// NaN, infinity, zero and negative amax give NaN (0xFF).
uint64_t e8m0FloorBits(double amax);

// What PyTorch stores for a Python float (a double): torch.tensor(x, dtype=...), tensor.to(dtype) from
// float64, and the element-wise casts all convert the double to float32 first and round that to the
// target. The second rounding can differ from rounding the double once: 65519.99999 -> 65520 (float32)
// -> inf in FP16, where rounding the double gives 65504. (Filling a tensor with a Python scalar,
// torch.full / fill_, refuses any finite value above the format's max instead.)
struct PyTorchConversion {
  bool available = false;  // PyTorch has this conversion: not for TF32 (no dtype) or FP4 (storage only)
  bool differs = false;    // stored differs from roundValue's (NaN equals NaN)
  double viaFloat32 = 0;   // the first rounding
  uint64_t bits = 0;
  double stored = 0;
  std::string reason;      // one line when it differs: "PyTorch rounds to float32 first: ..."
};
PyTorchConversion pytorchConversion(DType dtype, double value);

std::string valueClassName(ValueClass cls);      // "zero", "subnormal", "normal", "inf", "nan"
std::string formatBitsBinary(DType dtype, uint64_t bits);  // "0 01111 0000000000"
std::string formatBitsHex(DType dtype, uint64_t bits);     // "0x3c00"

// Parses what a user types into the value field: decimal or scientific numbers, "inf", "-inf",
// "nan", "-0", and bit patterns "0x3c00" (interpreted in `patternDType`) or "0b0011110000000000"
// (spaces, '_' and '|' may separate the binary digits, so formatBitsBinary's output reads back).
// A hexadecimal floating literal such as "0x1.8p3" is read as a number, not a pattern. Numbers are
// read locale-independently and exactly rounded to double; one beyond double's range is an error.
struct ParsedValue {
  bool ok = false;
  bool isBitPattern = false;
  double value = 0;      // the value (for a bit pattern: decoded in patternDType)
  uint64_t bits = 0;     // for a bit pattern
  std::string error;     // why it did not parse
};
ParsedValue parseValue(const std::string& text, DType patternDType);

// Bytes and GiB of `elements` elements of a dtype (the chapter's 1e9-element table): ceil(elements *
// storageBits / 8) bytes, so an odd count of FP4 elements takes a whole last byte.
struct MemoryFootprint {
  DType dtype;
  long double bytes;
  double gib;
};
std::vector<MemoryFootprint> memoryFootprints(long double elements);

}  // namespace ampscope
