// Each precision mode's formats (mode_formats.h), and their ranges from the number-format core, against
// the specifications:
//  - OCP 8-bit Floating Point Specification (OFP8) rev. 1.0, table 1: E4M3 max 448, min normal 2^-6,
//    min subnormal 2^-9, no infinity; E5M2 max 57344, min normal 2^-14, min subnormal 2^-16, IEEE-like
//    infinities.
//  - OCP Microscaling Formats (MX) Specification v1.0: section 5 (table 1) gives MXFP8 (E4M3 or E5M2
//    elements), MXFP4 (E2M1) and a block of k = 32 sharing one E8M0 scale; section 5.3.3 E2M1: max 6,
//    min normal 1, min subnormal 0.5, no infinity or NaN; section 5.4.1 E8M0: 2^-127 ... 2^127.
//  - NVFP4 (NVIDIA, "Pretraining LLMs with NVFP4", 2025; Transformer Engine's NVFP4BlockScaling): E2M1
//    elements, 16 per block, an E4M3 block scale.
//  - docs/fp8-recipes.md: which recipe uses which format where (HYBRID: E4M3 forward, E5M2 gradients).
// And the store: a quantised mode's underflow counts are its quantised operands, in its own formats.
#include <gtest/gtest.h>

#include <cmath>

#include "ampscope/engine/mode_formats.h"
#include "ampscope/engine/number_format.h"
#include "ampscope/engine/telemetry_store.h"

