// SessionFile: a saved session opens to exactly the same telemetry, and a damaged, foreign or newer file
// is refused with a message that says where, and is left byte-for-byte as it was.
#include "ui/session/session_file.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <cmath>
#include <cstring>
#include <limits>

namespace ampscope::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

ExponentHistogram histogram(int seed) {
  ExponentHistogram h;
  h.counts[0] = 1;  // 2^-149, the smallest float32 subnormal's bin
  h.counts[static_cast<size_t>(-24 - ExponentHistogram::kMinExponent)] = 100 + seed;  // FP16's 2^-24
  h.counts[ExponentHistogram::kBins - 1] = 7;                                         // 2^127
  h.zero = 3 + seed;
  h.posInf = 1;
  h.negInf = 2;
  h.nan = 4;
  h.targetSubnormal = 50;
  h.targetUnderflow = 9;
  return h;
}

// A session with every field set to something other than its default, and NaN / +Inf / -Inf losses.
Session sampleSession() {
  Session session;
  session.lesson = QStringLiteral("underflow");
  RunConfig& c = session.config;
  c = presetFor(ModelKind::DeepMLP);
  c.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16Pure};
  c.optimizer = OptimizerKind::SGD;
  c.lr = 0.0123456789012345;
  c.momentum = 0.85;
  c.weightDecay = 0.001;
  c.adamEps = 1e-12;
  c.batchSize = 48;
  c.seed = 987654321;
  c.steps = 321;
  c.lossWeight = 1e-5;
  c.scaler = {1024.0, 3.0, 0.25, 17, false};
  c.scalerForPureFp16 = true;
  c.clipOrder = ClipOrder::BeforeUnscale;
  c.clipMaxNorm = 0.5;
  c.instrumentEvery = 3;
  c.threadsPerMode = 2;
  for (int64_t step = 1; step <= 6; ++step) {
    StepRecord record;
    record.step = step;
    for (PrecisionMode mode : c.modes) {
      ModeStep s;
      s.mode = mode;
      s.step = step;
      s.loss = 2.302585092994046 / static_cast<double>(step) + 1e-17 * static_cast<double>(mode);
      s.lossScale = 65536.0 / static_cast<double>(step);
      s.skipped = step % 2 == 0;
      s.foundInf = step == 4;
      s.gradNormBeforeClip = 1.0 / 3.0 * static_cast<double>(step);
      s.gradNormAfterClip = 0.1 + static_cast<double>(step);
      s.clipNormSeen = 1e300;
      s.lr = 1e-3 * static_cast<double>(step);
      s.stepTimeMs = 1.25 + 0.001 * static_cast<double>(step);
      s.currentBytes = 123456789012 + step;
      s.peakBytes = 2 * s.currentBytes;
      s.instrumented = step % 3 == 0;
      if (s.instrumented) {
        s.rounding = {1000, 10, 20, 1, 2};
        s.roundingPoints.push_back({"fc1.input", "fc1", false, {500, 5, 6, 0, 0}});
        s.roundingPoints.push_back({"fc1.grad_input", "fc1", true, {500, 5, 14, 1, 2}});
        s.tensors.push_back({"net.0.weight", true, 65536, histogram(1), histogram(2)});
        s.tensors.push_back({"act:fc1.out", false, 2048, histogram(3), histogram(4)});
      }
      record.modes.push_back(s);
    }
    session.records.push_back(record);
  }
  // The non-finite values a lesson is about: NaN loss, +Inf loss, -Inf norm, and a diverged flag.
  session.records[4].modes[1].loss = kNaN;
  session.records[4].modes[1].diverged = true;
  session.records[5].modes[2].loss = kInf;
  session.records[5].modes[2].gradNormBeforeClip = -kInf;
  session.records[5].modes[2].lossScale = kNaN;
  return session;
}

// Bitwise equality for doubles, so NaN == NaN and -0 != +0 (the file must keep exactly what was run).
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return std::memcmp(&a, &b, sizeof a) == 0;
}

