// ampscope: the GUI shell. Parses arguments, builds the main window and wires its parts together, opens
// the files given on the command line, then runs the event loop, or trains and renders one screenshot
// (ScreenshotRenderer) and exits.
#include <QApplication>
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QMenu>
#include <QMessageBox>
#include <QThread>
#include <QTimer>

#include <cstdio>
#include <memory>
#include <optional>

#include <unistd.h>

#include "ampscope/engine/kernel_check.h"
#include "ampscope/engine/path_timing.h"
#include "ampscope/engine/version.h"
#include "ui/about_dialog.h"
#include "ui/app_options.h"
#include "ui/export/screenshot_renderer.h"
#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_dialog.h"
#include "ui/follow/follow_workspace.h"
#include "ui/i18n/language_manager.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_workspace.h"
#include "ui/main_window.h"
#include "ui/presentation/presenter_mode.h"
#include "ui/presentation/theme_manager.h"
#include "ui/session/session_controller.h"
#include "ui/training/headless_trainer.h"
#include "ui/training/run_controller.h"
#include "ui/training/training_workspace.h"

namespace {

void printLine(std::FILE* stream, const QString& text) {
  std::fputs(text.toLocal8Bit().constData(), stream);
  if (!text.endsWith(QLatin1Char('\n'))) std::fputc('\n', stream);
}

// A desktop that opens a double-clicked file (Exec=ampscope %F) shows no terminal: where stderr is not one
// and a display is there, a file that cannot be opened is also said in a message box (the exit code stays 2).
bool noTerminalToTell(const ampscope::ui::AppOptions& options) {
  if (options.screenshotRequested() || ::isatty(STDERR_FILENO)) return false;
  const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
  if (platform.startsWith("offscreen") || platform.startsWith("minimal")) return false;
  return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

void showFileError(const QString& message) {
  QMessageBox box(QMessageBox::Critical, QStringLiteral("AmpScope"),
                  QCoreApplication::translate("main", "AmpScope cannot open this file."), QMessageBox::Ok);
  box.setInformativeText(message);
  box.exec();
}

int takeScreenshot(ampscope::ui::MainWindow& window, const ampscope::ui::AppOptions& options) {
  using ampscope::ui::ScreenshotRenderer;
  const auto result = ScreenshotRenderer::render(window, {options.screenshotPath, options.size, options.scale});
  if (!result.warning.isEmpty()) printLine(stderr, QStringLiteral("ampscope: %1").arg(result.warning));
  if (!result.ok) {
    printLine(stderr, QStringLiteral("ampscope: %1").arg(result.error));
    return result.usage ? ampscope::ui::kExitUsageError : ampscope::ui::kExitRuntimeError;
  }
  printLine(stdout, result.message);
  return ampscope::ui::kExitOk;
}

// --steps N: trains N steps through the window's training workspace before the screenshot.
int trainBeforeScreenshot(ampscope::ui::MainWindow& window, const ampscope::ui::AppOptions& options) {
  using ampscope::ui::HeadlessTrainer;
  const auto result =
      HeadlessTrainer::trainSteps(*window.trainingWorkspace(), options.steps, HeadlessTrainer::kDefaultTimeoutMs);
  if (!result.ok) {
    printLine(stderr, QStringLiteral("ampscope: %1").arg(result.error));
    return ampscope::ui::kExitRuntimeError;
  }
  printLine(stdout, QCoreApplication::translate("main", "Trained %1 steps").arg(result.stepsDone));
  return ampscope::ui::kExitOk;
}

// FILE… from the command line, before the window shows: the session, opened as File > Open Session opens
// it (its lesson, records and followed runs, the title, Open Recent), or the streams, each followed as
// File > Follow Run follows it. A session that does not open ends the program: exit 2 and the reason on
// stderr (1 when its progress dialog was cancelled), and the window never shows. `remember`: the session
// goes into Open Recent and the streams into Follow Run's recent targets (not for a screenshot).
int openCommandLineFiles(ampscope::ui::MainWindow& window, const ampscope::ui::AppOptions& options, bool remember) {
  if (!options.sessionFile.isEmpty()) {
    ampscope::ui::SessionController* sessions = window.sessionController();
    const bool wasRecent = sessions->recentFiles()->files().contains(options.sessionFile);
    QString error;
    if (!sessions->openFile(options.sessionFile, &error)) {
      if (error.isEmpty()) {
        printLine(stderr, QStringLiteral("ampscope: %1")
                              .arg(QCoreApplication::translate("main", "opening %1 was cancelled").arg(options.sessionFile)));
        return ampscope::ui::kExitRuntimeError;
      }
      printLine(stderr, QStringLiteral("ampscope: %1").arg(error));
      if (noTerminalToTell(options)) showFileError(error);
      return ampscope::ui::kExitUsageError;
    }
    if (!remember && !wasRecent) sessions->recentFiles()->remove(options.sessionFile);
  }
  for (const QString& text : options.followTargets) {
    std::string why;
    const std::optional<ampscope::FollowTarget> target = ampscope::parseFollowTarget(text.toStdString(), &why);
    if (!target) {  // parseAppOptions checked it; a file replaced by a folder since
      printLine(stderr, QStringLiteral("ampscope: %1").arg(QString::fromStdString(why)));
      return ampscope::ui::kExitUsageError;
    }
    window.followWorkspace()->follow(*target);
    if (remember) ampscope::ui::FollowDialog::rememberTarget(text);
  }
  return ampscope::ui::kExitOk;
}

// For a screenshot: reads what the followed streams hold now (a file at once; a probe on TCP within a few
// seconds), then says what each follow got.
void readFollowedStreams(ampscope::ui::MainWindow& window) {
  ampscope::ui::FollowController* follows = window.followWorkspace()->controller();
  bool allFiles = true;
  for (const auto& f : follows->follows()) allFiles = allFiles && f->target.kind == ampscope::FollowTarget::Kind::File;
  constexpr qint64 kWaitMs = 3000;
  QElapsedTimer clock;
  clock.start();
  bool any = false;
  while (clock.elapsed() < kWaitMs) {
    const bool arrived = follows->poll();
    QCoreApplication::processEvents();
    if (arrived) {
      any = true;
    } else if (any || allFiles) {
      break;
    } else {
      QThread::msleep(20);
    }
  }
  for (const auto& f : follows->follows()) printLine(stdout, follows->statusText(f->id));
}

}  // namespace

int main(int argc, char** argv) {
  using ampscope::ui::AppOptions;
  QStringList arguments;
  for (int i = 0; i < argc; ++i) arguments << QString::fromLocal8Bit(argv[i]);
  const AppOptions options = ampscope::ui::parseAppOptions(arguments);
  switch (options.action) {
    case AppOptions::Action::Error: {
      // The message in the user's language (--lang where it names one, else the saved or the system's):
      // the arguments are parsed again with the catalogue installed.
      QString message = options.message;
      {
        QCoreApplication core(argc, argv);
        QCoreApplication::setApplicationName(QStringLiteral("AmpScope"));
        QCoreApplication::setOrganizationName(QStringLiteral("AmpScope"));
        using ampscope::ui::LanguageManager;
        QString code = ampscope::ui::languageArgument(arguments);
        if (!LanguageManager::isAvailable(code)) code = LanguageManager::preferredLanguage();
        const std::unique_ptr<QTranslator> catalogue = LanguageManager::appCatalogue(code);
        if (catalogue) QCoreApplication::installTranslator(catalogue.get());
        message = ampscope::ui::parseAppOptions(arguments).message;
        if (catalogue) QCoreApplication::removeTranslator(catalogue.get());
      }
      printLine(stderr, QStringLiteral("ampscope: %1\nTry 'ampscope --help'.").arg(message));
      if (options.fileError && noTerminalToTell(options)) {
        QApplication app(argc, argv);
        QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/ampscope.svg")));
        showFileError(message);
      }
      return ampscope::ui::kExitUsageError;
    }
    case AppOptions::Action::ShowHelp:
      printLine(stdout, options.message);
      return ampscope::ui::kExitOk;
    case AppOptions::Action::ShowVersion:
      printLine(stdout, ampscope::ui::AboutDialog::versionSummary());
      return ampscope::ui::kExitOk;
    case AppOptions::Action::Run:
      break;
  }
  // A name that no screenshot format fits, or a size and scale beyond the pixel bound, is refused before
  // the window is built and trained.
  if (options.screenshotRequested()) {
    const QString problem =
        ampscope::ui::ScreenshotRenderer::checkRequest({options.screenshotPath, options.size, options.scale});
    if (!problem.isEmpty()) {
      printLine(stderr, QStringLiteral("ampscope: %1").arg(problem));
      return ampscope::ui::kExitUsageError;
    }
  }

  // A screenshot needs no screen: without a display, render offscreen rather than fail to start.
  if (options.screenshotRequested() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") &&
      qEnvironmentVariableIsEmpty("DISPLAY") && qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
  }

  // auto's timing of native against emulated and the native kernels' self-check, kept per machine in
  // the user's cache folder; done when a run first needs them.
  ampscope::enablePathTiming({ampscope::defaultPathTimingFile(), nullptr});
  ampscope::useKernelCheckCache(ampscope::defaultKernelCheckFile());
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("AmpScope"));
  QApplication::setOrganizationName(QStringLiteral("AmpScope"));
  QApplication::setApplicationVersion(QString::fromStdString(ampscope::ampscopeVersion()));
  QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/ampscope.svg")));
  // Lets Wayland compositors match the window to the installed desktop file and its icon.
  QGuiApplication::setDesktopFileName(QStringLiteral("io.github.ampscope.AmpScope"));

