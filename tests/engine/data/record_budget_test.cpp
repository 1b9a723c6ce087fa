// The per-record budget of followed data (follow_budget.h, docs/following.md): a record's long lists are
// read item by item, the first RecordBudget entries kept in stream order, the rest folded and counted.
// Expected values come from the records the test builds: the folded parameter gradients' sum is the
// ExponentHistogram::add of exactly the entries past the budget, and a store fed the folded record holds
// the same totals (heat-map column, rounding totals) as one fed the whole record.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/record_stream_reader.h"
#include "ampscope/engine/telemetry_store.h"
#include "support/record_samples.h"

namespace ampscope {
namespace {

// A probe record with `tensors` parameter gradients (every other one with the seed's histograms shifted),
// `points` rounding points, `names` non-finite names and `quantized` quantised operands.
ModeStep wideStep(int tensors, int points = 0, int names = 0, int quantized = 0) {
  ModeStep s = samples::probeSteps(1)[0];
  s.tensors.clear();
  s.nonFinite.clear();
  for (int i = 0; i < tensors; ++i) {
    TensorStats t{"layer" + std::to_string(i) + ".weight", true, 100 + i, samples::histogramWithFormats(i % 5),
                  samples::histogramWithFormats(i % 7), TensorRole::Gradient, {}};
    if (i % 4 == 3) {  // an activation gradient: folded, counted, but not summed with the parameters
      t.isParameter = false;
      t.role = TensorRole::ActivationGradient;
      t.name = "act:layer" + std::to_string(i);
    }
    s.tensors.push_back(t);
  }
  for (int i = 0; i < points; ++i) {
    RoundingPointStats p;
    p.name = "fc" + std::to_string(i) + ".input";
    p.layer = "fc" + std::to_string(i);
    p.counts = {1000 + i, i, 2 * i, i % 3, i % 2};
    s.roundingPoints.push_back(p);
  }
  for (int i = 0; i < names; ++i) s.nonFinite.push_back("layer" + std::to_string(i) + ".weight");
  for (int i = 0; i < quantized; ++i) {
    QuantTensorStats q;
    q.name = "fc" + std::to_string(i) + ".input";
    q.layer = "fc" + std::to_string(i);
    q.scale = 2;
    q.amax = 1;
    s.quantized.push_back(q);
  }
  return s;
}

std::string lineOf(const ModeStep& step) {
  std::string line;
  appendRecordStreamLine(line, step);
  line.pop_back();  // the '\n'
  return line;
}

TEST(RecordBudget, TensorsPastTheBudgetAreFoldedAndTheirParameterHistogramsSummed) {
  const ModeStep whole = wideStep(11);
  RecordBudget budget;
  budget.tensors = 4;
  const RecordLine read = readRecordStreamLine(lineOf(whole), kRecordStreamVersion, budget);
  ASSERT_EQ(read.kind, RecordLine::Kind::Step) << read.error.text();
  const ModeStep& s = *read.step;
  ASSERT_EQ(s.tensors.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(s.tensors[i].name, whole.tensors[i].name);  // stream order
  EXPECT_EQ(s.folded.tensors, 7);
  // Entries 4..10: 7 is an activation gradient (i % 4 == 3), the other six are parameters.
  EXPECT_EQ(s.folded.parameters, 6);
  ASSERT_TRUE(s.folded.parameterSum);
  TensorStats expected;
  for (std::size_t i = 4; i < whole.tensors.size(); ++i) {
    if (!whole.tensors[i].isParameter) continue;
    expected.numel += whole.tensors[i].numel;
    expected.scaled.add(whole.tensors[i].scaled);
    expected.unscaled.add(whole.tensors[i].unscaled);
  }
  EXPECT_EQ(s.folded.parameterSum->numel, expected.numel);
  samples::expectSameHistogram(s.folded.parameterSum->scaled, expected.scaled);
  samples::expectSameHistogram(s.folded.parameterSum->unscaled, expected.unscaled);
  EXPECT_EQ(s.folded.roundingPoints + s.folded.quantized + s.folded.names, 0);
}

TEST(RecordBudget, ALineWithinTheBudgetReadsAsTheWholeReaderReadsIt) {
  const ModeStep whole = wideStep(6, 3, 2, 2);
  const RecordLine read = readRecordStreamLine(lineOf(whole), kRecordStreamVersion, RecordBudget{});
  ASSERT_EQ(read.kind, RecordLine::Kind::Step) << read.error.text();
  samples::expectSameStep(*read.step, whole);
  EXPECT_FALSE(read.step->folded.any());
}

TEST(RecordBudget, RoundingPointsNamesAndQuantizedPastTheBudgetAreCounted) {
  const ModeStep whole = wideStep(1, 9, 5, 6);
  RecordBudget budget;
  budget.roundingPoints = 3;
  budget.names = 2;
  budget.quantized = 4;
  const RecordLine read = readRecordStreamLine(lineOf(whole), kRecordStreamVersion, budget);
  ASSERT_EQ(read.kind, RecordLine::Kind::Step) << read.error.text();
  const ModeStep& s = *read.step;
  EXPECT_EQ(s.folded.roundingPoints, 6);
  ASSERT_EQ(s.roundingPoints.size(), 4u);  // three kept and the "(folded)" sum of the other six
  EXPECT_EQ(s.roundingPoints[2].name, "fc2.input");
  EXPECT_EQ(s.roundingPoints[3].name, kFoldedRoundingPoint);
  RoundingCounts rest;
  for (std::size_t i = 3; i < whole.roundingPoints.size(); ++i) rest.add(whole.roundingPoints[i].counts);
  samples::expectSameCounts(s.roundingPoints[3].counts, rest);
  EXPECT_EQ(s.nonFinite, (std::vector<std::string>{"layer0.weight", "layer1.weight"}));
  EXPECT_EQ(s.folded.names, 3);
  EXPECT_EQ(s.quantized.size(), 4u);
  EXPECT_EQ(s.folded.quantized, 2);
}

// A journal or session holds the folded record as the codec writes it: read again within the same
// budget, nothing is counted twice and the sums stay.
TEST(RecordBudget, AFoldedRecordWrittenAndReadAgainKeepsItsCounts) {
  RecordBudget budget;
  budget.tensors = 3;
  budget.roundingPoints = 2;
  budget.names = 1;
  const RecordLine first = readRecordStreamLine(lineOf(wideStep(8, 5, 4)), kRecordStreamVersion, budget);
  ASSERT_EQ(first.kind, RecordLine::Kind::Step) << first.error.text();
  const std::string again = lineOf(*first.step);
  EXPECT_NE(again.find("\"folded\":{\"tensors\":5,"), std::string::npos) << again.substr(0, 200);
  for (const RecordBudget& b : {budget, RecordBudget{}}) {
    const RecordLine second = readRecordStreamLine(again, kRecordStreamVersion, b);
    ASSERT_EQ(second.kind, RecordLine::Kind::Step) << second.error.text();
    samples::expectSameStep(*second.step, *first.step);
    EXPECT_EQ(second.step->folded.tensors, 5);
    EXPECT_EQ(second.step->folded.parameters, first.step->folded.parameters);
    EXPECT_EQ(second.step->folded.roundingPoints, 3);
    EXPECT_EQ(second.step->folded.names, 3);
    ASSERT_TRUE(second.step->folded.parameterSum);
    EXPECT_EQ(second.step->folded.parameterSum->numel, first.step->folded.parameterSum->numel);
    samples::expectSameHistogram(second.step->folded.parameterSum->scaled, first.step->folded.parameterSum->scaled);
  }
  // The whole-document reader (sessions, File > Open of a stream) reads the same record.
  RecordError error;
  const auto value = parseJson(again, nullptr);
  ASSERT_TRUE(value);
  const auto whole = readRecordStreamStep(*value, kRecordStreamVersion, &error);
  ASSERT_TRUE(whole) << error.text();
  EXPECT_EQ(whole->folded.tensors, 5);
  EXPECT_EQ(whole->folded.roundingPoints, 3);
}

TEST(RecordBudget, AnEntryPastTheBudgetIsStillCheckedAndNamedWhenDamaged) {
  std::string line = lineOf(wideStep(6));
  const std::string bad = "\"name\":\"layer5.weight\",\"is-parameter\":true,\"numel\":105";
  const auto at = line.find(bad);
  ASSERT_NE(at, std::string::npos);
  line.replace(at, bad.size(), "\"name\":\"layer5.weight\",\"is-parameter\":true,\"numel\":-1");
  RecordBudget budget;
  budget.tensors = 2;
  const RecordLine read = readRecordStreamLine(line, kRecordStreamVersion, budget);
  EXPECT_EQ(read.kind, RecordLine::Kind::Refused);
  EXPECT_EQ(read.error.path, "tensors[5].numel");
  // Damage outside the lists still comes first and is named as before.
  const ModeStep three = wideStep(3);
  std::string modeLine = lineOf(three);
  const std::string mode = "\"" + modeName(three.mode) + "\"";
  modeLine.replace(modeLine.find(mode), mode.size(), "\"fp17\"");
  const RecordLine badMode = readRecordStreamLine(modeLine, kRecordStreamVersion);
  EXPECT_EQ(badMode.kind, RecordLine::Kind::Refused);
  EXPECT_EQ(badMode.error.path, "mode");
  const RecordLine notJson = readRecordStreamLine(lineOf(wideStep(3)) + "}", kRecordStreamVersion);
  EXPECT_EQ(notJson.kind, RecordLine::Kind::NotJson);
}

TEST(RecordBudget, ADamagedFoldedObjectIsRefusedNamingItsField) {
  RecordBudget budget;
  budget.tensors = 1;
  const RecordLine first = readRecordStreamLine(lineOf(wideStep(3)), kRecordStreamVersion, budget);
  ASSERT_TRUE(first.step);
  std::string line = lineOf(*first.step);
  const auto at = line.find("\"folded\":{\"tensors\":2,\"parameters\":2");
  ASSERT_NE(at, std::string::npos);
  const RecordLine more = readRecordStreamLine(
      std::string(line).replace(at, 36, "\"folded\":{\"tensors\":2,\"parameters\":3"), kRecordStreamVersion);
  EXPECT_EQ(more.error.path, "folded.parameters");
  const RecordLine negative = readRecordStreamLine(
      std::string(line).replace(at, 21, "\"folded\":{\"tensors\":-2"), kRecordStreamVersion);
  EXPECT_EQ(negative.error.path, "folded.tensors");
}

TEST(RecordBudget, TheReaderCountsWhatItFoldedAndCopiesTheLineAsItCame) {
  RecordStreamReader::Limits limits;
  limits.budget.tensors = 2;
  RecordStreamReader reader(limits);
  std::vector<std::string> seen;
  reader.setAcceptedLineObserver([&](std::string_view line) { seen.emplace_back(line); });
  const std::string wide = lineOf(wideStep(5));
  // In pieces, as a file or a connection delivers it: the line is read once its '\n' arrives.
  const std::string text = samples::probeHeaderLine() + wide + "\n";
  for (std::size_t at = 0; at < text.size(); at += 97) reader.feed(std::string_view(text).substr(at, 97));
  const auto steps = reader.takeSteps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].tensors.size(), 2u);
  EXPECT_EQ(reader.foldedRecords(), 1);
  EXPECT_EQ(reader.folded().tensors, 3);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[1], wide);
}

