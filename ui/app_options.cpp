#include "ui/app_options.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QFileInfo>
#include <QRegularExpression>

#include "ui/i18n/language_manager.h"
#include "ui/lessons/lesson_library.h"

#include <cmath>

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::AppOptions", text); }

AppOptions error(const QString& message) {
  AppOptions options;
  options.action = AppOptions::Action::Error;
  options.message = message;
  return options;
}

}  // namespace

QSize parseSize(const QString& text) {
  static const QRegularExpression pattern(QStringLiteral("^\\s*(\\d{1,6})\\s*[xX×]\\s*(\\d{1,6})\\s*$"));
  const QRegularExpressionMatch match = pattern.match(text);
  if (!match.hasMatch()) return {};
  const int width = match.captured(1).toInt();
  const int height = match.captured(2).toInt();
  if (width <= 0 || height <= 0) return {};
  return {width, height};
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

  if (!parser.parse(arguments)) return error(parser.errorText());
  if (!parser.positionalArguments().isEmpty()) {
    return error(tr("Unexpected argument: %1").arg(parser.positionalArguments().constFirst()));
  }

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
  return options;
}

}  // namespace ampscope::ui
