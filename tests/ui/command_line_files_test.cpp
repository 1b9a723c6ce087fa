// `ampscope FILE…` (app/gui/main.cpp): the built `ampscope`, run offscreen, opens a saved session or
// follows record streams given on the command line, and refuses bad ones with exit code 2 and the file's
// name on stderr before any window opens. The argument parsing itself: app_options_test.cpp.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QMimeDatabase>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <algorithm>
#include <string>

#include "follow/follow_test_support.h"
#include "support/synthetic_records.h"
#include "ui/app_options.h"
#include "ui/session/session_file.h"

namespace ampscope::ui {
namespace {

struct Result {
  int code = -1;  // -1: did not finish in time
  QString out;
  QString err;
};

// Runs the built `ampscope` offscreen with its settings in `settingsDir`.
Result runAmpscope(const QStringList& arguments, const QString& settingsDir, int timeoutMs = 180000) {
  QProcess process;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), settingsDir);
  env.insert(QStringLiteral("XDG_DATA_HOME"), settingsDir);
  env.insert(QStringLiteral("LANGUAGE"), QStringLiteral("en"));
  process.setProcessEnvironment(env);
  process.start(QStringLiteral(AMPSCOPE_GUI_EXE), arguments);
  Result result;
  if (!process.waitForFinished(timeoutMs)) {
    process.kill();
    process.waitForFinished();
    return result;
  }
  result.out = QString::fromLocal8Bit(process.readAllStandardOutput());
  result.err = QString::fromLocal8Bit(process.readAllStandardError());
  result.code = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
  return result;
}

std::string describe(const Result& r) {
  return "exit " + std::to_string(r.code) + "\nstdout:\n" + r.out.toStdString() + "\nstderr:\n" + r.err.toStdString();
}

// A session of `count` four-mode steps (histograms every step) that belongs to the underflow lesson.
QString writeSession(const QTemporaryDir& dir, const QString& name, int64_t count) {
  Session session;
  session.config = presetFor(ModelKind::TinyMLP);
  ampscope::test::SyntheticOptions options;
  session.config.modes = options.modes;
  session.config.steps = std::max<int64_t>(session.config.steps, count);
  session.lesson = QStringLiteral("underflow");
  for (int64_t step = 1; step <= count; ++step) session.records.push_back(ampscope::test::syntheticRecord(step, options));
  const QString path = dir.filePath(name);
  QString error;
  EXPECT_TRUE(SessionFile::save(path, session, &error)) << error.toStdString();
  return path;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& content) {
  const QString path = dir.filePath(name);
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
  file.write(content.data(), static_cast<qint64>(content.size()));
  return path;
}

TEST(CommandLineFiles, OpensASessionGivenOnTheCommandLine) {
  QTemporaryDir dir;
  const QString session = writeSession(dir, QStringLiteral("saved run.ampscope"), 30);
  const QString png = dir.filePath(QStringLiteral("session.png"));
  const Result r = runAmpscope({QStringLiteral("--screenshot"), png, QStringLiteral("--size"), QStringLiteral("1280x720"), session},
                               dir.filePath(QStringLiteral("settings")));
  ASSERT_EQ(r.code, 0) << describe(r);
  EXPECT_TRUE(r.out.contains(QStringLiteral("Opened saved run.ampscope: 30 recorded steps"))) << describe(r);
  EXPECT_FALSE(QImage(png).isNull()) << describe(r);
  // The session's lesson was opened (a first start would open the first lesson), and a screenshot leaves
  // Open Recent as it was.
  const QSettings settings(dir.filePath(QStringLiteral("settings/AmpScope/AmpScope.conf")), QSettings::IniFormat);
  EXPECT_EQ(settings.value(QStringLiteral("lessons/last")).toString(), QStringLiteral("underflow"));
  EXPECT_FALSE(settings.value(QStringLiteral("recentFiles")).toStringList().contains(session));
}

TEST(CommandLineFiles, FollowsStreamsGivenOnTheCommandLine) {
  QTemporaryDir dir;
  const QString first =
      writeFile(dir, QStringLiteral("first.jsonl"), test::header(test::probeSource("first-run", "00000000000000a1")) + test::lines(1, 40));
  // Named like a session, but a record stream by its content.
  const QString second = writeFile(dir, QStringLiteral("second.ampscope"),
                                   test::header(test::probeSource("second-run", "00000000000000a2")) +
                                       test::lines(1, 25, PrecisionMode::BF16Amp));
  const QString png = dir.filePath(QStringLiteral("follow.png"));
  const Result r = runAmpscope({QStringLiteral("--screenshot"), png, QStringLiteral("--size"), QStringLiteral("1280x720"), first, second},
                               dir.filePath(QStringLiteral("settings")));
  ASSERT_EQ(r.code, 0) << describe(r);
  // One status line per follow, as the status bar shows it: both runs overlay.
  EXPECT_TRUE(r.out.contains(QStringLiteral("first-run: connected · 40 records · 0 dropped · 0 malformed"))) << describe(r);
  EXPECT_TRUE(r.out.contains(QStringLiteral("second-run: connected · 25 records · 0 dropped · 0 malformed"))) << describe(r);
  // The window fits 1280x720: on a first start no start lesson stacks the followed runs' plots under its
  // own panel (that made the window's minimum height larger than the screen, its status bar off it).
  const QImage image(png);
  ASSERT_FALSE(image.isNull()) << describe(r);
  EXPECT_EQ(image.size(), QSize(1280, 720)) << describe(r);
}

