#include "ampscope/engine/rounding_cost.h"
#include "ampscope/engine/mode_formats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "ampscope/engine/number_format.h"
#include "fp8/scaling.h"

namespace ampscope {
namespace {

constexpr float kE4M3Max = 448.0f;     // OCP 8-bit FP spec v1.0, E4M3: S.1111.110
constexpr float kE5M2Max = 57344.0f;   // E5M2: S.11110.11
constexpr float kE2M1Max = 6.0f;       // OCP MX spec v1.0, FP4 E2M1: S.11.1
constexpr int kE4M3Emax = 8;           // floor(log2(448)), the MX spec's emax of E4M3
constexpr int64_t kMxBlock = kMxfp8BlockSize;
constexpr int64_t kNvfp4Block = kNvfp4BlockSize;

// Adds one element whose rounded value is q (the element before the scale is undone: `element`).
void count(RoundingCost& c, float x, float q, const RoundingResult& r) {
  ++c.elements;
  const double xd = x;
  c.signal.add(xd * xd);
  if (!(q == x)) ++c.changed;
  if (x != 0.0f && q == 0.0f) ++c.flushed;
  if (r.becameSubnormal) ++c.subnormal;
  if (r.overflowed || r.saturated) ++c.overflowed;
  const double d = xd - static_cast<double>(q);
  if (std::isfinite(d)) {
    c.error.add(d * d);
  } else {
    c.error.addInfinite();
  }
}

// x * encode rounded (satfinite) into `element`, times decode, all in float32.
void countScaled(RoundingCost& c, float x, DType element, float encode, float decode) {
  const float scaled = x * encode;
  const RoundingResult r = roundValueSaturating(element, static_cast<double>(scaled));
  const float q = static_cast<float>(r.stored) * decode;
  count(c, x, q, r);
}

// A finite value of a block that became NaN (MX: the block held inf or NaN; NVFP4: the tensor did).
void countNaN(RoundingCost& c, float x) {
  RoundingResult r;
  r.cls = ValueClass::NaN;
  count(c, x, std::numeric_limits<float>::quiet_NaN(), r);
}

void castCost(RoundingCost& c, DType dtype, const float* v, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    if (!std::isfinite(v[i])) continue;
    const RoundingResult r = roundValue(dtype, static_cast<double>(v[i]));
    count(c, v[i], static_cast<float>(r.stored), r);
  }
}

// The largest magnitude as float32 max |x| (NaN when one is NaN), like the engine's absMax.
float absMax(const float* v, int64_t n) {
  float m = 0.0f;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isnan(v[i])) return v[i];
    m = std::max(m, std::fabs(v[i]));
  }
  return m;
}

void perTensorCost(RoundingCost& c, DType element, float formatMax, const float* v, int64_t n) {
  const float scale = detail::fp8::perTensorScale(absMax(v, n), formatMax, 0, 1.0f);
  const float invScale = 1.0f / scale;
  for (int64_t i = 0; i < n; ++i) {
    if (std::isfinite(v[i])) countScaled(c, v[i], element, scale, invScale);
  }
}

void mxCost(RoundingCost& c, const float* v, int64_t n) {
  for (int64_t b0 = 0; b0 < n; b0 += kMxBlock) {
    const int64_t len = std::min(kMxBlock, n - b0);
    const float amax = absMax(v + b0, len);
    if (!std::isfinite(amax)) {
      for (int64_t i = b0; i < b0 + len; ++i) {
        if (std::isfinite(v[i])) countNaN(c, v[i]);
      }
      continue;
    }
    const int x = detail::fp8::mxSharedExponent(amax, kE4M3Emax);
    const auto encode = static_cast<float>(std::ldexp(1.0, -x));  // exact: 2^-127 .. 2^127
    const auto decode = static_cast<float>(std::ldexp(1.0, x));
    for (int64_t i = b0; i < b0 + len; ++i) countScaled(c, v[i], DType::FP8E4M3FN, encode, decode);
  }
}

void nvfp4Cost(RoundingCost& c, const float* v, int64_t n) {
  const float amax = absMax(v, n);
  bool finite = std::isfinite(amax);
  for (int64_t i = 0; finite && i < n; ++i) finite = std::isfinite(v[i]);
  if (!finite) {
    for (int64_t i = 0; i < n; ++i) {
      if (std::isfinite(v[i])) countNaN(c, v[i]);
    }
    return;
  }
  float tensorScale = amax > 0.0f ? (kE4M3Max * kE2M1Max) / amax : 1.0f;
  if (std::isinf(tensorScale)) tensorScale = std::numeric_limits<float>::max();
  for (int64_t b0 = 0; b0 < n; b0 += kNvfp4Block) {
    const int64_t len = std::min(kNvfp4Block, n - b0);
    const float blockAmax = absMax(v + b0, len);
    const float wanted = (blockAmax / kE2M1Max) * tensorScale;
    const auto blockScale =
        static_cast<float>(roundValueSaturating(DType::FP8E4M3FN, static_cast<double>(wanted)).stored);
    const float encode = blockScale == 0.0f ? 0.0f : tensorScale / blockScale;
    const float decode = blockScale == 0.0f ? 0.0f : blockScale / tensorScale;
    for (int64_t i = b0; i < b0 + len; ++i) countScaled(c, v[i], DType::FP4E2M1, encode, decode);
  }
}

}  // namespace

