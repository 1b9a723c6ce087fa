// `ampscope` command-line parsing (exit codes: 0 ok, 1 runtime error, 2 usage error).
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QCoreApplication>
#include <QTemporaryDir>
#include <QTranslator>
#include <QUrl>

#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "ui/app_options.h"

namespace ampscope::ui {
namespace {

AppOptions parse(QStringList arguments) {
  arguments.prepend(QStringLiteral("ampscope"));
  return parseAppOptions(arguments);
}

// The errors are looked up in the catalogue's context ("ampscope::ui", where lupdate puts tr() of a free
// function in this namespace), so any translator of the shipped catalogue finds them; a plain QTranslator
// (no context fallback) is the test. The expected text is resources/translations/ampscope_zh_CN.ts's.
TEST(AppOptions, ErrorsComeInTheCataloguesLanguage) {
  QTranslator zh;
  ASSERT_TRUE(zh.load(QStringLiteral(":/i18n/ampscope_zh_CN.qm")));
  ASSERT_TRUE(QCoreApplication::installTranslator(&zh));
  const AppOptions bad = parse({QStringLiteral("--screenshot"), QStringLiteral("s.png"), QStringLiteral("--size"),
                                QStringLiteral("wide")});
  QCoreApplication::removeTranslator(&zh);
  EXPECT_EQ(bad.action, AppOptions::Action::Error);
  EXPECT_EQ(bad.message, QStringLiteral("--size 必须是由正整数组成的 宽x高，例如 1400x900（收到 \"wide\"）"));
  // And the language main() reads before it parses again.
  EXPECT_EQ(languageArgument({QStringLiteral("ampscope"), QStringLiteral("--lang"), QStringLiteral("zh_CN")}),
            QStringLiteral("zh_CN"));
  EXPECT_EQ(languageArgument({QStringLiteral("ampscope"), QStringLiteral("--lang=zh_CN")}), QStringLiteral("zh_CN"));
  EXPECT_EQ(languageArgument({QStringLiteral("ampscope"), QStringLiteral("--size")}), QString());
}

TEST(AppOptions, NoArgumentsRunsTheApp) {
  const AppOptions options = parse({});
  EXPECT_EQ(options.action, AppOptions::Action::Run);
  EXPECT_FALSE(options.screenshotRequested());
}

TEST(AppOptions, HelpAndVersion) {
  const AppOptions help = parse({QStringLiteral("--help")});
  EXPECT_EQ(help.action, AppOptions::Action::ShowHelp);
  EXPECT_TRUE(help.message.contains(QStringLiteral("--screenshot")));
  // Qt names the program only when a QCoreApplication exists; the parser fills the name in otherwise.
  EXPECT_FALSE(help.message.contains(QStringLiteral("<executable_name>"))) << help.message.toStdString();
  EXPECT_EQ(parse({QStringLiteral("-h")}).action, AppOptions::Action::ShowHelp);
  EXPECT_EQ(parse({QStringLiteral("--version")}).action, AppOptions::Action::ShowVersion);
  EXPECT_EQ(parse({QStringLiteral("-v")}).action, AppOptions::Action::ShowVersion);
}

TEST(AppOptions, ScreenshotWithSizeAndScale) {
  const AppOptions options = parse({QStringLiteral("--screenshot"), QStringLiteral("/tmp/a.png"),
                                    QStringLiteral("--size"), QStringLiteral("1400x900"), QStringLiteral("--scale"),
                                    QStringLiteral("2")});
  EXPECT_EQ(options.action, AppOptions::Action::Run);
  EXPECT_EQ(options.screenshotPath, QStringLiteral("/tmp/a.png"));
  EXPECT_EQ(options.size, QSize(1400, 900));
  EXPECT_EQ(options.scale, 2.0);

  const AppOptions plain = parse({QStringLiteral("--screenshot=/tmp/b.png")});
  EXPECT_TRUE(plain.screenshotRequested());
  EXPECT_FALSE(plain.size.isValid());
  EXPECT_EQ(plain.scale, 0.0);
}

TEST(AppOptions, RejectsBadSizeScaleAndUnknownArgumentsWithAMessage) {
  const QList<QStringList> bad{
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("big")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("0x900")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("1400x")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--size"), QStringLiteral("99999x10")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("0")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("-1")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("x")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("nan")},
      {QStringLiteral("--screenshot"), QStringLiteral("a.png"), QStringLiteral("--scale"), QStringLiteral("100")},
      {QStringLiteral("--screenshot")},
      {QStringLiteral("--size"), QStringLiteral("800x600")},
      {QStringLiteral("--bogus")},
      {QStringLiteral("stray")},
  };
  for (const QStringList& arguments : bad) {
    const AppOptions options = parse(arguments);
    EXPECT_EQ(options.action, AppOptions::Action::Error) << arguments.join(' ').toStdString();
    EXPECT_FALSE(options.message.isEmpty()) << arguments.join(' ').toStdString();
    EXPECT_EQ(options.fileError, arguments == QStringList{QStringLiteral("stray")}) << arguments.join(' ').toStdString();
  }
}

// FILE… arguments: files are made in a temporary folder, their kind told by their first bytes.
struct Files {
  QTemporaryDir dir;
  QString write(const QString& name, const QByteArray& content) {
    const QString path = dir.filePath(name);
    QFile file(path);
    EXPECT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate)) << path.toStdString();
    file.write(content);
    return path;
  }
  QString session(const QString& name = QStringLiteral("run.ampscope")) {
    return write(name, "{\"format\":\"ampscope-session\",\"version\":1,\"app\":\"AmpScope 0.1\",\"config\":{");
  }
  QString stream(const QString& name = QStringLiteral("run.jsonl")) {
    return write(name, "{\"format\":\"ampscope-records\",\"version\":3,\"app\":\"ampscope_probe 0.2.0\"}\n");
  }
};

