#include "ampscope/engine/number_format.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <system_error>

#include "number_format_mx.h"

namespace ampscope {

namespace {

// Every format is described by these numbers; all the code below is generic in them.
struct Layout {
  int exponentBits;
  int mantissaBits;
  int bias;
  int totalBits;
  bool hasSign;
  bool hasInfinity;
  bool hasNaN;
  uint64_t mantissaMask;
  uint32_t exponentMax;  // all-ones exponent field
  int minQuantum;        // exponent of the smallest subnormal: 1 - bias - mantissaBits
};

constexpr std::size_t kFormatCount = 9;

enum Specials { kInfAndNaN, kNaNOnly, kNeither };

FormatSpec makeSpec(DType dtype, const char* name, const char* torchName, bool hasSign, int exponentBits,
                    int mantissaBits, int storageBits, Specials specials) {
  FormatSpec spec;
  spec.dtype = dtype;
  spec.name = name;
  spec.torchName = torchName;
  spec.totalBits = (hasSign ? 1 : 0) + exponentBits + mantissaBits;
  spec.exponentBits = exponentBits;
  spec.mantissaBits = mantissaBits;
  spec.bias = (1 << (exponentBits - 1)) - 1;
  spec.storageBits = storageBits;
  spec.hasSign = hasSign;
  spec.hasInfinity = specials == kInfAndNaN;
  spec.hasNaN = specials != kNeither;
  return spec;
}

const std::array<FormatSpec, kFormatCount>& specs() {
  static const std::array<FormatSpec, kFormatCount> kSpecs = {
      makeSpec(DType::FP64, "FP64", "float64", true, 11, 52, 64, kInfAndNaN),
      makeSpec(DType::FP32, "FP32", "float32", true, 8, 23, 32, kInfAndNaN),
      makeSpec(DType::TF32, "TF32", "tf32", true, 8, 10, 32, kInfAndNaN),
      makeSpec(DType::FP16, "FP16", "float16", true, 5, 10, 16, kInfAndNaN),
      makeSpec(DType::BF16, "BF16", "bfloat16", true, 8, 7, 16, kInfAndNaN),
      makeSpec(DType::FP8E4M3FN, "FP8 E4M3FN", "float8_e4m3fn", true, 4, 3, 8, kNaNOnly),
      makeSpec(DType::FP8E5M2, "FP8 E5M2", "float8_e5m2", true, 5, 2, 8, kInfAndNaN),
      // PyTorch's FP4 dtype holds two elements per byte; one element is 4 bits of it.
      makeSpec(DType::FP4E2M1, "FP4 E2M1", "float4_e2m1fn_x2", true, 2, 1, 4, kNeither),
      makeSpec(DType::E8M0, "E8M0", "float8_e8m0fnu", false, 8, 0, 8, kNaNOnly),
  };
  return kSpecs;
}

std::size_t indexOf(DType dtype) {
  const auto index = static_cast<std::size_t>(dtype);
  if (index >= specs().size()) throw std::invalid_argument("number formats: unknown DType");
  return index;
}

const Layout& layoutOf(DType dtype) {
  static const std::array<Layout, kFormatCount> kLayouts = [] {
    std::array<Layout, kFormatCount> layouts{};
    for (std::size_t i = 0; i < specs().size(); ++i) {
      const FormatSpec& s = specs()[i];
      layouts[i] = Layout{s.exponentBits,
                          s.mantissaBits,
                          s.bias,
                          s.totalBits,
                          s.hasSign,
                          s.hasInfinity,
                          s.hasNaN,
                          (uint64_t{1} << s.mantissaBits) - 1,
                          (uint32_t{1} << s.exponentBits) - 1,
                          1 - s.bias - s.mantissaBits};
    }
    return layouts;
  }();
  return kLayouts[indexOf(dtype)];
}

uint64_t maskOf(const Layout& l) {
  return l.totalBits == 64 ? ~uint64_t{0} : (uint64_t{1} << l.totalBits) - 1;
}

uint64_t signBitOf(const Layout& l) { return l.hasSign ? uint64_t{1} << (l.totalBits - 1) : 0; }

uint64_t pack(const Layout& l, bool sign, uint64_t exponentField, uint64_t mantissaField) {
  return (sign ? signBitOf(l) : 0) | (exponentField << l.mantissaBits) | mantissaField;
}

uint64_t doubleBits(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

int bitLength(uint64_t x) {
  int n = 0;
  while (x != 0) {
    ++n;
    x >>= 1;
  }
  return n;
}

// E4M3FN's NaN is S.1111.111 (E8M0's, without sign and mantissa, 1111.1111); the IEEE-style formats
// reserve the whole all-ones exponent; E2M1 has no NaN.
bool isNaNPattern(const Layout& l, uint32_t exponentField, uint64_t mantissaField) {
  if (!l.hasNaN || exponentField != l.exponentMax) return false;
  if (l.hasInfinity) return mantissaField != 0;
  return mantissaField == l.mantissaMask;
}

uint64_t largestFiniteMagnitude(const Layout& l) {
  if (l.hasInfinity || l.mantissaBits == 0) return pack(l, false, l.exponentMax - 1, l.mantissaMask);
  if (!l.hasNaN) return pack(l, false, l.exponentMax, l.mantissaMask);
  return pack(l, false, l.exponentMax, l.mantissaMask - 1);
}

// E2M1 has no NaN to give: a zero of the NaN's sign (roundValue marks it noEncoding).
uint64_t nanPattern(const Layout& l, bool sign, uint64_t payloadFromDouble) {
  if (!l.hasNaN) return pack(l, sign, 0, 0);
  if (!l.hasInfinity) return pack(l, sign, l.exponentMax, l.mantissaMask);
  // Keep the top mantissaBits of the double's 52-bit payload and force the quiet bit.
  const uint64_t payload = payloadFromDouble >> (52 - l.mantissaBits);
  const uint64_t quietBit = uint64_t{1} << (l.mantissaBits - 1);
  return pack(l, sign, l.exponentMax, payload | quietBit);
}

enum class OverflowMode { Ieee, Saturate };

struct Encoded {
  uint64_t bits = 0;
  bool overflow = false;    // the value (inf included) rounded beyond the largest finite value
  bool noEncoding = false;  // see RoundingResult::noEncoding
};

uint64_t encodeBits(DType dtype, double value, OverflowMode mode, bool* overflow);

Encoded encodeWith(DType dtype, double value, OverflowMode mode) {
  Encoded e;
  if (dtype == DType::E8M0) {
    e.bits = mx::e8m0Encode(value, mode == OverflowMode::Saturate, &e.overflow, &e.noEncoding);
    return e;
  }
  e.bits = encodeBits(dtype, value, mode, &e.overflow);
  e.noEncoding = std::isnan(value) && !formatSpec(dtype).hasNaN;
  return e;
}

uint64_t encodeBits(DType dtype, double value, OverflowMode mode, bool* overflow) {
  const Layout& l = layoutOf(dtype);
  const uint64_t d = doubleBits(value);
  const bool sign = (d >> 63) != 0;
  const auto dExponent = static_cast<int>((d >> 52) & 0x7FF);
  const uint64_t dFraction = d & ((uint64_t{1} << 52) - 1);

  // E2M1, with neither infinity nor NaN, can only saturate.
  const bool saturate = mode == OverflowMode::Saturate || (!l.hasInfinity && !l.hasNaN);
  const uint64_t overflowResult =
      saturate ? (largestFiniteMagnitude(l) | (sign ? signBitOf(l) : 0)) : infinityBits(dtype, sign);
  *overflow = false;
  if (dExponent == 0x7FF) {
    if (dFraction != 0) return nanPattern(l, sign, dFraction);
    *overflow = mode == OverflowMode::Saturate || !l.hasInfinity;
    return overflowResult;  // an infinity: inf, or NaN for E4M3FN, or max when saturating
  }
  if (dExponent == 0 && dFraction == 0) return pack(l, sign, 0, 0);

  // |value| = significand * 2^exponent exactly, significand < 2^53.
  uint64_t significand = dExponent == 0 ? dFraction : (dFraction | (uint64_t{1} << 52));
  int exponent = dExponent == 0 ? -1074 : dExponent - 1075;
  const int topBit = exponent + bitLength(significand) - 1;  // floor(log2|value|)

  // The quantum (value of the last mantissa bit) of the target at this magnitude: subnormals share
  // the smallest one. Then round significand * 2^(exponent - quantum) to an integer, ties to even.
  const int quantum = std::max(topBit - l.mantissaBits, l.minQuantum);
  uint64_t n;
  if (exponent >= quantum) {
    n = significand << (exponent - quantum);  // exact: fewer significant bits than the target has
  } else {
    const int shift = quantum - exponent;
    if (shift > 60) {
      n = 0;  // below a quarter of the smallest subnormal: rounds to zero
    } else {
      n = significand >> shift;
      const uint64_t remainder = significand & ((uint64_t{1} << shift) - 1);
      const uint64_t half = uint64_t{1} << (shift - 1);
      if (remainder > half || (remainder == half && (n & 1) != 0)) ++n;
    }
  }

  // n * 2^quantum is the rounded magnitude, n < 2^(mantissaBits + 1) except after a carry.
  int q = quantum;
  if (n == (uint64_t{1} << (l.mantissaBits + 1))) {
    n >>= 1;
    ++q;
  }
  if (n == 0) return pack(l, sign, 0, 0);
  if (n < (uint64_t{1} << l.mantissaBits)) return pack(l, sign, 0, n);  // subnormal (q == minQuantum)

  const long long biased = static_cast<long long>(q) + l.mantissaBits + l.bias;
  const uint64_t mantissa = n - (uint64_t{1} << l.mantissaBits);
  // Rounding with an unbounded exponent first, then checking, is IEEE's overflow rule: anything that
  // rounds past the largest finite value overflows (for E4M3FN: onto the NaN pattern).
  if (biased > static_cast<long long>(l.exponentMax) ||
      pack(l, false, static_cast<uint64_t>(biased), mantissa) > largestFiniteMagnitude(l)) {
    *overflow = true;
    return overflowResult;
  }
  const uint64_t magnitude = pack(l, false, static_cast<uint64_t>(biased), mantissa);
  return magnitude | (sign ? signBitOf(l) : 0);
}

std::string lowerCase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string trim(const std::string& text) {
  const auto isSpace = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
  std::size_t begin = 0;
  std::size_t end = text.size();
  while (begin < end && isSpace(text[begin])) ++begin;
  while (end > begin && isSpace(text[end - 1])) --end;
  return text.substr(begin, end - begin);
}

RoundingResult makeResult(DType dtype, double value, const Encoded& e) {
  RoundingResult r;
  r.input = value;
  r.bits = e.bits;
  r.stored = decode(dtype, r.bits);
  r.cls = classify(dtype, r.bits);
  r.noEncoding = e.noEncoding;
  const bool inputFinite = std::isfinite(value);
  const bool storedFinite = r.cls != ValueClass::Infinite && r.cls != ValueClass::NaN;
  r.flushedToZero = inputFinite && value != 0 && r.cls == ValueClass::Zero;
  r.becameSubnormal = r.cls == ValueClass::Subnormal;
  r.overflowed = inputFinite && e.overflow && !storedFinite;
  r.saturated = e.overflow && storedFinite;
  if (r.overflowed || (std::isinf(value) && storedFinite && !r.noEncoding)) {
    r.absError = std::numeric_limits<double>::infinity();
    r.relError = std::numeric_limits<double>::infinity();
  } else if (std::isnan(value) || std::isnan(r.stored)) {
    r.absError = std::numeric_limits<double>::quiet_NaN();
    r.relError = std::numeric_limits<double>::quiet_NaN();
  } else if (std::isinf(value)) {
    r.absError = 0;  // inf stored as the same inf
    r.relError = 0;
  } else {
    // Exact: stored is within a factor of two of the input whenever it is non-zero (Sterbenz), and
    // equals 0 otherwise. (E8M0's 2^-127 for a far smaller input is the exception: rounded, not exact.)
    r.absError = std::fabs(r.stored - value);
    r.relError = value == 0 ? 0 : r.absError / std::fabs(value);
  }
  return r;
}

ParsedValue parseError(const std::string& message) {
  ParsedValue result;
  result.error = message;
  return result;
}

ParsedValue parseBitPattern(const std::string& text, const std::string& digits, int base,
                            DType patternDType) {
  const FormatSpec& spec = formatSpec(patternDType);
  const uint64_t mask = bitMask(patternDType);
  const int width = base == 2 ? 1 : 4;
  uint64_t bits = 0;
  int digitCount = 0;
  for (const char c : digits) {
    if (base == 2 && (c == ' ' || c == '_' || c == '|')) continue;
    if (base == 16 && c == '_') continue;
    int digit = -1;
    if (c >= '0' && c <= '9') digit = c - '0';
    if (c >= 'a' && c <= 'f') digit = c - 'a' + 10;
    if (c >= 'A' && c <= 'F') digit = c - 'A' + 10;
    if (digit < 0 || digit >= base) {
      return parseError("'" + std::string(1, c) + "' is not a " + (base == 2 ? "binary" : "hexadecimal") +
                        " digit in '" + text + "'");
    }
    ++digitCount;
    // Leading zeros are fine; a set bit beyond the format's width is not.
    if ((bits >> (64 - width)) != 0 || (((bits << width) | static_cast<uint64_t>(digit)) & ~mask) != 0) {
      return parseError("the bit pattern '" + text + "' is wider than " + spec.name + "'s " +
                        std::to_string(spec.totalBits) + " bits");
    }
    bits = (bits << width) | static_cast<uint64_t>(digit);
  }
  if (digitCount == 0) return parseError("'" + text + "' has no digits after its prefix");
  ParsedValue result;
  result.ok = true;
  result.isBitPattern = true;
  result.bits = bits;
  result.value = decode(patternDType, bits);
  return result;
}

}  // namespace

const std::vector<DType>& allDTypes() {
  static const std::vector<DType> kAll = {DType::FP64,      DType::FP32,    DType::TF32,
                                          DType::FP16,      DType::BF16,    DType::FP8E4M3FN,
                                          DType::FP8E5M2,   DType::FP4E2M1, DType::E8M0};
  return kAll;
}

const FormatSpec& formatSpec(DType dtype) { return specs()[indexOf(dtype)]; }

std::optional<DType> parseDType(const std::string& name) {
  std::string key;
  for (const char c : lowerCase(name)) {
    if (c != '-' && c != '_' && c != ' ' && c != '.') key += c;
  }
  struct Alias {
    const char* name;
    DType dtype;
  };
  static const Alias kAliases[] = {
      {"fp64", DType::FP64},           {"float64", DType::FP64},
      {"double", DType::FP64},         {"f64", DType::FP64},
      {"fp32", DType::FP32},           {"float32", DType::FP32},
      {"float", DType::FP32},          {"f32", DType::FP32},
      {"tf32", DType::TF32},           {"tensorfloat32", DType::TF32},
      {"fp16", DType::FP16},           {"float16", DType::FP16},
      {"half", DType::FP16},           {"f16", DType::FP16},
      {"bf16", DType::BF16},           {"bfloat16", DType::BF16},
      {"fp8e4m3fn", DType::FP8E4M3FN}, {"float8e4m3fn", DType::FP8E4M3FN},
      {"e4m3fn", DType::FP8E4M3FN},    {"e4m3", DType::FP8E4M3FN},
      {"fp8e4m3", DType::FP8E4M3FN},   {"fp8e5m2", DType::FP8E5M2},
      {"float8e5m2", DType::FP8E5M2},  {"e5m2", DType::FP8E5M2},
      {"fp4", DType::FP4E2M1},         {"fp4e2m1", DType::FP4E2M1},
      {"e2m1", DType::FP4E2M1},        {"float4e2m1fn", DType::FP4E2M1},
      {"float4e2m1fnx2", DType::FP4E2M1}, {"e2m1fn", DType::FP4E2M1},
      {"e8m0", DType::E8M0},           {"e8m0fnu", DType::E8M0},
      {"fp8e8m0", DType::E8M0},        {"float8e8m0fnu", DType::E8M0},
  };
  for (const Alias& alias : kAliases) {
    if (key == alias.name) return alias.dtype;
  }
  return std::nullopt;
}

uint64_t encode(DType dtype, double value) { return encodeWith(dtype, value, OverflowMode::Ieee).bits; }

uint64_t encodeSaturating(DType dtype, double value) {
  return encodeWith(dtype, value, OverflowMode::Saturate).bits;
}

RoundingResult roundValueSaturating(DType dtype, double value) {
  return makeResult(dtype, value, encodeWith(dtype, value, OverflowMode::Saturate));
}

double decode(DType dtype, uint64_t bits) {
  const Layout& l = layoutOf(dtype);
  const Decomposed parts = decompose(dtype, bits);
  double magnitude = 0;
  switch (parts.cls) {
    case ValueClass::Zero: magnitude = 0; break;
    case ValueClass::NaN:
      return std::copysign(std::numeric_limits<double>::quiet_NaN(), parts.sign ? -1.0 : 1.0);
    case ValueClass::Infinite: magnitude = std::numeric_limits<double>::infinity(); break;
    case ValueClass::Subnormal:
      // m * 2^minQuantum; exact in double for every format here (FP64's own subnormals included).
      magnitude = std::ldexp(static_cast<double>(parts.mantissaField), l.minQuantum);
      break;
    case ValueClass::Normal:
      magnitude = std::ldexp(static_cast<double>(parts.mantissaField | (uint64_t{1} << l.mantissaBits)),
                             parts.unbiasedExponent - l.mantissaBits);
      break;
  }
  return parts.sign ? -magnitude : magnitude;
}

double roundTo(DType dtype, double value) { return decode(dtype, encode(dtype, value)); }

Decomposed decompose(DType dtype, uint64_t bits) {
  const Layout& l = layoutOf(dtype);
  bits &= maskOf(l);
  Decomposed parts;
  parts.sign = (bits & signBitOf(l)) != 0;
  parts.exponentField = static_cast<uint32_t>((bits >> l.mantissaBits) & l.exponentMax);
  parts.mantissaField = bits & l.mantissaMask;
  if (parts.exponentField == 0 && l.mantissaBits > 0) {  // E8M0's field 0 is 2^-127, a normal value
    parts.unbiasedExponent = 1 - l.bias;
    parts.cls = parts.mantissaField == 0 ? ValueClass::Zero : ValueClass::Subnormal;
  } else {
    parts.unbiasedExponent = static_cast<int>(parts.exponentField) - l.bias;
    if (isNaNPattern(l, parts.exponentField, parts.mantissaField)) {
      parts.cls = ValueClass::NaN;
    } else if (l.hasInfinity && parts.exponentField == l.exponentMax) {
      parts.cls = ValueClass::Infinite;
    } else {
      parts.cls = ValueClass::Normal;
    }
  }
  return parts;
}

uint64_t compose(DType dtype, bool sign, uint32_t exponentField, uint64_t mantissaField) {
  const Layout& l = layoutOf(dtype);
  if (sign && !l.hasSign) {
    throw std::invalid_argument("compose: " + formatSpec(dtype).name + " has no sign bit");
  }
  if (exponentField > l.exponentMax) {
    throw std::invalid_argument("compose: exponent field " + std::to_string(exponentField) +
                                " does not fit " + formatSpec(dtype).name + "'s " +
                                std::to_string(l.exponentBits) + " exponent bits");
  }
  if (mantissaField > l.mantissaMask) {
    throw std::invalid_argument("compose: mantissa field " + std::to_string(mantissaField) +
                                " does not fit " + formatSpec(dtype).name + "'s " +
                                std::to_string(l.mantissaBits) + " mantissa bits");
  }
  return pack(l, sign, exponentField, mantissaField);
}

ValueClass classify(DType dtype, uint64_t bits) { return decompose(dtype, bits).cls; }

uint64_t nextUp(DType dtype, uint64_t bits) {
  const Layout& l = layoutOf(dtype);
  bits &= maskOf(l);
  const ValueClass cls = classify(dtype, bits);
  if (cls == ValueClass::NaN) return bits;
  if (!l.hasSign) return bits == largestFiniteMagnitude(l) ? bits : bits + 1;  // E8M0: 2^127 stays
  const uint64_t magnitude = bits & ~signBitOf(l);
  const bool negative = (bits & signBitOf(l)) != 0;
  if (magnitude == 0) return 1;  // either zero steps to the smallest positive subnormal
  if (!negative) {
    if (cls == ValueClass::Infinite) return bits;
    if (!l.hasInfinity && magnitude == largestFiniteMagnitude(l)) return bits;
    return bits + 1;  // sign-magnitude: the next encoding is the next larger value (max + 1 = inf)
  }
  return bits - 1;  // a negative value moves toward zero: -inf - 1 = -max, -smallest - 1 = -0
}

uint64_t nextDown(DType dtype, uint64_t bits) {
  const Layout& l = layoutOf(dtype);
  if (!l.hasSign) {  // E8M0: 2^-127 stays (nothing below it), NaN stays
    bits &= maskOf(l);
    return bits == 0 || classify(dtype, bits) == ValueClass::NaN ? bits : bits - 1;
  }
  // nextDown(x) = -nextUp(-x).
  const uint64_t negated = (bits & maskOf(l)) ^ signBitOf(l);
  return nextUp(dtype, negated) ^ signBitOf(l);
}

double ulp(DType dtype, double value) {
  const Layout& l = layoutOf(dtype);
  if (std::isnan(value)) return std::numeric_limits<double>::quiet_NaN();
  if (std::isinf(value)) return std::numeric_limits<double>::infinity();
  // E8M0 has neither subnormals (field 0 is 2^-127) nor values in its all-ones exponent.
  const int emin = l.mantissaBits == 0 ? -l.bias : 1 - l.bias;
  const int emax = l.hasInfinity || l.mantissaBits == 0 ? static_cast<int>(l.exponentMax) - 1 - l.bias
                                                        : static_cast<int>(l.exponentMax) - l.bias;
  int binade = emin;
  if (value != 0) binade = std::ilogb(value);
  binade = std::clamp(binade, emin, emax);
  return std::ldexp(1.0, binade - l.mantissaBits);
}

RoundingResult roundValue(DType dtype, double value) {
  return makeResult(dtype, value, encodeWith(dtype, value, OverflowMode::Ieee));
}

FInfo finfo(DType dtype) {
  const Layout& l = layoutOf(dtype);
  FInfo info;
  info.max = decode(dtype, largestFiniteMagnitude(l));
  const int emin = l.mantissaBits == 0 ? -l.bias : 1 - l.bias;  // E8M0: field 0 is 2^-127
  info.minExponent = emin;
  info.maxExponent = std::ilogb(info.max);
  info.smallestNormal = std::ldexp(1.0, emin);
  info.smallestSubnormal = l.mantissaBits == 0 ? info.smallestNormal : std::ldexp(1.0, l.minQuantum);
  info.lowest = l.hasSign ? -info.max : info.smallestNormal;
  info.eps = std::ldexp(1.0, -l.mantissaBits);
  // floor(M * log10 2) with log10 2 = 0.30102999566...: exact for every M here.
  info.decimalDigits = static_cast<int>(std::floor(l.mantissaBits * 0.30102999566398120));
  info.resolution = std::pow(10.0, -info.decimalDigits);
  return info;
}

uint64_t flipBit(DType dtype, uint64_t bits, int bitIndex) {
  const Layout& l = layoutOf(dtype);
  if (bitIndex < 0 || bitIndex >= l.totalBits) {
    throw std::invalid_argument("flipBit: bit " + std::to_string(bitIndex) + " is outside " +
                                formatSpec(dtype).name + "'s " + std::to_string(l.totalBits) + " bits");
  }
  return (bits & maskOf(l)) ^ (uint64_t{1} << bitIndex);
}

uint64_t bitMask(DType dtype) { return maskOf(layoutOf(dtype)); }

uint64_t maxFiniteBits(DType dtype, bool negative) {
  const Layout& l = layoutOf(dtype);
  return largestFiniteMagnitude(l) | (negative ? signBitOf(l) : 0);
}

uint64_t infinityBits(DType dtype, bool negative) {
  const Layout& l = layoutOf(dtype);
  if (!l.hasNaN) return maxFiniteBits(dtype, negative);
  if (!l.hasInfinity) return pack(l, negative, l.exponentMax, l.mantissaMask);
  return pack(l, negative, l.exponentMax, 0);
}

uint64_t quietNaNBits(DType dtype) {
  const Layout& l = layoutOf(dtype);
  if (!l.hasNaN) throw std::invalid_argument("quietNaNBits: " + formatSpec(dtype).name + " has no NaN");
  return nanPattern(l, false, 0);
}

std::string valueClassName(ValueClass cls) {
  switch (cls) {
    case ValueClass::Zero: return "zero";
    case ValueClass::Subnormal: return "subnormal";
    case ValueClass::Normal: return "normal";
    case ValueClass::Infinite: return "inf";
    case ValueClass::NaN: return "nan";
  }
  return "unknown";
}

std::string formatBitsBinary(DType dtype, uint64_t bits) {
  const Layout& l = layoutOf(dtype);
  bits &= maskOf(l);
  std::string text;
  for (int i = l.totalBits - 1; i >= 0; --i) {
    text += ((bits >> i) & 1) != 0 ? '1' : '0';
    if ((l.hasSign && i == l.totalBits - 1) || (l.mantissaBits > 0 && i == l.mantissaBits)) text += ' ';
  }
  return text;
}

std::string formatBitsHex(DType dtype, uint64_t bits) {
  const Layout& l = layoutOf(dtype);
  bits &= maskOf(l);
  static const char kHex[] = "0123456789abcdef";
  const int digits = (l.totalBits + 3) / 4;
  std::string text = "0x";
  for (int i = digits - 1; i >= 0; --i) text += kHex[(bits >> (4 * i)) & 0xF];
  return text;
}

ParsedValue parseValue(const std::string& rawText, DType patternDType) {
  const std::string text = trim(rawText);
  if (text.empty())
    return parseError(
        "empty value: type a number (1e-8, 65504, -0, inf, nan) or "
        "a bit pattern (0x3c00, 0b0011110000000000)");
  const std::string lower = lowerCase(text);

  bool negative = false;
  std::string body = lower;
  if (body[0] == '+' || body[0] == '-') {
    negative = body[0] == '-';
    body.erase(0, 1);
  }
  ParsedValue result;
  if (body == "inf" || body == "infinity") {
    result.ok = true;
    result.value =
        negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return result;
  }
  if (body == "nan") {
    result.ok = true;
    result.value = std::copysign(std::numeric_limits<double>::quiet_NaN(), negative ? -1.0 : 1.0);
    return result;
  }

  const bool hexPrefix = body.rfind("0x", 0) == 0;
  const bool binPrefix = body.rfind("0b", 0) == 0;
  const bool hexFloat = hexPrefix && body.find_first_of(".p") != std::string::npos;
  if ((hexPrefix || binPrefix) && !hexFloat) {
    if (text[0] == '+' || text[0] == '-') {
      return parseError("'" + text + "': a bit pattern has no sign; set the sign bit instead");
    }
    return parseBitPattern(text, text.substr(2), hexPrefix ? 16 : 2, patternDType);
  }

  double magnitude = 0;
  const std::string digits = hexFloat ? body.substr(2) : body;
  const auto format = hexFloat ? std::chars_format::hex : std::chars_format::general;
  if (digits.empty() || digits[0] == '+' || digits[0] == '-') {
    return parseError("'" + text + "' is not a number");
  }
  const char* first = digits.data();
  const char* last = digits.data() + digits.size();
  const auto [end, ec] = std::from_chars(first, last, magnitude, format);
  if (end == first) return parseError("'" + text + "' is not a number");
  if (ec == std::errc::result_out_of_range) {
    // from_chars reports both overflow and underflow this way; the exponent tells which.
    const std::size_t e = digits.find_first_of(hexFloat ? "p" : "e");
    const bool tinyExponent = e != std::string::npos && e + 1 < digits.size() && digits[e + 1] == '-';
    return parseError("'" + text + "' is " +
                      (tinyExponent ? "below double's smallest subnormal (4.9e-324)"
                                    : "beyond double's range (max 1.797693e+308)"));
  }
  if (ec != std::errc()) return parseError("'" + text + "' is not a number");
  if (end != last) {
    const auto position = static_cast<std::size_t>(end - first) + (text.size() - digits.size());
    return parseError("unexpected '" + std::string(text.substr(position)) + "' after the number in '" + text +
                      "'");
  }
  result.ok = true;
  result.value = negative ? -magnitude : magnitude;
  return result;
}

std::vector<MemoryFootprint> memoryFootprints(long double elements) {
  if (!(elements >= 0) || std::isinf(elements)) {
    throw std::invalid_argument("memoryFootprints: the element count must be a finite number >= 0");
  }
  std::vector<MemoryFootprint> rows;
  for (const DType dtype : allDTypes()) {
    const long double bytes = std::ceil(elements * formatSpec(dtype).storageBits / 8.0L);
    rows.push_back({dtype, bytes, static_cast<double>(bytes / 1073741824.0L)});
  }
  return rows;
}

}  // namespace ampscope
