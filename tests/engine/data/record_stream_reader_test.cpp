// RecordStreamReader (record_stream_reader.h): a stream read in arbitrary pieces gives the records a
// whole-file read gives; damage (malformed lines, a newer version, an oversized line) is skipped,
// counted and reported by line while the good records around it are read, with memory bounded by the
// per-line limit; seq gaps count as dropped records; a reconnect to the same run skips what was seen.
#include "ampscope/engine/record_stream_reader.h"

#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "support/record_samples.h"

namespace ampscope {
namespace {

using samples::probeHeaderLine;
using samples::streamLines;

std::vector<int64_t> seqs(const std::vector<ModeStep>& steps) {
  std::vector<int64_t> list;
  for (const auto& s : steps) list.push_back(s.seq);
  return list;
}

TEST(RecordStreamReader, AnySplitIntoPiecesReadsLikeTheWholeFile) {
  const auto steps = samples::probeSteps(25);
  const std::string text = probeHeaderLine() + streamLines(steps);
  std::mt19937 rng(7);
  for (int trial = 0; trial < 20; ++trial) {
    RecordStreamReader reader;
    std::size_t at = 0;
    std::vector<ModeStep> read;
    while (at < text.size()) {
      const std::size_t size = std::uniform_int_distribution<std::size_t>(1, trial < 10 ? 7 : 3000)(rng);
      reader.feed(std::string_view(text).substr(at, size));
      at += size;
      for (auto& s : reader.takeSteps()) read.push_back(std::move(s));
    }
    ASSERT_TRUE(reader.hasHeader());
    EXPECT_EQ(reader.header().source.runId, "5f0c2a9e1b7d4c3a");
    EXPECT_FALSE(reader.header().config.has_value());
    ASSERT_EQ(read.size(), steps.size());
    for (size_t i = 0; i < steps.size(); ++i) samples::expectSameStep(read[i], steps[i]);
    EXPECT_EQ(reader.steps(), 25);
    EXPECT_EQ(reader.lines(), 26);
    EXPECT_EQ(reader.malformed() + reader.dropped() + reader.oversized(), 0);
    EXPECT_TRUE(reader.takeErrors().empty());
    ASSERT_TRUE(reader.lastWallTime().has_value());
    EXPECT_EQ(*reader.lastWallTime(), steps.back().wallTime);
  }
}

TEST(RecordStreamReader, AThousandMalformedLinesAreSkippedCountedAndReportedByLine) {
  const auto steps = samples::probeSteps(500);
  const std::string good = streamLines(steps);
  // 1,000 damaged lines between the 500 good ones: not JSON, a cut record, an unknown key, a wrong
  // type, binary junk.
  const std::vector<std::string> damage = {
      "{\"mode\":", "not json at all", R"({"mode":"fp32","step":1,"colour":2})", "[1,2,3]",
      std::string("\x01\xff\xfe{", 4)};
  std::string text = probeHeaderLine();
  std::istringstream lines(good);
  std::string line;
  int damaged = 0;
  while (std::getline(lines, line)) {
    text += line + "\n";
    text += damage[static_cast<size_t>(damaged++ % 5)] + "\n";
    text += damage[static_cast<size_t>(damaged++ % 5)] + "\r\n";
  }
  ASSERT_EQ(damaged, 1000);
  RecordStreamReader::Limits limits;
  limits.maxPendingErrors = 100;
  RecordStreamReader reader(limits);
  reader.feed(text);
  const auto read = reader.takeSteps();
  ASSERT_EQ(read.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(read[i].seq, steps[i].seq);
  EXPECT_EQ(reader.malformed(), 1000);
  EXPECT_EQ(reader.dropped(), 0);
  const auto errors = reader.takeErrors();
  ASSERT_EQ(errors.size(), 100u) << "the error list is bounded";
  EXPECT_EQ(reader.errorsLost(), 900);
  // Line 1 is the header, line 2 the first record, line 3 the first damaged line.
  EXPECT_EQ(errors[0].path, "line 3, column 9");
  EXPECT_EQ(errors[1].path, "line 4, column 1");
  EXPECT_EQ(errors[2].text(), "line 6: colour: unknown key");
  EXPECT_EQ(errors[3].text(), "line 7: expected an object, found an array");
}

TEST(RecordStreamReader, AnOversizedLineIsDiscardedWithoutBeingBuffered) {
  // 100 MB without a newline, fed in 1 MiB pieces, against a 4 MiB limit: the reader never holds more
  // than the limit, then reads the record after the line.
  RecordStreamReader::Limits limits;
  limits.maxLineBytes = 4u << 20;
  RecordStreamReader reader(limits);
  reader.feed(probeHeaderLine());
  const std::string piece(1u << 20, 'x');
  std::size_t largest = 0;
  for (int i = 0; i < 100; ++i) {
    reader.feed(piece);
    largest = std::max(largest, reader.bufferedBytes());
  }
  EXPECT_LE(largest, limits.maxLineBytes);
  EXPECT_EQ(reader.bufferedBytes(), 0u) << "after the limit, nothing of the line is kept";
  reader.feed("tail of the long line\n" + streamLines(samples::probeSteps(2)));
  EXPECT_EQ(reader.oversized(), 1);
  EXPECT_EQ(reader.malformed(), 0);
  EXPECT_EQ(reader.takeSteps().size(), 2u);
  const auto errors = reader.takeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), "line 2: longer than 4194304 bytes; skipped");
  // A line of exactly the limit is read (the limit excludes the '\n').
  RecordStreamReader exact(limits);
  exact.feed(probeHeaderLine());
  std::string record = streamLines(samples::probeSteps(1));
  record.pop_back();
  const std::size_t pad = limits.maxLineBytes - record.size();
  exact.feed(record + std::string(pad, ' ') + "\n");
  EXPECT_EQ(exact.oversized(), 0);
  EXPECT_EQ(exact.takeSteps().size(), 1u);
}

TEST(RecordStreamReader, ANewerVersionIsReportedWithBothNumbersAndItsRecordsSkipped) {
  std::string header = probeHeaderLine();
  header.replace(header.find("\"version\":4"), 11, "\"version\":9");
  RecordStreamReader reader;
  reader.feed(header + streamLines(samples::probeSteps(3)));
  EXPECT_FALSE(reader.hasHeader());
  EXPECT_TRUE(reader.takeSteps().empty());
  EXPECT_EQ(reader.malformed(), 4);
  const auto errors = reader.takeErrors();
  ASSERT_EQ(errors.size(), 4u);
  EXPECT_EQ(errors[0].text(),
            "line 1: version: record stream version 9; this AmpScope reads versions 1 to 4 (written by a newer AmpScope)");
  EXPECT_EQ(errors[1].text(), "line 2: skipped (the stream's header did not read)");
}

TEST(RecordStreamReader, ATruncatedLastLineWaitsForTheRest) {
  const std::string text = probeHeaderLine() + streamLines(samples::probeSteps(3));
  const std::size_t cut = text.size() - 40;
  RecordStreamReader reader;
  reader.feed(text.substr(0, cut));
  EXPECT_EQ(reader.takeSteps().size(), 2u);
  EXPECT_EQ(reader.malformed(), 0);
  EXPECT_TRUE(reader.takeErrors().empty());
  reader.feed(text.substr(cut));
  const auto last = reader.takeSteps();
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last[0].seq, 3);
}