const std::array<CostFormat, kCostFormatCount>& allCostFormats() {
  static const std::array<CostFormat, kCostFormatCount> formats = {
      CostFormat::FP16, CostFormat::BF16, CostFormat::FP8E4M3, CostFormat::FP8E5M2, CostFormat::MXFP8,
      CostFormat::NVFP4};
  return formats;
}

const char* costFormatKey(CostFormat format) {
  switch (format) {
    case CostFormat::FP16: return "fp16";
    case CostFormat::BF16: return "bf16";
    case CostFormat::FP8E4M3: return "fp8-e4m3";
    case CostFormat::FP8E5M2: return "fp8-e5m2";
    case CostFormat::MXFP8: return "mxfp8";
    case CostFormat::NVFP4: return "nvfp4";
  }
  return "";
}

void ExactSquareSum::add(double term) {
  if (term == 0.0) return;
  if (!std::isfinite(term)) {
    infinite_ = true;
    return;
  }
  uint64_t bits;
  std::memcpy(&bits, &term, sizeof bits);
  bits &= ~(uint64_t{1} << 63);
  const auto field = static_cast<int>(bits >> 52);
  uint64_t m = bits & ((uint64_t{1} << 52) - 1);
  if (field > 0) m |= uint64_t{1} << 52;
  const int e = std::max(field, 1);
  const int band = e >> 3;
  const uint64_t s = m << (e & 7);
  constexpr uint64_t mask = (uint64_t{1} << kChunkBits) - 1;
  parts_[static_cast<size_t>(band * kChunks)] += static_cast<double>(s & mask);
  parts_[static_cast<size_t>(band * kChunks + 1)] += static_cast<double>((s >> kChunkBits) & mask);
  parts_[static_cast<size_t>(band * kChunks + 2)] += static_cast<double>(s >> (2 * kChunkBits));
}

void ExactSquareSum::addPart(int index, double chunkSum) {
  if (index < 0 || index >= kBands * kChunks) {
    throw std::invalid_argument("ExactSquareSum::addPart: index " + std::to_string(index) + " is outside [0, " +
                                std::to_string(kBands * kChunks) + ")");
  }
  parts_[static_cast<size_t>(index)] += chunkSum;
}

double ExactSquareSum::value() const {
  if (infinite_) return std::numeric_limits<double>::infinity();
  double total = 0.0;
  for (int b = 0; b < kBands; ++b) {
    for (int k = 0; k < kChunks; ++k) {
      const double part = parts_[static_cast<size_t>(b * kChunks + k)];
      if (part != 0.0) total += std::ldexp(part, 8 * b - 1075 + kChunkBits * k);
    }
  }
  return total;
}

double sqnrDb(double signal, double error) {
  if (error == 0.0) return std::numeric_limits<double>::infinity();
  if (std::isinf(error) || std::isnan(error)) return -std::numeric_limits<double>::infinity();
  return 10.0 * (std::log10(signal) - std::log10(error));
}

double RoundingCost::sqnrDb() const { return ampscope::sqnrDb(signal.value(), error.value()); }

RoundingCost roundingCost(CostFormat format, const float* values, int64_t n) {
  if (n < 0) throw std::invalid_argument("roundingCost: n: expected a count >= 0, got " + std::to_string(n));
  if (n > 0 && values == nullptr) throw std::invalid_argument("roundingCost: values: null with n > 0");
  RoundingCost c;
  switch (format) {
    case CostFormat::FP16: castCost(c, DType::FP16, values, n); break;
    case CostFormat::BF16: castCost(c, DType::BF16, values, n); break;
    case CostFormat::FP8E4M3: perTensorCost(c, DType::FP8E4M3FN, kE4M3Max, values, n); break;
    case CostFormat::FP8E5M2: perTensorCost(c, DType::FP8E5M2, kE5M2Max, values, n); break;
    case CostFormat::MXFP8: mxCost(c, values, n); break;
    case CostFormat::NVFP4: nvfp4Cost(c, values, n); break;
  }
  return c;
}

std::array<RoundingCost, kCostFormatCount> roundingCosts(const float* values, int64_t n) {
  std::array<RoundingCost, kCostFormatCount> out;
  for (size_t i = 0; i < out.size(); ++i) out[i] = roundingCost(allCostFormats()[i], values, n);
  return out;
}

}  // namespace ampscope
