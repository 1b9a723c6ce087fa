// The compact exponent bins (exponent_bins.h): only the occupied range is stored, and every read, sum and
// add gives what a dense array of all 277 bins would.
#include <gtest/gtest.h>

#include <climits>
#include <random>

#include "ampscope/engine/exponent_bins.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {
namespace {

constexpr int kMin = ExponentBins::kMinExponent;
constexpr int kMax = ExponentBins::kMaxExponent;

// The stored form holds exactly the occupied range, with non-zero ends.
void expectCanonical(const ExponentBins& b) {
  if (b.empty()) {
    EXPECT_EQ(b.heapBytes(), 0u);
    EXPECT_GT(b.lowest(), b.highest());
    return;
  }
  EXPECT_GE(b.lowest(), kMin);
  EXPECT_LE(b.highest(), kMax);
  EXPECT_NE(b.at(b.lowest()), 0);
  EXPECT_NE(b.at(b.highest()), 0);
  EXPECT_EQ(b.heapBytes(), static_cast<std::size_t>(b.highest() - b.lowest() + 1) * sizeof(int64_t));
}

TEST(ExponentHistogramBins, EmptyHoldsNothingAndReadsZeroEverywhere) {
  const ExponentBins b;
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b.sum(), 0);
  EXPECT_EQ(b.heapBytes(), 0u);
  int visited = 0;
  for (int e = b.lowest(); e <= b.highest(); ++e) ++visited;
  EXPECT_EQ(visited, 0);
  for (int e = kMin - 2; e <= kMax + 2; ++e) EXPECT_EQ(b.at(e), 0) << e;
  EXPECT_EQ(b.dense(), ExponentBins::Dense{});
  EXPECT_EQ(b, ExponentBins{});

  const ExponentHistogram h;
  EXPECT_EQ(h.total(), 0);
  EXPECT_EQ(h.countAt(0), 0);
  expectCanonical(b);
}

TEST(ExponentHistogramBins, SingleBinAtEitherEndOfFloat32sRange) {
  for (const int e : {kMin, kMax}) {
    ExponentBins b;
    b.set(e, 3);
    EXPECT_FALSE(b.empty());
    EXPECT_EQ(b.lowest(), e);
    EXPECT_EQ(b.highest(), e);
    EXPECT_EQ(b.at(e), 3);
    EXPECT_EQ(b.at(e - 1), 0);
    EXPECT_EQ(b.at(e + 1), 0);
    EXPECT_EQ(b.sum(), 3);
    EXPECT_EQ(b.heapBytes(), sizeof(int64_t));  // one count, not 277
    ExponentBins::Dense expected{};
    expected[static_cast<std::size_t>(e - kMin)] = 3;
    EXPECT_EQ(b.dense(), expected);
    expectCanonical(b);
  }
  ExponentBins both;
  both.set(kMax, 7);
  both.set(kMin, 1);
  EXPECT_EQ(both.lowest(), kMin);
  EXPECT_EQ(both.highest(), kMax);
  EXPECT_EQ(both.at(kMin), 1);
  EXPECT_EQ(both.at(0), 0);
  EXPECT_EQ(both.at(kMax), 7);
  EXPECT_EQ(both.sum(), 8);
  expectCanonical(both);
}

TEST(ExponentHistogramBins, ReadsOutsideTheOccupiedRangeAreZero) {
  ExponentBins b;
  b.set(-20, 4);
  b.set(-18, 6);
  for (const int e : {INT_MIN, kMin - 1, kMin, -21, -19, -17, 0, kMax, kMax + 1, INT_MAX}) {
    EXPECT_EQ(b.at(e), 0) << e;
  }
  EXPECT_EQ(b.at(-20), 4);
  EXPECT_EQ(b.at(-18), 6);
  EXPECT_THROW(b.set(kMin - 1, 1), std::out_of_range);
  EXPECT_THROW(b.set(kMax + 1, 1), std::out_of_range);
  EXPECT_EQ(b.sum(), 10);
}