void expectSameCounts(const RoundingCounts& a, const RoundingCounts& b) {
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.flushedToZero, b.flushedToZero);
  EXPECT_EQ(a.subnormal, b.subnormal);
  EXPECT_EQ(a.overflowed, b.overflowed);
  EXPECT_EQ(a.nan, b.nan);
}

void expectSameHistogram(const ExponentHistogram& a, const ExponentHistogram& b) {
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_EQ(a.zero, b.zero);
  EXPECT_EQ(a.posInf, b.posInf);
  EXPECT_EQ(a.negInf, b.negInf);
  EXPECT_EQ(a.nan, b.nan);
  EXPECT_EQ(a.targetSubnormal, b.targetSubnormal);
  EXPECT_EQ(a.targetUnderflow, b.targetUnderflow);
}

void expectSameSession(const Session& a, const Session& b) {
  EXPECT_EQ(a.lesson, b.lesson);
  const RunConfig& x = a.config;
  const RunConfig& y = b.config;
  EXPECT_EQ(x.model, y.model);
  EXPECT_EQ(x.modes, y.modes);
  EXPECT_EQ(x.optimizer, y.optimizer);
  EXPECT_TRUE(same(x.lr, y.lr));
  EXPECT_TRUE(same(x.momentum, y.momentum));
  EXPECT_TRUE(same(x.weightDecay, y.weightDecay));
  EXPECT_TRUE(same(x.adamEps, y.adamEps));
  EXPECT_EQ(x.batchSize, y.batchSize);
  EXPECT_EQ(x.seed, y.seed);
  EXPECT_EQ(x.steps, y.steps);
  EXPECT_TRUE(same(x.lossWeight, y.lossWeight));
  EXPECT_TRUE(same(x.scaler.initScale, y.scaler.initScale));
  EXPECT_TRUE(same(x.scaler.growthFactor, y.scaler.growthFactor));
  EXPECT_TRUE(same(x.scaler.backoffFactor, y.scaler.backoffFactor));
  EXPECT_EQ(x.scaler.growthInterval, y.scaler.growthInterval);
  EXPECT_EQ(x.scaler.enabled, y.scaler.enabled);
  EXPECT_EQ(x.scalerForPureFp16, y.scalerForPureFp16);
  EXPECT_EQ(x.clipOrder, y.clipOrder);
  EXPECT_TRUE(same(x.clipMaxNorm, y.clipMaxNorm));
  EXPECT_EQ(x.instrumentEvery, y.instrumentEvery);
  EXPECT_EQ(x.threadsPerMode, y.threadsPerMode);

  ASSERT_EQ(a.records.size(), b.records.size());
  for (size_t r = 0; r < a.records.size(); ++r) {
    SCOPED_TRACE("record " + std::to_string(r));
    EXPECT_EQ(a.records[r].step, b.records[r].step);
    ASSERT_EQ(a.records[r].modes.size(), b.records[r].modes.size());
    for (size_t m = 0; m < a.records[r].modes.size(); ++m) {
      const ModeStep& s = a.records[r].modes[m];
      const ModeStep& t = b.records[r].modes[m];
      EXPECT_EQ(s.mode, t.mode);
      EXPECT_EQ(s.step, t.step);
      EXPECT_TRUE(same(s.loss, t.loss)) << s.loss << " vs " << t.loss;
      EXPECT_TRUE(same(s.lossScale, t.lossScale));
      EXPECT_EQ(s.skipped, t.skipped);
      EXPECT_EQ(s.foundInf, t.foundInf);
      EXPECT_TRUE(same(s.gradNormBeforeClip, t.gradNormBeforeClip));
      EXPECT_TRUE(same(s.gradNormAfterClip, t.gradNormAfterClip));
      EXPECT_TRUE(same(s.clipNormSeen, t.clipNormSeen));
      EXPECT_TRUE(same(s.lr, t.lr));
      EXPECT_TRUE(same(s.stepTimeMs, t.stepTimeMs));
      EXPECT_EQ(s.currentBytes, t.currentBytes);
      EXPECT_EQ(s.peakBytes, t.peakBytes);
      EXPECT_EQ(s.diverged, t.diverged);
      EXPECT_EQ(s.instrumented, t.instrumented);
      expectSameCounts(s.rounding, t.rounding);
      ASSERT_EQ(s.roundingPoints.size(), t.roundingPoints.size());
      for (size_t p = 0; p < s.roundingPoints.size(); ++p) {
        EXPECT_EQ(s.roundingPoints[p].name, t.roundingPoints[p].name);
        EXPECT_EQ(s.roundingPoints[p].layer, t.roundingPoints[p].layer);
        EXPECT_EQ(s.roundingPoints[p].backward, t.roundingPoints[p].backward);
        expectSameCounts(s.roundingPoints[p].counts, t.roundingPoints[p].counts);
      }
      ASSERT_EQ(s.tensors.size(), t.tensors.size());
      for (size_t k = 0; k < s.tensors.size(); ++k) {
        EXPECT_EQ(s.tensors[k].name, t.tensors[k].name);
        EXPECT_EQ(s.tensors[k].isParameter, t.tensors[k].isParameter);
        EXPECT_EQ(s.tensors[k].numel, t.tensors[k].numel);
        expectSameHistogram(s.tensors[k].scaled, t.tensors[k].scaled);
        expectSameHistogram(s.tensors[k].unscaled, t.tensors[k].unscaled);
      }
    }
  }
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeAll(const QString& path, const QByteArray& bytes) {
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
  ASSERT_EQ(file.write(bytes), bytes.size());
}

// Opens `bytes` as a file; expects a failure whose message contains `needle`, and the file unchanged.
QString expectRefused(const QByteArray& bytes, const QString& needle) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("bad.ampscope"));
  writeAll(path, bytes);
  QString error;
  const auto session = SessionFile::open(path, &error);
  EXPECT_FALSE(session.has_value());
  EXPECT_TRUE(error.contains(needle))
      << error.toStdString() << "\n  expected to contain: " << needle.toStdString();
  EXPECT_EQ(readAll(path), bytes) << "opening a bad file must not change it";
  return error;
}

