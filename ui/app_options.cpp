#include "ui/app_options.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QUrl>

#include "ampscope/engine/stream_follower.h"

#include "ui/i18n/language_manager.h"
#include "ui/lessons/lesson_library.h"

#include <cmath>

namespace ampscope::ui {

namespace {

// The context lupdate records for tr() in a free function of this namespace (the catalogue's), so that
// any translator finds these messages, not only ContextFallbackTranslator.
QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui", text); }

AppOptions error(const QString& message) {
  AppOptions options;
  options.action = AppOptions::Action::Error;
  options.message = message;
  return options;
}

AppOptions fileError(const QString& message) {
  AppOptions options = error(message);
  options.fileError = true;
  return options;
}

const char* const kTcpScheme = "tcp://";

// One FILE argument into `options` (a session or a follow target); an empty string, or the error.
QString addFileArgument(const QString& given, AppOptions& options, QStringList& sessions) {
  // A file:// URL (what some launchers pass) stands for its local path, which the messages name.
  const QUrl url(given);
  const QString argument = url.isLocalFile() ? url.toLocalFile() : given;
  // tcp://HOST:PORT, and HOST:PORT as File > Follow Run takes it (unless a file has that name).
  const bool tcpScheme = argument.startsWith(QLatin1String(kTcpScheme), Qt::CaseInsensitive);
  const QFileInfo info(argument);
  if (tcpScheme || !info.exists()) {
    const QString address = tcpScheme ? argument.mid(static_cast<int>(qstrlen(kTcpScheme))) : argument;
    std::string why;
    const auto target = parseFollowTarget(address.toStdString(), &why);
    if (target && target->kind == FollowTarget::Kind::Tcp) {
      const QString text = QString::fromStdString(target->text());
      if (!options.followTargets.contains(text)) options.followTargets << text;
      return {};
    }
    if (tcpScheme) {
      return tr("%1: expected tcp://HOST:PORT (%2)")
          .arg(argument, target ? tr("no port") : QString::fromStdString(why));
    }
    return tr("%1: no such file").arg(argument);
  }
  if (info.isDir()) return tr("%1: is a folder, not a session or a record stream").arg(argument);
  // A named pipe would block the read below; the follower reads regular files only.
  if (!info.isFile()) return tr("%1: not a regular file (a named pipe, a device or a socket)").arg(argument);
  QFile file(info.absoluteFilePath());
  if (!file.open(QIODevice::ReadOnly)) return tr("%1: cannot be read: %2").arg(argument, file.errorString());
  const QByteArray head = file.read(kFileKindHeadBytes);
  if (file.error() != QFileDevice::NoError) return tr("%1: cannot be read: %2").arg(argument, file.errorString());
  const QString path = QDir::cleanPath(info.absoluteFilePath());
  switch (fileKindOf(head, path)) {
    case FileKind::Session:
      if (!sessions.contains(path)) sessions << path;
      return {};
    case FileKind::RecordStream:
      if (!options.followTargets.contains(path)) options.followTargets << path;
      return {};
    case FileKind::Unknown: break;
  }
  return tr("%1: neither an AmpScope session (.%2) nor a record stream (.jsonl)").arg(argument, QStringLiteral("ampscope"));
}

}  // namespace

FileKind fileKindOf(const QByteArray& head, const QString& fileName) {
  // The session and stream codecs write "format" first, without spaces; a hand-written file may space it.
  static const QRegularExpression format(QStringLiteral("^\\s*\\{\\s*\"format\"\\s*:\\s*\"([^\"\\\\]*)\""));
  const bool sessionName = QFileInfo(fileName).suffix().compare(QLatin1String("ampscope"), Qt::CaseInsensitive) == 0;
  const QRegularExpressionMatch match = format.match(QString::fromLatin1(head));
  if (match.hasMatch()) {
    const QString value = match.captured(1);
    if (value == QLatin1String("ampscope-session")) return FileKind::Session;
    if (value == QLatin1String("ampscope-records")) return FileKind::RecordStream;
    return sessionName ? FileKind::Session : FileKind::Unknown;
  }
  if (sessionName) return FileKind::Session;
  const QByteArray text = head.trimmed();
  if (text.isEmpty() || text.startsWith('{')) return FileKind::RecordStream;
  return FileKind::Unknown;
}

QSize parseSize(const QString& text) {
  static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d{1,6})\\s*[xX×]\\s*(\\d{1,6})\\s*$"));
  const QRegularExpressionMatch match = pattern.match(text);
  if (!match.hasMatch()) return {};
  const int width = match.captured(1).toInt();
  const int height = match.captured(2).toInt();
  if (width <= 0 || height <= 0) return {};
  return {width, height};
}