namespace ampscope {
namespace {

TEST(ModeFormats, TheFp16AndBf16ModesRoundToTheirFormatAndFp32IsMeasuredAgainstFp16) {
  for (PrecisionMode m : {PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp, PrecisionMode::FP16Pure}) {
    const ModeFormats f = modeFormats(m);
    EXPECT_EQ(f.forward, DType::FP16);
    EXPECT_EQ(f.gradient, DType::FP16);
    EXPECT_EQ(f.measuredAgainst, DType::FP16);
    EXPECT_FALSE(f.quantised);
    EXPECT_EQ(f.blockSize, 0);
  }
  for (PrecisionMode m : {PrecisionMode::BF16Amp, PrecisionMode::BF16Pure}) {
    EXPECT_EQ(modeFormats(m).gradient, DType::BF16);
    EXPECT_EQ(modeFormats(m).measuredAgainst, DType::BF16);
  }
  const ModeFormats fp32 = modeFormats(PrecisionMode::FP32);
  EXPECT_EQ(fp32.forward, DType::FP32);
  EXPECT_EQ(fp32.gradient, DType::FP32);
  EXPECT_EQ(fp32.measuredAgainst, DType::FP16);  // "what would happen" (docs/architecture.md)
}

TEST(ModeFormats, PerTensorFp8RecipesAreHybridE4M3ForwardE5M2Gradients) {
  for (PrecisionMode m : {PrecisionMode::Fp8Delayed, PrecisionMode::Fp8Current}) {
    const ModeFormats f = modeFormats(m);
    EXPECT_EQ(f.forward, DType::FP8E4M3FN);
    EXPECT_EQ(f.gradient, DType::FP8E5M2);
    EXPECT_EQ(f.measuredAgainst, DType::FP8E5M2);
    EXPECT_TRUE(f.quantised);
    EXPECT_EQ(f.blockSize, 0);
  }
  // OFP8 table 1.
  const FInfo e4m3 = finfo(modeFormats(PrecisionMode::Fp8Delayed).forward);
  EXPECT_EQ(e4m3.max, 448.0);
  EXPECT_EQ(e4m3.smallestNormal, std::ldexp(1.0, -6));
  EXPECT_EQ(e4m3.smallestSubnormal, std::ldexp(1.0, -9));
  EXPECT_FALSE(formatSpec(DType::FP8E4M3FN).hasInfinity);
  const FInfo e5m2 = finfo(modeFormats(PrecisionMode::Fp8Delayed).gradient);
  EXPECT_EQ(e5m2.max, 57344.0);
  EXPECT_EQ(e5m2.smallestNormal, std::ldexp(1.0, -14));
  EXPECT_EQ(e5m2.smallestSubnormal, std::ldexp(1.0, -16));
  EXPECT_TRUE(formatSpec(DType::FP8E5M2).hasInfinity);
}

TEST(ModeFormats, BlockRecipesUseTheirElementFormatEverywhereWithTheirBlockScales) {
  const ModeFormats mx = modeFormats(PrecisionMode::MXFP8);
  EXPECT_EQ(mx.forward, DType::FP8E4M3FN);
  EXPECT_EQ(mx.gradient, DType::FP8E4M3FN);  // docs/fp8-recipes.md: E4M3 everywhere, gradients included
  EXPECT_TRUE(mx.quantised);
  EXPECT_EQ(mx.blockSize, 32);               // MX v1.0 table 1: k = 32
  EXPECT_EQ(mx.blockScale, DType::E8M0);
  const FInfo e8m0 = finfo(mx.blockScale);   // MX v1.0 5.4.1
  EXPECT_EQ(e8m0.smallestSubnormal, std::ldexp(1.0, -127));
  EXPECT_EQ(e8m0.max, std::ldexp(1.0, 127));

  const ModeFormats nv = modeFormats(PrecisionMode::NVFP4);
  EXPECT_EQ(nv.forward, DType::FP4E2M1);
  EXPECT_EQ(nv.gradient, DType::FP4E2M1);
  EXPECT_TRUE(nv.quantised);
  EXPECT_EQ(nv.blockSize, 16);
  EXPECT_EQ(nv.blockScale, DType::FP8E4M3FN);
  const FInfo e2m1 = finfo(nv.gradient);     // MX v1.0 5.3.3
  EXPECT_EQ(e2m1.max, 6.0);
  EXPECT_EQ(e2m1.smallestNormal, 1.0);
  EXPECT_EQ(e2m1.smallestSubnormal, 0.5);
}

TEST(ModeFormats, ElementAndRangeFormatsMapBothWays) {
  for (QuantFormat q : {QuantFormat::E4M3, QuantFormat::E5M2, QuantFormat::E2M1})
    EXPECT_EQ(quantFormatOf(dtypeOf(q)), q) << quantFormatKey(q);
  EXPECT_EQ(dtypeOf(QuantFormat::E5M2), DType::FP8E5M2);
  EXPECT_FALSE(quantFormatOf(DType::FP16).has_value());
  EXPECT_EQ(rangeFormatOf(DType::FP8E5M2), RangeFormat::FP8E5M2);
  EXPECT_EQ(rangeFormatOf(DType::FP8E4M3FN), RangeFormat::FP8E4M3);
  EXPECT_EQ(rangeFormatOf(DType::BF16), RangeFormat::BF16);
  EXPECT_FALSE(rangeFormatOf(DType::FP4E2M1).has_value());  // the histograms count no E2M1 range
}

// A quantised step: two operands measured (one forward E4M3, one gradient E5M2), one not measured.
QuantTensorStats operand(const char* name, const char* layer, bool backward, QuantFormat format, int64_t numel,
                         int64_t flushed, int64_t saturated, bool measured) {
  QuantTensorStats q;
  q.name = name;
  q.layer = layer;
  q.backward = backward;
  q.format = format;
  q.numel = numel;
  q.flushed = flushed;
  q.saturated = saturated;
  q.measured = measured;
  return q;
}

TEST(ModeFormats, TheUnderflowViewOfAQuantisedModeCountsItsOwnFormats) {
  TelemetryStore store;
  StepRecord r;
  r.step = 5;
  ModeStep m;
  m.mode = PrecisionMode::Fp8Delayed;
  m.step = 5;
  m.instrumented = true;
  // The engine's FP16 overlay would say nothing here: a quantised mode has no FP16 rounding point.
  m.quantized = {operand("fc1.input", "fc1", false, QuantFormat::E4M3, 1000, 7, 2, true),
                 operand("fc1.grad_output", "fc1", true, QuantFormat::E5M2, 500, 40, 0, true),
                 operand("fc2.input", "fc2", false, QuantFormat::E4M3, 300, 99, 99, false)};
  r.modes.push_back(m);
  store.append(r);
  const ModeSeries* s = store.series(SeriesKey{kEngineRun, PrecisionMode::Fp8Delayed});
  ASSERT_NE(s, nullptr);
  ASSERT_EQ(s->instruments.size(), 1u);
  const InstrumentPoint& p = s->instruments.back();
  EXPECT_EQ(p.total.elements, 1500);
  EXPECT_EQ(p.total.flushedToZero, 47);
  EXPECT_EQ(p.total.overflowed, 2);  // saturated
  EXPECT_EQ(p.total.subnormal, 0);   // not measured for quantised operands
  ASSERT_EQ(s->layers, std::vector<std::string>{"fc1"});
  EXPECT_EQ(p.perLayer.at(0).flushedToZero, 47);
  EXPECT_EQ(s->roundingTotal.flushedToZero, 47);

  // An FP16 mode's own rounding points stay as the engine counted them.
  StepRecord r2;
  r2.step = 5;
  ModeStep h;
  h.mode = PrecisionMode::FP16Amp;
  h.step = 5;
  h.instrumented = true;
  RoundingPointStats rp;
  rp.name = "fc1.grad_output";
  rp.layer = "fc1";
  rp.counts.elements = 10;
  rp.counts.flushedToZero = 3;
  h.roundingPoints = {rp};
  h.rounding = rp.counts;
  h.quantized = {operand("ignored", "fc9", true, QuantFormat::E5M2, 100, 100, 0, true)};
  r2.modes.push_back(h);
  store.append(r2);
  const ModeSeries* fp16 = store.series(SeriesKey{kEngineRun, PrecisionMode::FP16Amp});
  ASSERT_NE(fp16, nullptr);
  EXPECT_EQ(fp16->instruments.back().total.flushedToZero, 3);
  EXPECT_EQ(fp16->layers, std::vector<std::string>{"fc1"});
}

}  // namespace
}  // namespace ampscope