TEST(SessionFile, SaveThenOpenGivesIdenticalConfigAndTelemetry) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("run.ampscope"));
  const Session original = sampleSession();
  QString error;
  ASSERT_TRUE(SessionFile::save(path, original, &error)) << error.toStdString();
  const auto opened = SessionFile::open(path, &error);
  ASSERT_TRUE(opened.has_value()) << error.toStdString();
  expectSameSession(original, *opened);
  // Saving what was opened gives the same bytes: nothing drifts through a round trip.
  EXPECT_EQ(SessionFile::toJson(*opened), SessionFile::toJson(original));
}

TEST(SessionFile, NonFiniteValuesAreStoredAsStringsBecauseJsonHasNoNaN) {
  const QByteArray json = SessionFile::toJson(sampleSession());
  EXPECT_TRUE(json.contains("\"loss\":\"nan\""));
  EXPECT_TRUE(json.contains("\"loss\":\"inf\""));
  EXPECT_TRUE(json.contains("\"grad-norm-before-clip\":\"-inf\""));
  EXPECT_FALSE(json.contains("NaN"));
  EXPECT_TRUE(json.startsWith("{")) << "a JSON object";
  EXPECT_TRUE(json.contains("\"format\":\"ampscope-session\""));
  EXPECT_TRUE(json.contains("\"version\":1"));
}

TEST(SessionFile, SaveReplacesAnExistingFileCompletely) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("run.ampscope"));
  writeAll(path, QByteArray(100000, 'x'));
  QString error;
  ASSERT_TRUE(SessionFile::save(path, sampleSession(), &error)) << error.toStdString();
  EXPECT_EQ(readAll(path), SessionFile::toJson(sampleSession()));
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("run.ampscope")})
      << "no temporary file left behind";
}