  // Language and theme before the window exists, so it is built in them. Command-line choices apply to
  // this run only; the menus' choices are remembered.
  using ampscope::ui::LanguageManager;
  using ampscope::ui::ThemeManager;
  LanguageManager languages;
  if (options.language.isEmpty()) {
    languages.setLanguage(LanguageManager::preferredLanguage(), LanguageManager::Persist::No);
  } else {
    languages.setLanguage(options.language, LanguageManager::Persist::No);
  }
  ThemeManager themes;
  const std::optional<ThemeManager::Theme> theme = ThemeManager::parseTheme(options.theme);
  themes.apply(theme.value_or(ThemeManager::savedTheme()), /*persist=*/false);

  ampscope::ui::MainWindow window;
  ampscope::ui::PresenterMode presenter(&window);
  ampscope::ui::LessonWorkspace lessons(window);
  window.viewMenu()->addSeparator();
  presenter.addMenuTo(window.viewMenu());
  themes.addMenuTo(window.viewMenu());
  languages.addMenuTo(window.viewMenu());
  // Sessions remember the lesson a run belongs to and reopen it with the session's recorded plots.
  ampscope::ui::SessionController* sessions = window.sessionController();
  sessions->setLessonProvider([&lessons] {
    const ampscope::ui::Lesson* lesson = lessons.controller()->currentLesson();
    return lesson ? lesson->id : QString();
  });
  // The lesson first, then what the window does with a session (config, records, followed runs): the
  // window's handler is wrapped, not replaced.
  sessions->setLoadHandler([&lessons, windowHandler = sessions->loadHandler()](const ampscope::ui::Session& session) {
    if (!session.lesson.isEmpty()) lessons.controller()->openLesson(session.lesson);
    if (windowHandler) windowHandler(session);
  });
  // After the layout is restored: the lesson brings its panels forward in it.
  const auto openLesson = [&] {
    // Streams to follow are what the user started AmpScope for: no start lesson rearranges the window
    // around them unless --lesson asks for one (the first start's formats lesson stacked a followed
    // run's plots under its own panel, taller than a 1280x720 screen). A session opens its own lesson.
    if (options.lesson.isEmpty() && !options.followTargets.isEmpty()) {
      if (options.presenter) presenter.setScaled(true);
      return;
    }
    if (!lessons.openStartLesson(options.lesson)) lessons.openStartLesson();
    if (options.presenter) presenter.setScaled(true);
  };
  if (options.screenshotRequested()) {
    // A screenshot shows the default layout and leaves the user's saved layout alone.
    window.setLayoutPersistence(false);
    window.restoreLayout();
    openLesson();
    if (options.size.isValid()) {
      window.setFitsScreen(false);
      window.resize(options.size);
    }
    // The window never closes here, so its close event does not end the session: a headless run that
    // returns, whatever its exit code, is a clean exit and leaves no journal to restore.
    int code = ampscope::ui::kExitOk;
    if (options.opensFiles()) {
      code = openCommandLineFiles(window, options, /*remember=*/false);
      if (code == ampscope::ui::kExitOk && !options.sessionFile.isEmpty()) {
        printLine(stdout, QCoreApplication::translate("main", "Opened %1: %2 recorded steps")
                              .arg(QFileInfo(options.sessionFile).fileName())
                              .arg(sessions->recorder()->lastStep()));
      }
      if (code == ampscope::ui::kExitOk && !options.followTargets.isEmpty()) readFollowedStreams(window);
    }
    if (code == ampscope::ui::kExitOk && options.steps > 0) code = trainBeforeScreenshot(window, options);
    if (code == ampscope::ui::kExitOk) code = takeScreenshot(window, options);
    window.followWorkspace()->controller()->stopAll();
    window.trainingWorkspace()->shutdown();
    sessions->shutdown();
    return code;
  }
  window.restoreLayout();
  openLesson();
  // The files first: a session that does not open ends the program before any window shows.
  if (options.opensFiles()) {
    const int code = openCommandLineFiles(window, options, /*remember=*/true);
    if (code != ampscope::ui::kExitOk) {
      window.followWorkspace()->controller()->stopAll();
      window.trainingWorkspace()->shutdown();
      sessions->shutdown();
      return code;
    }
  }
  window.show();
  // An autosave that is still there means the last run crashed or was killed: offer it back. Not over
  // files the user asked for (restoring would replace them): the autosave waits for a start without files.
  if (!options.opensFiles()) QTimer::singleShot(0, sessions, [sessions] { sessions->offerRecovery(); });
  return QApplication::exec();
}