TEST(RecordStreamReader, SeqGapsCountAsDroppedRecords) {
  const auto all = samples::probeSteps(10);
  std::vector<ModeStep> sent;
  for (const int64_t seq : {1, 2, 5, 6, 10}) sent.push_back(all[static_cast<size_t>(seq - 1)]);
  RecordStreamReader reader;
  reader.feed(probeHeaderLine() + streamLines(sent));
  EXPECT_EQ(seqs(reader.takeSteps()), (std::vector<int64_t>{1, 2, 5, 6, 10}));
  EXPECT_EQ(reader.dropped(), 2 + 3);
}

TEST(RecordStreamReader, AReconnectToTheSameRunSkipsWhatWasSeenAndANewRunIdIsAChange) {
  const auto all = samples::probeSteps(12);
  RecordStreamReader reader;
  reader.feed(probeHeaderLine() + streamLines({all.begin(), all.begin() + 5}));
  EXPECT_EQ(seqs(reader.takeSteps()), (std::vector<int64_t>{1, 2, 3, 4, 5}));
  EXPECT_FALSE(reader.headerChanged()) << "the first header is not a change";
  // The connection is cut mid-line; the probe resends its history (seq 1..8) on the new one.
  reader.feed("{\"mode\":\"fp16-amp-sc");
  reader.restart();
  reader.feed(probeHeaderLine() + streamLines({all.begin(), all.begin() + 8}) + "{\"broken\n");
  EXPECT_EQ(seqs(reader.takeSteps()), (std::vector<int64_t>{6, 7, 8}));
  EXPECT_EQ(reader.duplicates(), 5);
  EXPECT_EQ(reader.dropped(), 0);
  EXPECT_FALSE(reader.headerChanged());
  const auto errors = reader.takeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path.rfind("line 10", 0), 0u) << "lines count from the connection's start: " << errors[0].path;
  // The script was restarted: a new run-id, seq starts again at 1.
  reader.restart();
  reader.feed(probeHeaderLine("00000000000000ff") + streamLines({all.begin(), all.begin() + 2}));
  EXPECT_TRUE(reader.headerChanged());
  EXPECT_FALSE(reader.headerChanged()) << "once";
  EXPECT_EQ(reader.header().source.runId, "00000000000000ff");
  EXPECT_EQ(seqs(reader.takeSteps()), (std::vector<int64_t>{1, 2}));
}

