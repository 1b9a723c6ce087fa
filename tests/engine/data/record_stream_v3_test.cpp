// Record stream version 3 (docs/record-format.md): the probe's header with the run's identity, the
// engine's header with "source", the optional ModeStep fields (seq, wall-time, nonfinite,
// found-inf-per-device) and the histograms' "formats" all read back bit for bit; damaged or incomplete
// headers are refused naming the key; version 1 and 2 streams still read.
#include <gtest/gtest.h>

#include <string>

#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"
#include "support/record_samples.h"

namespace ampscope {
namespace {

std::string probeStream(const std::vector<ModeStep>& steps) {
  std::string text = probeStreamHeader(samples::probeSource(), "ampscope_probe 0.2.0");
  for (const auto& step : steps) appendRecordStreamLine(text, step);
  return text;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at == std::string::npos) return text;
  return text.replace(at, from.size(), to);
}

std::string headerError(const std::string& line) {
  RecordError error;
  EXPECT_FALSE(readRecordStreamHeader(line, &error).has_value()) << line;
  return error.text();
}

void expectSameSource(const StreamSource& a, const StreamSource& b) {
  EXPECT_EQ(a.source, b.source);
  EXPECT_EQ(a.run, b.run);
  EXPECT_EQ(a.runId, b.runId);
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.worldSize, b.worldSize);
  EXPECT_EQ(a.ranks, b.ranks);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.torch, b.torch);
  EXPECT_EQ(a.every, b.every);
  EXPECT_EQ(a.parameters, b.parameters);
}

TEST(RecordStreamV3, AProbeStreamReadsBackEveryFieldAndHasNoConfig) {
  const auto steps = samples::probeSteps(7);
  const std::string text = probeStream(steps);
  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->version, 4);
  EXPECT_EQ(stream->app, "ampscope_probe 0.2.0");
  EXPECT_FALSE(stream->config.has_value());
  expectSameSource(stream->source, samples::probeSource());
  ASSERT_EQ(stream->steps.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) samples::expectSameStep(stream->steps[i], steps[i]);
  // The optional fields were really written (a reader that ignored them would pass the loop above
  // only if the samples left them at their defaults, which they do not).
  EXPECT_TRUE(stream->steps[2].nonFinite.size() == 2 && stream->steps[2].foundInfPerDevice.size() == 2);
}

TEST(RecordStreamV3, TheProbeHeaderHasTheSpecifiedKeysInOrder) {
  const std::string header = probeStreamHeader(samples::probeSource(), "ampscope_probe 0.2.0");
  EXPECT_EQ(header,
            R"({"format":"ampscope-records","version":4,"app":"ampscope_probe 0.2.0","source":"probe",)"
            R"("run":"my-run \"quoted\"","run-id":"5f0c2a9e1b7d4c3a","rank":1,"world-size":2,"ranks":"per-rank",)"
            R"("device":"cuda:1","torch":"2.4.1","every":10,"parameters":["net.0.weight","net.0.bias","net.2.weight"]})"
            "\n");
}

TEST(RecordStreamV3, NewModeStepFieldsAreWrittenOnlyWhenGiven) {
  ModeStep plain;
  plain.step = 1;
  std::string line;
  appendRecordStreamLine(line, plain);
  for (const char* key : {"\"seq\"", "\"wall-time\"", "\"nonfinite\"", "\"found-inf-per-device\"", "\"formats\""}) {
    EXPECT_EQ(line.find(key), std::string::npos) << key << " in " << line;
  }
  const ModeStep probe = samples::probeSteps(3)[2];
  line.clear();
  appendRecordStreamLine(line, probe);
  EXPECT_NE(line.find(R"("seq":3,"wall-time":1764550003.125,"nonfinite":["net.0.weight","net.2.weight"],)"
                      R"("found-inf-per-device":{"cuda:0":true,"cuda:1":false}})"),
            std::string::npos)
      << line;
  // All four formats, all three keys (OCP OFP8 names as the spec spells them).
  EXPECT_NE(line.find(R"("formats":{"fp16":{"flushed":101,"subnormal":2,"overflowed":3},)"
                      R"("bf16":{"flushed":111,"subnormal":12,"overflowed":13},)"
                      R"("fp8-e4m3":{"flushed":121,"subnormal":22,"overflowed":23},)"
                      R"("fp8-e5m2":{"flushed":131,"subnormal":32,"overflowed":33}})"),
            std::string::npos)
      << line;
}