TEST(AppOptionsFiles, TellsSessionsAndStreamsByTheirFirstBytes) {
  EXPECT_EQ(fileKindOf("{\"format\":\"ampscope-session\",\"version\":2", QStringLiteral("a.txt")), FileKind::Session);
  EXPECT_EQ(fileKindOf(" {\n  \"format\" : \"ampscope-session\"", QStringLiteral("a")), FileKind::Session);
  EXPECT_EQ(fileKindOf("{\"format\":\"ampscope-records\",\"version\":3", QStringLiteral("a.ampscope")),
            FileKind::RecordStream)
      << "the content wins over the name";
  // Version 1 streams have no header: a JSON object per line.
  EXPECT_EQ(fileKindOf("{\"step\":1,\"mode\":\"fp32\"", QStringLiteral("old.jsonl")), FileKind::RecordStream);
  // A stream not yet written, and a session that is empty or damaged (its decoder says what is wrong).
  EXPECT_EQ(fileKindOf("", QStringLiteral("run.jsonl")), FileKind::RecordStream);
  EXPECT_EQ(fileKindOf("", QStringLiteral("run.ampscope")), FileKind::Session);
  EXPECT_EQ(fileKindOf("\x89PNG\r\n", QStringLiteral("RUN.AmpScope")), FileKind::Session);
  EXPECT_EQ(fileKindOf("{\"format\":\"ampscope-run\"", QStringLiteral("export.ampscope")), FileKind::Session);
  // Neither: an export of another format, a picture, plain text.
  EXPECT_EQ(fileKindOf("{\"format\":\"ampscope-run\",\"version\":1", QStringLiteral("export.json")), FileKind::Unknown);
  EXPECT_EQ(fileKindOf("\x89PNG\r\n\x1a\n", QStringLiteral("shot.png")), FileKind::Unknown);
  EXPECT_EQ(fileKindOf("step,mode,loss\n", QStringLiteral("run.csv")), FileKind::Unknown);
}

TEST(AppOptionsFiles, ASessionIsOpenedByItsAbsolutePath) {
  Files files;
  const QString path = files.session(QStringLiteral("saved.txt"));  // the name says nothing
  const QString relative = QDir::current().relativeFilePath(path);
  const AppOptions options = parse({relative});
  ASSERT_EQ(options.action, AppOptions::Action::Run) << options.message.toStdString();
  EXPECT_EQ(options.sessionFile, path);
  EXPECT_TRUE(options.followTargets.isEmpty());
  EXPECT_TRUE(options.opensFiles());
  // A file:// URL, as some launchers pass it.
  EXPECT_EQ(parse({QUrl::fromLocalFile(path).toString()}).sessionFile, path);
  EXPECT_FALSE(parse({}).opensFiles());
}

TEST(AppOptionsFiles, StreamsAndAddressesAreFollowedInOrderEachOnce) {
  Files files;
  const QString a = files.stream(QStringLiteral("a.jsonl"));
  const QString b = files.write(QStringLiteral("b.jsonl"), QByteArray());  // not written yet
  const QString c = files.stream(QStringLiteral("c.ampscope"));  // a stream, whatever its name
  const AppOptions options = parse({a, QStringLiteral("127.0.0.1:5000"), b, QStringLiteral("tcp://[::1]:5001"), c,
                                    a, QStringLiteral("tcp://127.0.0.1:5000")});
  ASSERT_EQ(options.action, AppOptions::Action::Run) << options.message.toStdString();
  EXPECT_TRUE(options.sessionFile.isEmpty());
  EXPECT_EQ(options.followTargets,
            QStringList({a, QStringLiteral("127.0.0.1:5000"), b, QStringLiteral("[::1]:5001"), c}));
  // Streams go with a lesson and a screenshot.
  const AppOptions withLesson = parse({QStringLiteral("--lesson"), QStringLiteral("underflow"), a});
  EXPECT_EQ(withLesson.action, AppOptions::Action::Run) << withLesson.message.toStdString();
  const AppOptions shot = parse({QStringLiteral("--screenshot"), QStringLiteral("x.png"), a});
  EXPECT_EQ(shot.action, AppOptions::Action::Run) << shot.message.toStdString();
  EXPECT_EQ(shot.followTargets, QStringList{a});
}