// The engine's stream (`train --jsonl`): records without seq, all modes of step 1, then of step 2, ...
std::vector<ModeStep> engineSteps(const RunConfig& config, int64_t steps) {
  std::vector<ModeStep> out;
  for (const auto& record : samples::records(config, steps))
    out.insert(out.end(), record.modes.begin(), record.modes.end());
  return out;
}

std::vector<std::pair<int64_t, std::string>> stepsAndModes(const std::vector<ModeStep>& steps) {
  std::vector<std::pair<int64_t, std::string>> list;
  for (const auto& s : steps) list.emplace_back(s.step, modeName(s.mode));
  return list;
}

TEST(RecordStreamReader, AnEngineStreamReadAgainWithItsRunIdContinuesByStep) {
  // The engine writes no seq (docs/record-format.md, ModeStep), so what was seen is known by each mode's
  // step: a file of `train --jsonl` reopened (or a reconnect) resends steps 1.. and only the new ones count.
  const RunConfig config = samples::config();
  const std::size_t modes = config.modes.size();
  ASSERT_GE(modes, 2u);
  const auto all = engineSteps(config, 5);
  const std::string header = recordStreamHeader(config, "0123456789abcdef");
  RecordStreamReader reader;
  // Steps 1 and 2 of every mode, then step 3 of the first mode only (the writer was mid-step).
  reader.feed(header + streamLines({all.begin(), all.begin() + static_cast<std::ptrdiff_t>(2 * modes + 1)}));
  EXPECT_EQ(reader.takeSteps().size(), 2 * modes + 1);
  EXPECT_EQ(reader.header().source.source, "engine");
  EXPECT_EQ(reader.header().source.runId, "0123456789abcdef");
  reader.restart();
  reader.feed(header + streamLines(all));
  const auto fresh = reader.takeSteps();
  // Expected: the rest of step 3 and steps 4 and 5, in the file's order.
  const std::vector<ModeStep> expected(all.begin() + static_cast<std::ptrdiff_t>(2 * modes + 1), all.end());
  EXPECT_EQ(stepsAndModes(fresh), stepsAndModes(expected));
  EXPECT_EQ(reader.duplicates(), static_cast<int64_t>(2 * modes + 1));
  EXPECT_FALSE(reader.headerChanged()) << "the same run-id continues the run";
  EXPECT_EQ(reader.position().lastStep(config.modes.front()), 5);
}

TEST(RecordStreamReader, AnEngineStreamWithoutARunIdIsANewRunOnEveryReconnect) {
  // Streams written before engine headers had a run-id: nothing says it is the same run, so a reopen
  // is a new run and every record counts (as before; a header without run-id still reads).
  const RunConfig config = samples::config();
  const auto all = engineSteps(config, 2);
  const std::string header = recordStreamHeader(config);
  EXPECT_EQ(header.find("run-id"), std::string::npos) << header;
  RecordStreamReader reader;
  reader.feed(header + streamLines(all));
  EXPECT_EQ(reader.takeSteps().size(), all.size());
  reader.restart();
  reader.feed(header + streamLines(all));
  EXPECT_TRUE(reader.headerChanged());
  EXPECT_EQ(reader.takeSteps().size(), all.size());
  EXPECT_EQ(reader.duplicates(), 0);
}