TEST(ExponentHistogramBins, AddOfDisjointRangesKeepsBothAndTheGapBetween) {
  ExponentBins low, high;
  low.set(-30, 2);
  low.set(-28, 5);
  high.set(10, 1);
  high.set(12, 4);

  ExponentBins a = low;
  a.add(high);
  ExponentBins b = high;
  b.add(low);
  for (ExponentBins* sum : {&a, &b}) {
    EXPECT_EQ(sum->lowest(), -30);
    EXPECT_EQ(sum->highest(), 12);
    EXPECT_EQ(sum->at(-30), 2);
    EXPECT_EQ(sum->at(-29), 0);
    EXPECT_EQ(sum->at(-28), 5);
    for (int e = -27; e < 10; ++e) EXPECT_EQ(sum->at(e), 0) << e;
    EXPECT_EQ(sum->at(10), 1);
    EXPECT_EQ(sum->at(12), 4);
    EXPECT_EQ(sum->sum(), 12);
    expectCanonical(*sum);
  }
  EXPECT_EQ(a, b);
  // The addends are unchanged.
  EXPECT_EQ(low.highest(), -28);
  EXPECT_EQ(high.lowest(), 10);

  // Overlapping and contained ranges add bin by bin.
  ExponentBins inner;
  inner.set(-29, 10);
  a.add(inner);
  EXPECT_EQ(a.at(-29), 10);
  EXPECT_EQ(a.sum(), 22);
  ExponentBins wider;
  wider.set(-31, 1);
  wider.set(11, 1);
  wider.set(13, 1);
  a.add(wider);
  EXPECT_EQ(a.lowest(), -31);
  EXPECT_EQ(a.highest(), 13);
  EXPECT_EQ(a.at(11), 1);
  EXPECT_EQ(a.at(12), 4);
  expectCanonical(a);

  // Adding nothing changes nothing; adding to nothing copies.
  ExponentBins copy = a;
  copy.add(ExponentBins{});
  EXPECT_EQ(copy, a);
  ExponentBins none;
  none.add(a);
  EXPECT_EQ(none, a);
}

TEST(ExponentHistogramBins, ClearingAnEndBinShrinksTheRange) {
  ExponentBins b;
  b.set(-5, 1);
  b.set(0, 9);
  b.set(5, 2);
  b.set(5, 0);
  EXPECT_EQ(b.highest(), 0);
  b.set(-5, 0);
  EXPECT_EQ(b.lowest(), 0);
  ExponentBins only;
  only.set(0, 9);
  EXPECT_EQ(b, only);
  expectCanonical(b);
  b.set(0, 0);
  EXPECT_TRUE(b.empty());
  EXPECT_EQ(b, ExponentBins{});
  expectCanonical(b);
  b.set(40, 0);  // outside: nothing to clear
  EXPECT_TRUE(b.empty());
}