TEST(RecordStreamV3, DamagedNewFieldsAreRefusedNamingThem) {
  const std::string text = probeStream(samples::probeSteps(3));
  auto error = [&](const std::string& from, const std::string& to) {
    RecordError e;
    EXPECT_FALSE(readRecordStream(replaced(text, from, to), &e).has_value());
    return e.text();
  };
  EXPECT_EQ(error(R"("seq":1,)", R"("seq":0,)"), "line 2: seq: must be at least 1");
  EXPECT_EQ(error(R"("seq":1,)", R"("seq":"1",)"), "line 2: seq: expected an integer");
  EXPECT_EQ(error(R"("nonfinite":["net.0.weight")", R"("nonfinite":[7)"), "line 4: nonfinite[0]: expected a string");
  EXPECT_EQ(error(R"("cuda:0":true)", R"("cuda:0":1)"), "line 4: found-inf-per-device.cuda:0: expected true or false");
  EXPECT_EQ(error(R"("bf16":{"flushed":111,)", R"("bf16":{)"), "line 2: tensors[0].scaled.formats.bf16.flushed: missing");
  EXPECT_EQ(error(R"("fp8-e5m2":{"flushed":231,"subnormal":32,"overflowed":33}})",
                  R"("fp8-e5m2":{"flushed":231,"subnormal":32,"overflowed":33},"fp4":{}})"),
            "line 2: tensors[0].unscaled.formats.fp4: unknown key");
  EXPECT_EQ(error(R"("fp8-e4m3":{"flushed":121,"subnormal":22,"overflowed":23},)", ""),
            "line 2: tensors[0].scaled.formats.fp8-e4m3: missing");
  EXPECT_EQ(error(R"("overflowed":3})", R"("overflowed":-3})"),
            "line 2: tensors[0].scaled.formats.fp16.overflowed: must not be negative");
}

TEST(RecordStreamV3, HeadersAreCheckedKeyByKey) {
  const std::string probe = probeStreamHeader(samples::probeSource(), "p");
  EXPECT_EQ(headerError(replaced(probe, R"("torch":"2.4.1",)", R"("torch":"2.4.1","colour":1,)")),
            "colour: unknown key");
  EXPECT_EQ(headerError(replaced(probe, R"("run-id":"5f0c2a9e1b7d4c3a",)", "")), "run-id: missing");
  EXPECT_EQ(headerError(replaced(probe, "5f0c2a9e1b7d4c3a", "5F0C2A9E1B7D4C3A")),
            "run-id: expected 16 lowercase hex digits");
  EXPECT_EQ(headerError(replaced(probe, R"("rank":1,)", R"("rank":2,)")), "rank: rank 2 is not below world-size 2");
  EXPECT_EQ(headerError(replaced(probe, R"("per-rank")", R"("all")")),
            "ranks: expected \"single\", \"merged\" or \"per-rank\", found \"all\"");
  EXPECT_EQ(headerError(replaced(probe, R"("source":"probe")", R"("source":"notebook")")),
            "source: expected \"engine\" or \"probe\", found \"notebook\"");
  EXPECT_EQ(headerError(replaced(probe, R"("source":"probe",)", "")), "source: missing");
  EXPECT_EQ(headerError(replaced(probe, R"("every":10)", R"("every":0)")), "every: must be at least 1");
  EXPECT_EQ(headerError(replaced(probe, R"("version":4)", R"("version":5)")),
            "version: record stream version 5; this AmpScope reads versions 1 to 4 (written by a newer AmpScope)");
  EXPECT_EQ(headerError(R"({"mode":"fp32"})"), "not a record stream header (no \"format\")");
  EXPECT_EQ(headerError("{\"format\":"), headerError("{\"format\":"));  // not JSON: reported, no crash
  EXPECT_EQ(headerError("{\"format\":").rfind("column ", 0), 0u);

  // The engine's header needs its config; a version 2 header knows none of the version 3 keys.
  const std::string engine = recordStreamHeader(samples::config());
  EXPECT_EQ(headerError(engine.substr(0, engine.find(",\"config\"")) + "}"), "config: missing");
  std::string v2 = replaced(replaced(engine, R"("version":4)", R"("version":2)"), R"("source":"engine",)", "");
  EXPECT_TRUE(readRecordStreamHeader(v2, nullptr).has_value()) << v2;
  EXPECT_EQ(headerError(replaced(engine, R"("version":4)", R"("version":2)")),
            "source: unknown key (in a version 2 header)");
  const auto read = readRecordStreamHeader(engine, nullptr);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->source.source, "engine");
  EXPECT_TRUE(read->config.has_value());
}