// The store fed the folded record and the store fed the whole record hold the same totals: the heat
// map's column (every parameter gradient summed) and the run's rounding totals.
TEST(RecordBudget, AStoreFedAFoldedRecordKeepsTheWholeRecordsTotals) {
  const ModeStep whole = wideStep(13);
  RecordBudget budget;
  budget.tensors = 5;
  const RecordLine read = readRecordStreamLine(lineOf(whole), kRecordStreamVersion, budget);
  ASSERT_TRUE(read.step);
  TelemetryStore a, b;
  const int runA = a.addRun("whole");
  const int runB = b.addRun("folded");
  a.appendFollowed(runA, whole);
  b.appendFollowed(runB, *read.step);
  const ModeSeries* sa = a.series(SeriesKey{runA, whole.mode});
  const ModeSeries* sb = b.series(SeriesKey{runB, whole.mode});
  ASSERT_TRUE(sa && sb);
  ASSERT_EQ(sa->histogramRing.size(), 1u);
  ASSERT_EQ(sb->histogramRing.size(), 1u);
  samples::expectSameHistogram(sb->histogramRing[0].scaled, sa->histogramRing[0].scaled);
  samples::expectSameHistogram(sb->histogramRing[0].unscaled, sa->histogramRing[0].unscaled);
  samples::expectSameCounts(sb->roundingTotal, sa->roundingTotal);
  EXPECT_EQ(sb->latestTensors.size(), 5u);
  EXPECT_EQ(sb->latestFolded.tensors, 8);
  EXPECT_EQ(sb->foldedRecords, 1);
  EXPECT_NE(std::find(sb->layers.begin(), sb->layers.end(), kFoldedRoundingPoint), sb->layers.end());
}

}  // namespace
}  // namespace ampscope