TEST(SessionFile, SaveToAnUnwritableFolderFailsWithAMessage) {
  QString error;
  EXPECT_FALSE(
      SessionFile::save(QStringLiteral("/nonexistent-folder/run.ampscope"), sampleSession(), &error));
  EXPECT_TRUE(error.contains(QStringLiteral("/nonexistent-folder/run.ampscope"))) << error.toStdString();
}

TEST(SessionFile, GarbageIsRefusedWithLineAndColumn) {
  const QString error =
      expectRefused(QByteArray("\x00\x01garbage\xff\xfe not json", 20), QStringLiteral("line 1, column"));
  EXPECT_TRUE(error.contains(QStringLiteral("bad.ampscope"))) << error.toStdString();
}

TEST(SessionFile, ATruncatedFileIsRefusedAndLeftAlone) {
  const QByteArray full = SessionFile::toJson(sampleSession());
  expectRefused(full.left(full.size() / 2), QStringLiteral("cut short"));
}

TEST(SessionFile, ANewerVersionIsRefusedNamingBothVersions) {
  QByteArray json = SessionFile::toJson(sampleSession());
  json.replace("\"version\":1", "\"version\":2");
  const QString error = expectRefused(json, QStringLiteral("newer AmpScope"));
  EXPECT_TRUE(error.contains(QStringLiteral("version 2"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("version 1"))) << error.toStdString();
}

TEST(SessionFile, AnotherFormatIsRefused) {
  expectRefused(R"({"format": "ampscope-run", "version": 1, "config": {}, "records": []})",
                QStringLiteral("format \"ampscope-run\""));
  expectRefused(R"({"lessons": []})", QStringLiteral("no \"format\" field"));
  expectRefused(R"([1, 2, 3])", QStringLiteral("not a JSON object"));
  expectRefused("", QStringLiteral("empty"));
}

TEST(SessionFile, ABadFieldIsNamedByItsPath) {
  QByteArray json = SessionFile::toJson(sampleSession());
  // The first mode of the third record gets a loss that is neither a number nor a NaN/Inf string.
  QString text = QString::fromUtf8(json);
  int at = -1;
  for (int i = 0; i < 3 * 3; ++i) at = text.indexOf(QStringLiteral("\"loss\":"), at + 1);
  const int end = text.indexOf(',', at);
  text.replace(at, end - at, QStringLiteral("\"loss\":\"lots\""));
  expectRefused(text.toUtf8(), QStringLiteral("records[2].modes[2].loss"));

  json = SessionFile::toJson(sampleSession());
  json.replace("\"model\":\"deep-mlp\"", "\"model\":\"huge-mlp\"");
  // The message is the RunConfig schema's (config_schema.h): the full key and the value found.
  expectRefused(json, QStringLiteral("field \"config.model\": unknown value 'huge-mlp'"));

  json = SessionFile::toJson(sampleSession());
  json.replace("\"growth-interval\":17,", "");
  expectRefused(json, QStringLiteral("field \"config.scaler.growth-interval\": missing"));
}

TEST(SessionFile, AnUnknownKeyOrAModeOutsideTheConfigIsRefusedByName) {
  QByteArray json = SessionFile::toJson(sampleSession());
  json.replace("\"found-inf\":false,", "\"found-inf\":false,\"colour\":\"red\",");
  expectRefused(json, QStringLiteral("field \"records[0].modes[0].colour\": unknown key"));
  // The sample's modes are fp32, fp16-amp and fp16-pure; a record of bf16-amp cannot belong to it.
  json = SessionFile::toJson(sampleSession());
  json.replace("{\"mode\":\"fp16-pure\",\"step\":1,", "{\"mode\":\"bf16-amp\",\"step\":1,");
  expectRefused(json, QStringLiteral("field \"records[0].modes[2].mode\": 'bf16-amp' is not in config.modes"));
}

TEST(SessionFile, AnInvalidConfigurationIsRefusedByItsFieldName) {
  QByteArray json = SessionFile::toJson(sampleSession());
  json.replace("\"batch\":48", "\"batch\":0");
  expectRefused(json, QStringLiteral("config.batch"));
}

}  // namespace
}  // namespace ampscope::ui
