// Files AmpScope 0.1.0 wrote (tests/engine/fixtures/records, see its README) still open. The expected
// values are read off the fixture text itself (quoted in the comments), not produced by the codec.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/session_codec.h"
#include "ampscope/engine/version.h"
#include "support/record_samples.h"

namespace ampscope {
namespace {

constexpr double kInf = samples::kInf;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(AMPSCOPE_RECORD_FIXTURES) + "/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(RecordFixtures, A010TrainJsonlStreamReadsAsVersion1) {
  RecordError error;
  const auto stream = readRecordStream(fixture("cli-0.1.0.jsonl"), &error);
  ASSERT_TRUE(stream) << error.text();
  EXPECT_EQ(stream->version, 1);
  EXPECT_FALSE(stream->config.has_value()) << "0.1.0 wrote no header";
  // 12 steps of two modes, fp32 diverging at step 8 and left out after it: 8 * 2 + 4 = 20 lines.
  ASSERT_EQ(stream->steps.size(), 20u);

  // Line 2: {"step":1,"mode":"fp16-amp-scaled","loss":2.31520938873291,"loss_scale":65536,...
  //  "rounding":{"elements":212628,"flushed_to_zero":0,"subnormal":68,...},
  //  "rounding_points":[{"name":"fc1.grad_input","layer":"fc1","backward":true,...}],
  //  "tensors":[{"name":"net.0.weight","parameter":true,"numel":65536,"scaled":{"exponents":{"-15":1,"-7":5,...
  const ModeStep& first = stream->steps[1];
  EXPECT_EQ(first.mode, PrecisionMode::FP16AmpScaled);
  EXPECT_EQ(first.step, 1);
  EXPECT_EQ(first.loss, 2.31520938873291);
  EXPECT_EQ(first.lossScale, 65536.0);
  EXPECT_TRUE(first.instrumented);
  EXPECT_EQ(first.rounding.elements, 212628);
  EXPECT_EQ(first.rounding.subnormal, 68);
  ASSERT_FALSE(first.roundingPoints.empty());
  EXPECT_EQ(first.roundingPoints[0].name, "fc1.grad_input");
  EXPECT_EQ(first.roundingPoints[0].layer, "fc1");
  EXPECT_TRUE(first.roundingPoints[0].backward);
  ASSERT_FALSE(first.tensors.empty());
  EXPECT_EQ(first.tensors[0].name, "net.0.weight");
  EXPECT_TRUE(first.tensors[0].isParameter);
  EXPECT_EQ(first.tensors[0].numel, 65536);
  EXPECT_EQ(first.tensors[0].scaled.countAt(-15), 1);
  EXPECT_EQ(first.tensors[0].scaled.countAt(-7), 5);
  EXPECT_EQ(first.tensors[0].scaled.total(), 65536) << "every element is in some bin";