TEST(RecordStreamReader, ResumeSkipsWhatAnEarlierReaderSawOnlyForTheSameRunId) {
  // A run followed again (or restored from the journal): a fresh reader told where the old one stopped.
  const auto all = samples::probeSteps(9);
  RecordStreamReader first;
  first.feed(probeHeaderLine() + streamLines({all.begin(), all.begin() + 4}));
  EXPECT_EQ(first.takeSteps().size(), 4u);
  const RecordStreamReader::Position where = first.position();
  EXPECT_EQ(where.runId, "5f0c2a9e1b7d4c3a");
  EXPECT_EQ(where.lastSeq, 4);

  RecordStreamReader again;
  again.resume(where);
  again.feed(probeHeaderLine() + streamLines(all));
  EXPECT_EQ(seqs(again.takeSteps()), (std::vector<int64_t>{5, 6, 7, 8, 9}));
  EXPECT_EQ(again.duplicates(), 4);
  EXPECT_FALSE(again.headerChanged());

  // Another run-id on that target: nothing is skipped.
  RecordStreamReader other;
  other.resume(where);
  other.feed(probeHeaderLine("00000000000000aa") + streamLines(all));
  EXPECT_EQ(other.takeSteps().size(), all.size());
  EXPECT_EQ(other.duplicates(), 0);
  EXPECT_FALSE(other.headerChanged()) << "the first header of this reader is not a change";

  // A position without seq (the engine's): by each mode's step.
  RecordStreamReader::Position engine;
  engine.runId = "5f0c2a9e1b7d4c3a";
  ModeStep s;
  s.mode = PrecisionMode::FP32;
  s.step = 7;
  engine.add(s);
  s.step = 3;
  engine.add(s);  // lower steps do not move it back
  EXPECT_EQ(engine.lastStep(PrecisionMode::FP32), 7);
  EXPECT_EQ(engine.lastStep(PrecisionMode::BF16Amp), 0);
  EXPECT_EQ(engine.lastSeq, 0);
}

TEST(RecordStreamReader, RecordsBeforeAnyHeaderOfAVersion3StreamAreRefused) {
  // A record line first means a version 1 stream (AmpScope 0.1.0 wrote no header): read with its
  // snake_case keys, so a kebab-case record there is refused naming its first unknown key.
  RecordStreamReader reader;
  reader.feed(streamLines(samples::probeSteps(1)));
  EXPECT_EQ(reader.malformed(), 1);
  const auto errors = reader.takeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].text(), "line 1: loss-scale: unknown key");
}

#ifdef AMPSCOPE_RECORD_FIXTURES
TEST(RecordStreamReader, AVersion1FileReadsAsReadRecordStreamReadsIt) {
  std::ifstream in(std::string(AMPSCOPE_RECORD_FIXTURES) + "/cli-0.1.0.jsonl", std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  ASSERT_FALSE(text.empty());
  RecordError error;
  const auto whole = readRecordStream(text, &error);
  ASSERT_TRUE(whole) << error.text();
  RecordStreamReader reader;
  for (std::size_t at = 0; at < text.size(); at += 100) reader.feed(std::string_view(text).substr(at, 100));
  const auto read = reader.takeSteps();
  EXPECT_TRUE(reader.takeErrors().empty());
  EXPECT_EQ(reader.header().version, 1);
  ASSERT_EQ(read.size(), whole->steps.size());
  for (size_t i = 0; i < read.size(); ++i) samples::expectSameStep(read[i], whole->steps[i]);
}
#endif

}  // namespace
}  // namespace ampscope

namespace ampscope {
namespace {

// Version 4 tensors as the probe writes them while a viewer follows: every role reads; a line whose
// role this AmpScope does not know is skipped with the field and the reason, and the lines around it read.
TEST(RecordStreamReader, Version4RolesReadAndAnUnknownRoleSkipsItsLineWithTheReason) {
  auto steps = samples::probeSteps(3);
  TensorStats activation{"fc1", false, 16, {}, {}, TensorRole::Activation, {}};
  TensorStats weight{"fc1.weight", false, 16, {}, {}, TensorRole::Weight, {}};
  for (auto& s : steps) {
    s.tensors.push_back(activation);
    s.tensors.push_back(weight);
  }
  std::string lines = streamLines(steps);
  const auto second = lines.find('\n') + 1;
  const auto role = lines.find(R"("role":"weight")", second);
  ASSERT_NE(role, std::string::npos);
  lines.replace(role, 15, R"("role":"optimizer-state")");
  RecordStreamReader reader;
  reader.feed(probeHeaderLine() + lines);
  const auto read = reader.takeSteps();
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(tensorRole(read[0].tensors[read[0].tensors.size() - 2]), TensorRole::Activation);
  EXPECT_EQ(tensorRole(read[1].tensors.back()), TensorRole::Weight);
  EXPECT_EQ(reader.malformed(), 1);
  const auto errors = reader.takeErrors();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_NE(errors[0].text().find("line 3: tensors["), std::string::npos) << errors[0].text();
  EXPECT_NE(errors[0].text().find("].role: unknown tensor role \"optimizer-state\""), std::string::npos)
      << errors[0].text();
}

}  // namespace
}  // namespace ampscope