TEST(RecordStreamV3, TheEngineHeaderCarriesARunIdAndOneWithoutStillReads) {
  // docs/record-format.md, header keys: "run-id" is written by the engine too (16 lowercase hex digits,
  // after "source"); streams written before it have none and read with an empty run-id.
  const std::string id = newRunId();
  ASSERT_EQ(id.size(), 16u);
  EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
  EXPECT_NE(newRunId(), id) << "random per stream (a repeat has probability 2^-64)";
  const std::string engine = recordStreamHeader(samples::config(), "00000000000000ab");
  EXPECT_NE(engine.find(R"(,"source":"engine","run-id":"00000000000000ab","config":{)"), std::string::npos) << engine;
  const auto read = readRecordStreamHeader(engine, nullptr);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->source.source, "engine");
  EXPECT_EQ(read->source.runId, "00000000000000ab");
  EXPECT_TRUE(read->config.has_value());
  EXPECT_EQ(headerError(replaced(engine, R"("run-id":"00000000000000ab")", R"("run-id":"AB")")),
            "run-id: expected 16 lowercase hex digits");
  // Without a run-id: the header as engines wrote it before (byte for byte what the old writer made).
  const std::string old = recordStreamHeader(samples::config());
  EXPECT_EQ(old, replaced(engine, R"("run-id":"00000000000000ab",)", ""));
  const auto readOld = readRecordStreamHeader(old, nullptr);
  ASSERT_TRUE(readOld);
  EXPECT_TRUE(readOld->source.runId.empty());
}

TEST(RecordStreamV3, AVersion2StreamStillReads) {
  // A version 2 stream as AmpScope 0.2's `train --jsonl` wrote it: no "source", no version 3 fields.
  std::string text = recordStreamHeader(samples::config());
  text = replaced(replaced(text, R"("version":4)", R"("version":2)"), R"("source":"engine",)", "");
  for (const auto& record : samples::records(samples::config(), 3)) {
    for (const auto& step : record.modes) appendRecordStreamLine(text, step);
  }
  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->version, 2);
  EXPECT_EQ(stream->source.source, "engine");
  EXPECT_EQ(stream->steps.size(), 9u);
}

TEST(RecordStreamV3, ExponentHistogramAddSumsFormats) {
  ExponentHistogram a = samples::histogramWithFormats(1);
  ExponentHistogram b;  // not measured
  b.add(a);
  EXPECT_TRUE(b.formatsMeasured);
  b.add(a);
  EXPECT_EQ(b.formats[static_cast<size_t>(RangeFormat::FP8E5M2)].overflowed, 2 * 33);
  EXPECT_EQ(b.formats[static_cast<size_t>(RangeFormat::FP16)].flushed, 2 * 101);
  EXPECT_STREQ(rangeFormatKey(RangeFormat::FP8E4M3), "fp8-e4m3");
  EXPECT_STREQ(rangeFormatKey(RangeFormat::BF16), "bf16");
}

}  // namespace
}  // namespace ampscope