// Random sets and adds, each checked against a dense array of every bin.
TEST(ExponentHistogramBins, AgreesWithADenseArrayUnderRandomEdits) {
  std::mt19937 rng(15);
  std::uniform_int_distribution<int> exponent(kMin, kMax);
  std::uniform_int_distribution<int> op(0, 3);
  std::uniform_int_distribution<int64_t> count(0, 5);
  for (int round = 0; round < 200; ++round) {
    ExponentBins b;
    ExponentBins::Dense model{};
    for (int i = 0; i < 20; ++i) {
      const int e = exponent(rng);
      switch (op(rng)) {
        case 0: {  // set (0 included: clears)
          const int64_t c = count(rng);
          b.set(e, c);
          model[static_cast<std::size_t>(e - kMin)] = c;
          break;
        }
        case 1: {  // add a short run of bins around e
          ExponentBins other;
          for (int d = -3; d <= 3; ++d) {
            const int x = e + d;
            if (x < kMin || x > kMax) continue;
            const int64_t c = count(rng);
            other.set(x, c);
            model[static_cast<std::size_t>(x - kMin)] += c;
          }
          b.add(other);
          break;
        }
        case 2: {  // add a dense scratch, as the histogram builder does
          ExponentBins::Dense scratch{};
          scratch[static_cast<std::size_t>(e - kMin)] = count(rng);
          scratch[static_cast<std::size_t>(exponent(rng) - kMin)] += count(rng);
          for (std::size_t k = 0; k < model.size(); ++k) model[k] += scratch[k];
          b.add(scratch);
          break;
        }
        default: {  // copy, then keep editing the copy
          const ExponentBins copy = b;
          b = copy;
          break;
        }
      }
      ASSERT_EQ(b.dense(), model) << "round " << round << " edit " << i;
      int64_t sum = 0;
      for (int64_t c : model) sum += c;
      ASSERT_EQ(b.sum(), sum);
      expectCanonical(b);
      // Bins built from the model directly are the same object.
      ExponentBins fromModel;
      fromModel.add(model);
      ASSERT_EQ(fromModel, b);
    }
  }
}

TEST(ExponentHistogramBins, HistogramTotalAndAddCoverEveryBin) {
  ExponentHistogram a;
  a.counts.set(kMin, 2);
  a.zero = 3;
  a.posInf = 1;
  a.negInf = 4;
  a.nan = 5;
  ExponentHistogram b;
  b.counts.set(kMax, 6);
  b.counts.set(-24, 7);
  b.zero = 1;
  EXPECT_EQ(a.total(), 2 + 3 + 1 + 4 + 5);
  EXPECT_EQ(b.total(), 6 + 7 + 1);
  a.add(b);
  EXPECT_EQ(a.total(), 15 + 14);
  EXPECT_EQ(a.countAt(kMin), 2);
  EXPECT_EQ(a.countAt(-24), 7);
  EXPECT_EQ(a.countAt(kMax), 6);
  EXPECT_EQ(a.countAt(kMin + 1), 0);
  EXPECT_EQ(a.zero, 4);
}

// A decoded histogram holds its range and no more, whatever order the file lists its bins in.
TEST(ExponentHistogramBins, DecodedHistogramsAreCompact) {
  const std::string line =
      R"({"mode":"fp32","step":1,"loss":1,"loss-scale":1,"skipped":false,"found-inf":false,)"
      R"("grad-norm-before-clip":0,"grad-norm-after-clip":0,"clip-norm-seen":0,"lr":0.1,"step-time-ms":1,)"
      R"("current-bytes":0,"peak-bytes":0,"diverged":false,"instrumented":true,"tensors":[{"name":"w",)"
      R"("is-parameter":true,"numel":9,"scaled":{"bins":[[-3,4],[-7,2]],"zero":3,"pos-inf":0,"neg-inf":0,)"
      R"("nan":0,"target-subnormal":0,"target-underflow":0},"unscaled":{"bins":[],"zero":9,"pos-inf":0,)"
      R"("neg-inf":0,"nan":0,"target-subnormal":0,"target-underflow":0}}]})";
  JsonParseError parseError;
  const auto value = parseJson(line, &parseError);
  ASSERT_TRUE(value) << parseError.message;
  RecordError error;
  const auto step = readModeStepJson(*value, "", &error);
  ASSERT_TRUE(step) << error.text();
  const ExponentBins& scaled = step->tensors.at(0).scaled.counts;
  EXPECT_EQ(scaled.lowest(), -7);
  EXPECT_EQ(scaled.highest(), -3);
  EXPECT_EQ(scaled.at(-7), 2);
  EXPECT_EQ(scaled.at(-3), 4);
  EXPECT_EQ(scaled.heapBytes(), 5 * sizeof(int64_t));
  EXPECT_TRUE(step->tensors.at(0).unscaled.counts.empty());
  EXPECT_EQ(step->tensors.at(0).scaled.total(), 9);
}

}  // namespace
}  // namespace ampscope