  // Line 15: {"step":8,"mode":"fp32","loss":2.234694242477417,...,"found_inf":true,
  //  "grad_norm_before_clip":"inf",...,"diverged":true,...
  const ModeStep& diverged = stream->steps[14];
  EXPECT_EQ(diverged.mode, PrecisionMode::FP32);
  EXPECT_EQ(diverged.step, 8);
  EXPECT_EQ(diverged.loss, 2.234694242477417);
  EXPECT_TRUE(diverged.foundInf);
  EXPECT_EQ(diverged.gradNormBeforeClip, kInf);
  EXPECT_TRUE(diverged.diverged);
  // Line 16: fp16-amp-scaled skipped step 8; line 20, step 12, runs at the halved scale 32768.
  EXPECT_TRUE(stream->steps[15].skipped);
  EXPECT_EQ(stream->steps[19].step, 12);
  EXPECT_EQ(stream->steps[19].lossScale, 32768.0);
  EXPECT_EQ(stream->steps[19].loss, 2.2330265045166016);
}

TEST(RecordFixtures, A010TrainCsvReads) {
  RecordError error;
  const auto steps = readCsv(fixture("cli-0.1.0.csv"), &error);
  ASSERT_TRUE(steps) << error.text();
  ASSERT_EQ(steps->size(), 20u);
  // Row 2: 1,fp16-amp-scaled,2.31520939,65536,0,0,1.52347612,1.52347612,0,0.001,2.679021,1138852,1618016,0,1,212628,0,68,0,0
  // (0.1.0 wrote 9 significant digits.)
  const ModeStep& s = (*steps)[1];
  EXPECT_EQ(s.step, 1);
  EXPECT_EQ(s.mode, PrecisionMode::FP16AmpScaled);
  EXPECT_EQ(s.loss, 2.31520939);
  EXPECT_EQ(s.lossScale, 65536.0);
  EXPECT_EQ(s.gradNormBeforeClip, 1.52347612);
  EXPECT_EQ(s.lr, 0.001);
  EXPECT_EQ(s.stepTimeMs, 2.679021);
  EXPECT_EQ(s.currentBytes, 1138852);
  EXPECT_EQ(s.peakBytes, 1618016);
  EXPECT_TRUE(s.instrumented);
  EXPECT_EQ(s.rounding.elements, 212628);
  EXPECT_EQ(s.rounding.subnormal, 68);
  // Row 15: 8,fp32,2.23469424,1,0,1,inf,inf,0,0.001,8.583801,1138852,1663152,1,0,0,0,0,0,0
  const ModeStep& d = (*steps)[14];
  EXPECT_EQ(d.step, 8);
  EXPECT_TRUE(d.foundInf);
  EXPECT_EQ(d.gradNormBeforeClip, kInf);
  EXPECT_EQ(d.gradNormAfterClip, kInf);
  EXPECT_TRUE(d.diverged);
}

TEST(RecordFixtures, A010SessionOpens) {
  SessionError error;
  const auto session = decodeSession(fixture("session-0.1.0.ampscope"), &error);
  ASSERT_TRUE(session) << error.text();
  // {"format":"ampscope-session","version":1,"app":"AmpScope 0.1.0","lesson":"loss-scaling",
  //  "config":{"model":"tiny-mlp","modes":["fp32","fp16-amp-scaled","fp16-amp"],"optimizer":"adamw",
  //  "lr":0.001,...,"seed":7,"steps":6,...,"instrument-every":5,"threads":1},"records":[
  EXPECT_EQ(session->lesson, "loss-scaling");
  EXPECT_EQ(session->config.model, ModelKind::TinyMLP);
  EXPECT_EQ(session->config.modes, (std::vector<PrecisionMode>{PrecisionMode::FP32, PrecisionMode::FP16AmpScaled,
                                                               PrecisionMode::FP16Amp}));
  EXPECT_EQ(session->config.optimizer, OptimizerKind::AdamW);
  EXPECT_EQ(session->config.seed, 7u);
  EXPECT_EQ(session->config.steps, 6);
  EXPECT_EQ(session->config.instrumentEvery, 5);
  ASSERT_EQ(session->records.size(), 6u);
  // {"step":1,"modes":[{"mode":"fp32","step":1,"loss":2.3506898880004883,"loss-scale":1,...
  //  "grad-norm-before-clip":1.4862053394317627,...
  const ModeStep& first = session->records[0].modes[0];
  EXPECT_EQ(first.loss, 2.3506898880004883);
  EXPECT_EQ(first.gradNormBeforeClip, 1.4862053394317627);
  // The second mode of step 1: "rounding":{"elements":212628,"flushed-to-zero":0,"subnormal":61,...},
  // 16 rounding points, 6 tensors; net.0.weight's scaled bins start [[-10,1],[-9,2],[-8,1], ...
  const ModeStep& scaled = session->records[0].modes[1];
  EXPECT_EQ(scaled.rounding.elements, 212628);
  EXPECT_EQ(scaled.rounding.subnormal, 61);
  EXPECT_EQ(scaled.roundingPoints.size(), 16u);
  ASSERT_EQ(scaled.tensors.size(), 6u);
  EXPECT_EQ(scaled.tensors[0].scaled.countAt(-10), 1);
  EXPECT_EQ(scaled.tensors[0].scaled.countAt(-9), 2);
  EXPECT_EQ(scaled.tensors[0].unscaled.countAt(-26), 1);
  EXPECT_EQ(scaled.tensors[0].scaled.total(), 65536);
  // Step 4 (the injected overflow): fp32 and fp16-amp diverge ("grad-norm-before-clip":"inf",
  // "diverged":true), fp16-amp-scaled skips; steps 5 and 6 hold fp16-amp-scaled alone at scale 32768.
  ASSERT_EQ(session->records[3].modes.size(), 3u);
  EXPECT_TRUE(session->records[3].modes[0].diverged);
  EXPECT_EQ(session->records[3].modes[0].gradNormBeforeClip, kInf);
  EXPECT_TRUE(session->records[3].modes[1].skipped);
  EXPECT_TRUE(session->records[3].modes[2].diverged);
  ASSERT_EQ(session->records[4].modes.size(), 1u);
  EXPECT_EQ(session->records[4].modes[0].lossScale, 32768.0);
  EXPECT_EQ(session->records[5].modes[0].loss, 2.224860906600952);
}

TEST(RecordFixtures, TheSessionWriterStillWritesVersion1ByteForByte) {
  // Session stays at version 1 because the codec writes exactly what 0.1.0 wrote: re-encoding the
  // 0.1.0 fixture gives its bytes back (only "app" names the AmpScope that wrote it).
  const std::string original = fixture("session-0.1.0.ampscope");
  SessionError error;
  const auto session = decodeSession(original, &error);
  ASSERT_TRUE(session) << error.text();
  std::string again = encodeSession(*session);
  const std::string app = "\"app\":\"AmpScope " + ampscopeVersion() + "\"";
  ASSERT_NE(again.find(app), std::string::npos);
  again.replace(again.find(app), app.size(), "\"app\":\"AmpScope 0.1.0\"");
  EXPECT_EQ(again, original);
}

}  // namespace
}  // namespace ampscope
