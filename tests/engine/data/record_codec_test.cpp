// The record codec (record_codec.h): ModeStep JSON, the JSON Lines record stream and CSV keep every
// value bit for bit (NaN, +-Inf, -0.0, subnormals, histograms at both ends of the exponent range), the
// keys are spelled as the session format has spelled them since version 1, damaged input gives an error
// naming the field, and AmpScope 0.1.0's own `train --jsonl/--csv` files (fixtures written by that
// version) still read.
#include "ampscope/engine/record_codec.h"

#include <gtest/gtest.h>

#include <random>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "support/record_samples.h"

namespace ampscope {
namespace {

using samples::kInf;
using samples::kNaN;

std::string configText(const RunConfig& config) {
  std::string out;
  JsonWriter json(out);
  writeConfigJson(json, config);
  return out;
}

std::string streamOf(const RunConfig& config, const std::vector<StepRecord>& records) {
  std::string text = recordStreamHeader(config);
  for (const auto& record : records) {
    for (const auto& step : record.modes) appendRecordStreamLine(text, step);
  }
  return text;
}

std::vector<ModeStep> flatten(const std::vector<StepRecord>& records) {
  std::vector<ModeStep> steps;
  for (const auto& record : records) steps.insert(steps.end(), record.modes.begin(), record.modes.end());
  return steps;
}

// The error text of a stream that must not read.
std::string streamError(const std::string& text) {
  RecordError error;
  EXPECT_FALSE(readRecordStream(text, &error).has_value()) << text.substr(0, 200);
  return error.text();
}

std::string csvError(const std::string& text) {
  RecordError error;
  EXPECT_FALSE(readCsv(text, &error).has_value()) << text.substr(0, 200);
  return error.text();
}

TEST(RecordCodec, AModeStepIsWrittenWithTheSessionV1Keys) {
  // Expected text: the keys and their order as AmpScope 0.1.0's session writer spelled a ModeStep
  // (ui/session/session_file.cpp of that release, appendModeStepJson): an uninstrumented step has no
  // "rounding", "rounding-points" or "tensors".
  ModeStep s;
  s.mode = PrecisionMode::FP16AmpScaled;
  s.step = 3;
  s.loss = 0.5;
  s.lossScale = 32768;
  s.skipped = true;
  s.foundInf = true;
  s.gradNormBeforeClip = kNaN;
  s.gradNormAfterClip = -kInf;
  s.clipNormSeen = -0.0;
  s.lr = 1e-3;
  s.stepTimeMs = 0.25;
  s.currentBytes = 1024;
  s.peakBytes = 4096;
  std::string out;
  JsonWriter json(out);
  writeModeStepJson(json, s);
  EXPECT_EQ(out,
            R"({"mode":"fp16-amp-scaled","step":3,"loss":0.5,"loss-scale":32768,"skipped":true,"found-inf":true,)"
            R"("grad-norm-before-clip":"nan","grad-norm-after-clip":"-inf","clip-norm-seen":-0,"lr":0.001,)"
            R"("step-time-ms":0.25,"current-bytes":1024,"peak-bytes":4096,"diverged":false,"instrumented":false})");
}

TEST(RecordCodec, HistogramsAreSparseExponentCountPairs) {
  ModeStep s;
  s.instrumented = true;
  ExponentHistogram h;
  h.counts.set(-149, 1);
  h.counts.set(-24, 5);
  h.zero = 2;
  s.tensors.push_back({"w", true, 8, h, h, TensorRole::Gradient, {}});
  std::string out;
  JsonWriter json(out);
  writeModeStepJson(json, s);
  EXPECT_NE(out.find(R"("scaled":{"bins":[[-149,1],[-24,5]],"zero":2,"pos-inf":0,"neg-inf":0,"nan":0,)"
                     R"("target-subnormal":0,"target-underflow":0})"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(R"("rounding":{"elements":0,)"), std::string::npos) << "instrumented steps carry totals";
}

TEST(RecordCodec, StepRecordsRoundTripBitForBit) {
  const auto records = samples::records(samples::config());
  for (size_t i = 0; i < records.size(); ++i) {
    std::string out;
    JsonWriter json(out);
    writeStepRecordJson(json, records[i]);
    JsonParseError parseError;
    const auto value = parseJson(out, &parseError);
    ASSERT_TRUE(value) << parseError.message;
    RecordError error;
    const auto back = readStepRecordJson(*value, "records[" + std::to_string(i) + "]", &error);
    ASSERT_TRUE(back) << error.text();
    EXPECT_EQ(back->step, records[i].step);
    ASSERT_EQ(back->modes.size(), records[i].modes.size());
    for (size_t m = 0; m < back->modes.size(); ++m) samples::expectSameStep(back->modes[m], records[i].modes[m]);
    // Encoding what was read gives the same bytes.
    std::string again;
    JsonWriter againJson(again);
    writeStepRecordJson(againJson, *back);
    EXPECT_EQ(again, out);
  }
}

TEST(RecordCodec, ReadErrorsNameTheFullPath) {
  const auto check = [](const std::string& json, const std::string& expected) {
    JsonParseError parseError;
    const auto value = parseJson(json, &parseError);
    ASSERT_TRUE(value) << parseError.message;
    RecordError error;
    EXPECT_FALSE(readStepRecordJson(*value, "records[12]", &error).has_value());
    EXPECT_EQ(error.text(), expected);
  };
  std::string good;
  JsonWriter json(good);
  writeStepRecordJson(json, samples::records(samples::config())[2]);  // instrumented (step 3)
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string text = good;
    const auto at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return text.replace(at, from.size(), to);
  };
  // A member's value replaced (up to the next ',' or '}').
  auto withValue = [&](const std::string& key, const std::string& value) {
    std::string text = good;
    const auto at = text.find("\"" + key + "\":") + key.size() + 3;
    return text.replace(at, text.find_first_of(",}", at) - at, value);
  };
  check(withValue("loss", R"("lots")"),
        "records[12].modes[0].loss: expected a number or \"nan\", \"inf\", \"-inf\"");
  check(replaced(R"("lr":)", R"("learning-rate":)"), "records[12].modes[0].learning-rate: unknown key");
  check(replaced(R"("skipped":false,)", ""), "records[12].modes[0].skipped: missing");
  check(replaced(R"("mode":"fp32")", R"("mode":"fp8")"), "records[12].modes[0].mode: unknown precision mode 'fp8'");
  check(withValue("current-bytes", "1.5"),
        "records[12].modes[0].current-bytes: expected an integer");
  check(replaced(R"("bins":[[-149,1])", R"("bins":[[-150,1])"),
        "records[12].modes[0].tensors[0].scaled.bins[0][0]: exponent -150 is outside [-149, 127]");
  check(replaced(R"("bins":[[-149,1])", R"("bins":[[-149])"),
        "records[12].modes[0].tensors[0].scaled.bins[0]: expected [exponent, count]");
  check(withValue("zero", "-1"), "records[12].modes[0].tensors[0].scaled.zero: must not be negative");
  check(replaced(R"({"name":"fc1.input")", R"({"name":7)"), "records[12].modes[0].rounding-points[0].name: expected a string");
  check(R"({"step":1,"modes":{}})", "records[12].modes: expected an array");
  check(R"([1])", "records[12]: expected an object, found an array");
}

TEST(RecordStream, TheHeaderComesFirstThenOneModeStepPerLine) {
  const RunConfig config = samples::config();
  const auto records = samples::records(config);
  const std::string text = streamOf(config, records);
  const auto firstLine = text.substr(0, text.find('\n'));
  EXPECT_EQ(firstLine.rfind(R"({"format":"ampscope-records","version":4,"app":"AmpScope )", 0), 0u) << firstLine;
  EXPECT_NE(firstLine.find(R"(,"source":"engine",)"), std::string::npos) << firstLine;
  EXPECT_NE(firstLine.find(",\"config\":" + configText(config) + "}"), std::string::npos) << firstLine;
  size_t lines = 0;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 1 + records.size() * config.modes.size());

  RecordError error;
  const auto stream = readRecordStream(text, &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->version, 4);
  EXPECT_EQ(stream->source.source, "engine");
  ASSERT_TRUE(stream->config.has_value());
  EXPECT_EQ(configText(*stream->config), configText(config));
  const auto steps = flatten(records);
  ASSERT_EQ(stream->steps.size(), steps.size());
  for (size_t i = 0; i < steps.size(); ++i) samples::expectSameStep(stream->steps[i], steps[i]);
}

TEST(RecordStream, DamagedStreamsAreRefusedNamingTheLineAndField) {
  const RunConfig config = samples::config();
  const std::string text = streamOf(config, samples::records(config, 2));
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string copy = text;
    return copy.replace(copy.find(from), from.size(), to);
  };
  // Line 1 is the header, so the first ModeStep is line 2.
  const auto lossAt = text.find(R"("loss":)") + 7;
  std::string badLoss = text;
  badLoss.replace(lossAt, text.find(',', lossAt) - lossAt, "true");
  EXPECT_EQ(streamError(badLoss),
            "line 2: loss: expected a number or \"nan\", \"inf\", \"-inf\"");
  EXPECT_EQ(streamError(replaced(R"("diverged":false,)", R"("diverged":false,"colour":1,)")),
            "line 2: colour: unknown key");
  EXPECT_EQ(streamError(replaced(R"("version":4)", R"("version":5)")),
            "line 1: version: record stream version 5; this AmpScope reads versions 1 to 4 (written by a newer AmpScope)");
  EXPECT_EQ(streamError(replaced(R"("format":"ampscope-records")", R"("format":"ampscope-session")")),
            "line 1: format: not an AmpScope record stream (expected \"ampscope-records\")");
  EXPECT_EQ(streamError(replaced(R"("model":"deep-mlp")", R"("model":"huge-mlp")")).rfind("line 1: config.model", 0), 0u);
  EXPECT_EQ(streamError(""), "the file is empty");
  // A line cut in the middle (a crash while writing): the line and column of the break.
  const std::string cut = text.substr(0, text.rfind("\"loss\""));
  const std::string error = streamError(cut);
  EXPECT_EQ(error.rfind("line 7, column ", 0), 0u) << error;
  EXPECT_NE(error.find("cut short"), std::string::npos) << error;
}

TEST(RecordStream, RandomDamageNeverCrashesAndAlwaysExplains) {
  const RunConfig config = samples::config();
  const std::string text = streamOf(config, samples::records(config, 4));
  std::mt19937 rng(11);
  for (int trial = 0; trial < 400; ++trial) {
    const std::string damaged = samples::damaged(text, trial, rng);
    RecordError error;
    const auto stream = readRecordStream(damaged, &error);
    if (!stream) {
      EXPECT_FALSE(error.message.empty()) << "trial " << trial;
    }
  }
}

TEST(Csv, TheHeaderIsAmpScope010sColumnList) {
  // The column list AmpScope 0.1.0 wrote (app/cli/train_command.cpp writeCsvHeader and
  // ui/session/run_exporter.cpp of that release had the same list): scripts reading it keep working.
  EXPECT_EQ(csvHeader(),
            "step,mode,loss,loss_scale,skipped,found_inf,grad_norm_before_clip,grad_norm_after_clip,"
            "clip_norm_seen,lr,step_time_ms,current_bytes,peak_bytes,diverged,instrumented,"
            "rounding_elements,flushed_to_zero,subnormal,overflowed,nan\n");
  EXPECT_EQ(csvColumns().size(), 20u);
}

TEST(Csv, NumbersAreShortestRoundTripAndNonFiniteSpelledAsNumberText) {
  ModeStep s;
  s.mode = PrecisionMode::BF16Pure;
  s.step = 9;
  s.loss = kNaN;
  s.lossScale = kInf;
  s.gradNormBeforeClip = -kInf;
  s.gradNormAfterClip = -0.0;
  s.clipNormSeen = 0.1;
  s.lr = 1.0 / 3.0;
  s.stepTimeMs = 5e-324;
  s.skipped = true;
  s.rounding = {100, 1, 2, 3, 4};
  std::string row;
  appendCsvRow(row, s);
  // 1/3 needs all 17 significant digits to read back; 0.1 needs one.
  EXPECT_EQ(row, "9,bf16-pure,nan,inf,1,0,-inf,-0,0.1,0.3333333333333333,5e-324,0,0,0,0,100,1,2,3,4\n");
}

TEST(Csv, RoundTripsEveryScalarBitForBit) {
  const auto records = samples::records(samples::config());
  RecordError error;
  const auto steps = readCsv(recordsToCsv(records), &error);
  ASSERT_TRUE(steps) << error.text();
  const auto expected = flatten(records);
  ASSERT_EQ(steps->size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) samples::expectSameStep((*steps)[i], expected[i], false);
}

TEST(Csv, DamagedCsvIsRefusedNamingTheLineAndColumn) {
  const std::string good = recordsToCsv(samples::records(samples::config(), 2));
  std::string text = good;
  text.replace(text.find("loss_scale"), 10, "loss_scales");
  EXPECT_EQ(csvError(text), "line 1: unknown column \"loss_scales\"");
  text = good;
  text.replace(text.find(",nan\n"), 4, "");
  EXPECT_EQ(csvError(text), "line 1: missing column \"nan\"");
  text = good;
  const auto row3 = text.find("\n1,fp16-pure,") + 1;  // line 4: step 1's third mode
  const auto lossAt = row3 + std::string("1,fp16-pure,").size();
  text.replace(lossAt, text.find(',', lossAt) - lossAt, "many");
  EXPECT_EQ(csvError(text), "line 4: loss: expected a number, nan, inf or -inf (found \"many\")");
  text = good;
  text += "2,fp32,1\n";
  EXPECT_EQ(csvError(text), "line 8: expected 20 fields, found 3");
  text = good;
  text.replace(text.find("\n1,fp32,") + 1, 6, "1,fp64");
  EXPECT_EQ(csvError(text), "line 2: mode: unknown precision mode (found \"fp64\")");
  EXPECT_EQ(csvError(""), "the file is empty");
}

}  // namespace
}  // namespace ampscope
