// `ampscope FILE…` (app/gui/main.cpp): the built `ampscope`, run offscreen, opens a saved session or
// follows record streams given on the command line, and refuses bad ones with exit code 2 and the file's
// name on stderr before any window opens. The argument parsing itself: app_options_test.cpp.
#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
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
  EXPECT_FALSE(QImage(png).isNull()) << describe(r);
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

}  // namespace
}  // namespace ampscope::ui