QString languageArgument(const QStringList& arguments) {
  for (qsizetype i = 1; i < arguments.size(); ++i) {
    const QString& a = arguments[i];
    if (a == QLatin1String("--")) break;
    if (a == QLatin1String("--lang") && i + 1 < arguments.size()) return arguments[i + 1];
    if (a.startsWith(QLatin1String("--lang="))) return a.mid(7);
  }
  return {};
}

AppOptions parseAppOptions(const QStringList& arguments) {
  QCommandLineParser parser;
  parser.setApplicationDescription(tr("AmpScope: watch mixed-precision training happen."));
  const QCommandLineOption help({QStringLiteral("h"), QStringLiteral("help")}, tr("Show this help and exit."));
  const QCommandLineOption version({QStringLiteral("v"), QStringLiteral("version")},
                                   tr("Print the versions of AmpScope, Qt and LibTorch and exit."));
  const QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                      tr("Render the main window into the PNG <file> and exit."), tr("file"));
  const QCommandLineOption size(QStringLiteral("size"), tr("Window size for --screenshot, e.g. 1400x900."),
                                tr("WxH"));
  const QCommandLineOption scale(QStringLiteral("scale"),
                                 tr("Device pixel ratio of the screenshot, e.g. 2 for a HiDPI image."), tr("S"));
  const QCommandLineOption steps(QStringLiteral("steps"),
                                 tr("With --screenshot: train <N> steps (the run panel's configuration) first."),
                                 tr("N"));
  const QCommandLineOption lesson(QStringLiteral("lesson"), tr("Open the lesson <name> at start (see the Lessons menu)."),
                                  tr("name"));
  const QCommandLineOption language(QStringLiteral("lang"), tr("User interface language for this run: en or zh_CN."),
                                    tr("code"));
  const QCommandLineOption theme(QStringLiteral("theme"), tr("Theme for this run: light or dark."), tr("theme"));
  const QCommandLineOption presenter(QStringLiteral("presenter"),
                                     tr("Start with presenter scaling (larger text and plot lines)."));
  parser.addOptions({help, version, screenshot, size, scale, steps, lesson, language, theme, presenter});
  parser.addPositionalArgument(
      tr("files"),
      tr("A saved session (.ampscope) to open, or record streams (.jsonl files, HOST:PORT or "
         "tcp://HOST:PORT) to follow; not both. Told apart by their content."),
      tr("[FILE…]"));

  if (!parser.parse(arguments)) return error(parser.errorText());

  AppOptions options;
  if (parser.isSet(help)) {
    options.action = AppOptions::Action::ShowHelp;
    // Without a QCoreApplication (main() parses before creating one) Qt cannot name the program.
    options.message = parser.helpText().replace(QStringLiteral("<executable_name>"),
                                                QFileInfo(arguments.value(0, QStringLiteral("ampscope"))).fileName());
    return options;
  }
  if (parser.isSet(version)) {
    options.action = AppOptions::Action::ShowVersion;
    return options;
  }

  if (parser.isSet(size)) {
    options.size = parseSize(parser.value(size));
    if (!options.size.isValid()) {
      return error(tr("--size must be WIDTHxHEIGHT with positive integers, e.g. 1400x900 (got \"%1\")")
                       .arg(parser.value(size)));
    }
    if (options.size.width() > kMaxScreenshotEdge || options.size.height() > kMaxScreenshotEdge) {
      return error(tr("--size: at most %1 pixels per edge (got \"%2\")").arg(kMaxScreenshotEdge).arg(parser.value(size)));
    }
  }
  if (parser.isSet(scale)) {
    bool ok = false;
    const double value = parser.value(scale).toDouble(&ok);
    if (!ok || !std::isfinite(value) || value <= 0 || value > kMaxScreenshotScale) {
      return error(tr("--scale must be a number greater than 0 and at most %1 (got \"%2\")")
                       .arg(kMaxScreenshotScale)
                       .arg(parser.value(scale)));
    }
    options.scale = value;
  }
  if (parser.isSet(steps)) {
    bool ok = false;
    options.steps = parser.value(steps).toLongLong(&ok);
    if (!ok || options.steps <= 0 || options.steps > kMaxHeadlessSteps) {
      return error(tr("--steps must be a whole number from 1 to %1 (got \"%2\")")
                       .arg(kMaxHeadlessSteps)
                       .arg(parser.value(steps)));
    }
  }
  if (parser.isSet(screenshot)) {
    options.screenshotPath = parser.value(screenshot);
    if (options.screenshotPath.isEmpty()) return error(tr("--screenshot needs a file name"));
  } else if (parser.isSet(size) || parser.isSet(scale)) {
    return error(tr("--size and --scale only apply to --screenshot"));
  } else if (parser.isSet(steps)) {
    return error(tr("--steps only applies to --screenshot"));
  }
  if (parser.isSet(lesson)) {
    LessonLibrary library;
    library.load();
    options.lesson = parser.value(lesson);
    if (!library.find(options.lesson)) {
      return error(tr("unknown lesson \"%1\"; the lessons are: %2")
                       .arg(options.lesson, library.ids().join(QStringLiteral(", "))));
    }
  }
  if (parser.isSet(language)) {
    options.language = parser.value(language);
    if (!LanguageManager::isAvailable(options.language)) {
      return error(tr("--lang must be one of %1 (got \"%2\")")
                       .arg(LanguageManager::availableLanguages().join(QStringLiteral(", ")), options.language));
    }
  }
  if (parser.isSet(theme)) {
    options.theme = parser.value(theme);
    if (options.theme != QLatin1String("light") && options.theme != QLatin1String("dark")) {
      return error(tr("--theme must be light or dark (got \"%1\")").arg(options.theme));
    }
  }
  options.presenter = parser.isSet(presenter);

  QStringList sessions;
  for (const QString& argument : parser.positionalArguments()) {
    if (argument.isEmpty()) return fileError(tr("an empty file name"));
    const QString problem = addFileArgument(argument, options, sessions);
    if (!problem.isEmpty()) return fileError(problem);
  }
  if (sessions.size() > 1) {
    return fileError(tr("%1 and %2: one session at a time (open the other with File > Open Session)")
                     .arg(QDir::toNativeSeparators(sessions[0]), QDir::toNativeSeparators(sessions[1])));
  }
  if (!sessions.isEmpty()) {
    options.sessionFile = sessions.constFirst();
    if (!options.followTargets.isEmpty()) {
      return fileError(tr("%1 is a session and %2 a record stream: open the session alone, then follow the "
                      "stream with File > Follow Run")
                       .arg(QDir::toNativeSeparators(options.sessionFile), options.followTargets.constFirst()));
    }
    if (parser.isSet(lesson)) return error(tr("--lesson and a session do not go together: the session opens its own lesson"));
  }
  if (options.opensFiles() && parser.isSet(steps)) {
    return error(tr("--steps trains a new run: it does not go together with files to open"));
  }
  return options;
}

}  // namespace ampscope::ui