// Every refusal names the file (as given) and says why.
void expectRefused(const QStringList& arguments, const QString& name, const QString& why) {
  const AppOptions options = parse(arguments);
  EXPECT_EQ(options.action, AppOptions::Action::Error) << arguments.join(' ').toStdString();
  // A file's refusal (not an option's) is also shown in a message box where there is no terminal.
  EXPECT_EQ(options.fileError, !name.startsWith(QStringLiteral("--"))) << options.message.toStdString();
  EXPECT_TRUE(options.message.contains(name)) << options.message.toStdString();
  EXPECT_TRUE(options.message.contains(why)) << options.message.toStdString();
}

TEST(AppOptionsFiles, RefusesWhatCannotBeOpenedNamingTheFileAndTheReason) {
  Files files;
  const QString missing = files.dir.filePath(QStringLiteral("missing.ampscope"));
  expectRefused({missing}, missing, QStringLiteral("no such file"));
  expectRefused({files.dir.path()}, files.dir.path(), QStringLiteral("folder"));
  const QString png = files.write(QStringLiteral("shot.png"), "\x89PNG\r\n\x1a\n");
  expectRefused({png}, png, QStringLiteral("neither"));
  const QString exported = files.write(QStringLiteral("run.json"), "{\"format\":\"ampscope-run\",\"version\":1}");
  expectRefused({exported}, exported, QStringLiteral("neither"));
  // A named pipe is refused by its type, without waiting for a writer.
  const QString fifo = files.dir.filePath(QStringLiteral("pipe.jsonl"));
  ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
  expectRefused({fifo}, fifo, QStringLiteral("regular file"));
  expectRefused({QStringLiteral("tcp://localhost")}, QStringLiteral("tcp://localhost"), QStringLiteral("HOST:PORT"));
  expectRefused({QStringLiteral("tcp://host:99999")}, QStringLiteral("tcp://host:99999"), QStringLiteral("65535"));
  // One bad file among good ones refuses the lot: nothing opens half.
  expectRefused({files.stream(), missing}, missing, QStringLiteral("no such file"));
}

TEST(AppOptionsFiles, RefusesAFileItCannotRead) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  Files files;
  const QString locked = files.session(QStringLiteral("locked.ampscope"));
  ASSERT_TRUE(QFile::setPermissions(locked, QFileDevice::WriteOwner));
  expectRefused({locked}, locked, QStringLiteral("cannot be read"));
}

TEST(AppOptionsFiles, OneSessionAloneAndNotWithStepsOrALesson) {
  Files files;
  const QString one = files.session(QStringLiteral("one.ampscope"));
  const QString two = files.session(QStringLiteral("two.ampscope"));
  const QString stream = files.stream();
  expectRefused({one, two}, QStringLiteral("two.ampscope"), QStringLiteral("one session at a time"));
  expectRefused({one, stream}, QStringLiteral("run.jsonl"), QStringLiteral("Follow Run"));
  expectRefused({stream, one}, QStringLiteral("one.ampscope"), QStringLiteral("Follow Run"));
  expectRefused({QStringLiteral("--lesson"), QStringLiteral("underflow"), one}, QStringLiteral("--lesson"),
                QStringLiteral("own lesson"));
  expectRefused({QStringLiteral("--screenshot"), QStringLiteral("x.png"), QStringLiteral("--steps"), QStringLiteral("5"), stream},
                QStringLiteral("--steps"), QStringLiteral("files"));
  // The same session twice is one session.
  const AppOptions same = parse({one, one});
  EXPECT_EQ(same.action, AppOptions::Action::Run) << same.message.toStdString();
  EXPECT_EQ(same.sessionFile, one);
}

TEST(AppOptionsFiles, HelpDescribesTheFiles) {
  const AppOptions help = parse({QStringLiteral("--help")});
  EXPECT_TRUE(help.message.contains(QStringLiteral("[FILE…]"))) << help.message.toStdString();
  EXPECT_TRUE(help.message.contains(QStringLiteral(".ampscope"))) << help.message.toStdString();
  EXPECT_TRUE(help.message.contains(QStringLiteral("tcp://HOST:PORT"))) << help.message.toStdString();
}

TEST(AppOptions, ParsesSizes) {
  EXPECT_EQ(parseSize(QStringLiteral("1024x700")), QSize(1024, 700));
  EXPECT_EQ(parseSize(QStringLiteral("800X600")), QSize(800, 600));
  EXPECT_FALSE(parseSize(QStringLiteral("800")).isValid());
  EXPECT_FALSE(parseSize(QStringLiteral("-800x600")).isValid());
  EXPECT_FALSE(parseSize(QStringLiteral("800x600x2")).isValid());
}

}  // namespace
}  // namespace ampscope::ui