// Refused before the window is built or shown: without --screenshot the app would otherwise stay open
// (the test would time out), so exiting with 2 shows that no window opened.
TEST(CommandLineFiles, BadFilesExitWith2NamingTheFileBeforeAnyWindowOpens) {
  QTemporaryDir dir;
  const QString settings = dir.filePath(QStringLiteral("settings"));
  const QString damaged = writeFile(dir, QStringLiteral("damaged.ampscope"),
                                    "{\"format\":\"ampscope-session\",\"version\":1,\"app\":\"AmpScope\",\"config\":{\"mod");
  const QString newer = writeFile(dir, QStringLiteral("newer.ampscope"), "{\"format\":\"ampscope-session\",\"version\":99}");
  const QString empty = writeFile(dir, QStringLiteral("empty.ampscope"), "");
  const QString stream = writeFile(dir, QStringLiteral("run.jsonl"), test::header(test::probeSource("r", "00000000000000a3")));
  const QString good = writeSession(dir, QStringLiteral("good.ampscope"), 3);
  struct Case {
    QStringList arguments;
    QString name;  // the file the message must name
    QString why;
  };
  const QList<Case> cases{
      {{damaged}, QStringLiteral("damaged.ampscope"), QStringLiteral("cut short")},
      {{newer}, QStringLiteral("newer.ampscope"), QStringLiteral("newer AmpScope")},
      {{empty}, QStringLiteral("empty.ampscope"), QStringLiteral("empty")},
      {{dir.filePath(QStringLiteral("missing.ampscope"))}, QStringLiteral("missing.ampscope"), QStringLiteral("no such file")},
      {{dir.path()}, dir.path(), QStringLiteral("folder")},
      {{good, stream}, QStringLiteral("run.jsonl"), QStringLiteral("Follow Run")},
  };
  for (const Case& c : cases) {
    const Result r = runAmpscope(c.arguments, settings, 60000);
    EXPECT_EQ(r.code, kExitUsageError) << c.arguments.join(' ').toStdString() << "\n" << describe(r);
    EXPECT_TRUE(r.err.contains(c.name) && r.err.contains(c.why)) << describe(r);
  }
  // With --screenshot too: no picture is written.
  const QString png = dir.filePath(QStringLiteral("never.png"));
  const Result r = runAmpscope({QStringLiteral("--screenshot"), png, damaged}, settings, 60000);
  EXPECT_EQ(r.code, kExitUsageError) << describe(r);
  EXPECT_FALSE(QFile::exists(png));
}

// The desktop's side (packaging/linux/io.github.ampscope.AmpScope.mime.xml): its content match is what
// the session codec writes first and what the command line tells a session by; registered with
// update-mime-database in a temporary share folder, Qt's MIME database (shared-mime-info's, as the
// desktop's file managers read it) names a session by its name and by its content.
TEST(CommandLineFiles, TheMimeTypeMatchesWhatTheCodecWrites) {
  QFile xml(QStringLiteral(AMPSCOPE_MIME_XML));
  ASSERT_TRUE(xml.open(QIODevice::ReadOnly)) << AMPSCOPE_MIME_XML;
  const QString text = QString::fromUtf8(xml.readAll());
  const QRegularExpressionMatch match =
      QRegularExpression(QStringLiteral("<match type=\"string\" offset=\"0\" value=\"([^\"]*)\"")).match(text);
  ASSERT_TRUE(match.hasMatch()) << "no content match at offset 0";
  const QByteArray magic = match.captured(1).replace(QStringLiteral("&quot;"), QStringLiteral("\"")).toUtf8();
  Session session;
  session.config = presetFor(ModelKind::TinyMLP);
  const QByteArray written = SessionFile::toJson(session);
  EXPECT_TRUE(written.startsWith(magic)) << magic.toStdString() << " vs " << written.left(60).toStdString();
  EXPECT_EQ(fileKindOf(magic, QStringLiteral("no-suffix")), FileKind::Session);

  const QString updateMimeDatabase = QStandardPaths::findExecutable(QStringLiteral("update-mime-database"));
  if (updateMimeDatabase.isEmpty()) GTEST_SKIP() << "update-mime-database (shared-mime-info) is not installed";
  QTemporaryDir share;
  ASSERT_TRUE(QDir(share.path()).mkpath(QStringLiteral("mime/packages")));
  ASSERT_TRUE(QFile::copy(xml.fileName(), share.filePath(QStringLiteral("mime/packages/io.github.ampscope.AmpScope.xml"))));
  QProcess update;
  update.start(updateMimeDatabase, {share.filePath(QStringLiteral("mime"))});
  ASSERT_TRUE(update.waitForFinished(60000));
  ASSERT_EQ(update.exitCode(), 0) << update.readAllStandardError().toStdString();
  // Qt reads the database on first use, from the data folders XDG_DATA_DIRS names (each test of this
  // file runs in a process of its own under CTest).
  qputenv("XDG_DATA_DIRS", (share.path() + QStringLiteral(":/usr/local/share:/usr/share")).toLocal8Bit());
  QMimeDatabase db;
  const QMimeType byName = db.mimeTypeForFile(QStringLiteral("lesson.ampscope"), QMimeDatabase::MatchExtension);
  EXPECT_EQ(byName.name(), QStringLiteral("application/x-ampscope-session"));
  EXPECT_EQ(byName.comment(), QStringLiteral("AmpScope session")) << byName.comment().toStdString();
  EXPECT_EQ(db.mimeTypeForData(written).name(), QStringLiteral("application/x-ampscope-session"));
  QTemporaryDir dir;
  const QString renamed = writeSession(dir, QStringLiteral("renamed.txt"), 2);
  EXPECT_EQ(db.mimeTypeForFile(renamed, QMimeDatabase::MatchContent).name(), QStringLiteral("application/x-ampscope-session"));
}

}  // namespace
}  // namespace ampscope::ui
