// SessionFile: a saved session opens to exactly the same telemetry, and a damaged, foreign or newer file
// is refused with a message that says where, and is left byte-for-byte as it was.
#include "ui/session/session_file.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>

#include <sys/stat.h>

#include "support/record_samples.h"

namespace ampscope::ui {
namespace {

using samples::same;

// The codec tests' sample run (every field off its default, NaN / +Inf / -Inf / -0.0) as a session.
Session sampleSession() {
  Session session;
  session.lesson = QStringLiteral("underflow");
  session.config = samples::config();
  session.records = samples::records(session.config);
  return session;
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
    for (size_t m = 0; m < a.records[r].modes.size(); ++m)
      samples::expectSameStep(a.records[r].modes[m], b.records[r].modes[m]);
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
  // Version 2 (sessions with followed runs) is read; 3 is newer.
  json.replace("\"version\":1", "\"version\":3");
  const QString error = expectRefused(json, QStringLiteral("newer AmpScope"));
  EXPECT_TRUE(error.contains(QStringLiteral("version 3"))) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("version 2"))) << error.toStdString();
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

// Opening something that is not a regular file: refused by its type, at once, with the path.
void expectRefusedByType(const QString& path, const QString& reason) {
  QElapsedTimer timer;
  timer.start();
  QString error;
  EXPECT_FALSE(SessionFile::open(path, &error).has_value());
  // A named pipe without a writer would block a plain open() until one came.
  EXPECT_LT(timer.elapsed(), 5000);
  EXPECT_TRUE(error.contains(path)) << error.toStdString();
  EXPECT_TRUE(error.contains(reason)) << error.toStdString();
}

TEST(SessionFile, ANamedPipeIsRefusedWithoutBlocking) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("pipe.ampscope"));
  ASSERT_EQ(::mkfifo(QFile::encodeName(path).constData(), 0600), 0);
  expectRefusedByType(path, QStringLiteral("named pipe"));
}

TEST(SessionFile, AFolderIsRefusedByItsType) {
  QTemporaryDir dir;
  expectRefusedByType(dir.path(), QStringLiteral("folder"));
}

TEST(SessionFile, ADeviceIsRefusedBeforeAnythingIsRead) {
  // /dev/zero never ends: reading it whole ran out of memory.
  if (!QFileInfo::exists(QStringLiteral("/dev/zero"))) GTEST_SKIP() << "no /dev/zero on this system";
  expectRefusedByType(QStringLiteral("/dev/zero"), QStringLiteral("not a regular file"));
}

TEST(SessionFile, AFileOverTheSizeBoundIsRefusedNamingTheBound) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("huge.ampscope"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  // Sparse: one byte over the bound takes no disk space.
  ASSERT_TRUE(file.resize(SessionFile::kMaxBytes + 1));
  file.close();
  QString error;
  EXPECT_FALSE(SessionFile::open(path, &error).has_value());
  EXPECT_TRUE(error.contains(QStringLiteral("512 MiB"))) << error.toStdString();
  EXPECT_TRUE(error.contains(path)) << error.toStdString();
}

TEST(SessionFile, AMissingFileIsRefusedWithTheReason) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("missing.ampscope"));
  QString error;
  EXPECT_FALSE(SessionFile::open(path, &error).has_value());
  EXPECT_TRUE(error.contains(path)) << error.toStdString();
  EXPECT_TRUE(error.contains(QStringLiteral("No such file"))) << error.toStdString();
}

}  // namespace
}  // namespace ampscope::ui
