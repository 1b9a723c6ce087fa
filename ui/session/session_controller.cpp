#include "ui/session/session_controller.h"

#include <QAction>
#include <QApplication>
#include <QDateTime>
#include <QDesktopServices>
#include <QDir>
#include <QEventLoop>
#include <QFileDialog>
#include <QFileInfo>
#include <QGuiApplication>
#include <QKeySequence>
#include <QLocale>
#include <QMenu>
#include <QMessageBox>
#include <QProgressDialog>
#include <QStandardPaths>
#include <QUrl>
#include <QWidget>
#include <algorithm>

#include "ampscope/engine/reproduce_export.h"
#include "ui/session/run_exporter.h"

namespace ampscope::ui {

namespace {

// The offscreen and minimal platforms (tests, --screenshot) have nobody to answer a dialog: the default
// prompts then answer "no" at once instead of blocking.
bool interactive() {
  const QString platform = QGuiApplication::platformName();
  return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

}  // namespace

SessionController::SessionController(QWidget* window, const QString& autosavePath, QObject* parent)
    : QObject(parent), window_(window), autosave_(this, autosavePath) {
  if (window_) baseTitle_ = window_->windowTitle();
  autosave_.setSource(&recorder_);
  connect(&autosave_, &AutosaveManager::saveFailed, this, [this](const QString& message) {
    // Once per failure streak would be kinder; the status line is the owner's. Keep it visible.
    report(tr("Autosave failed"), message, true);
  });
  connect(&recent_, &RecentFiles::changed, this, &SessionController::rebuildRecentMenu);
  connect(&recorder_, &SessionRecorder::changed, this, &SessionController::updateActions);

  pathPrompt_ = [this](PathKind kind, const QString& suggestion) -> QString {
    if (!interactive()) return QString();
    QWidget* parent = window_.data();
    const QString sessions = tr("AmpScope sessions (*.%1)").arg(QLatin1String(SessionFile::kSuffix));
    switch (kind) {
      case PathKind::OpenSession:
        return QFileDialog::getOpenFileName(parent, tr("Open Session"), suggestion,
                                            sessions + QStringLiteral(";;") + tr("All files (*)"));
      case PathKind::SaveSession:
        return QFileDialog::getSaveFileName(parent, tr("Save Session"), suggestion, sessions);
      case PathKind::ExportCsv:
        return QFileDialog::getSaveFileName(parent, tr("Export Run as CSV"), suggestion,
                                            tr("CSV files (*.csv)"));
      case PathKind::ExportJson:
        return QFileDialog::getSaveFileName(parent, tr("Export Run as JSON"), suggestion,
                                            tr("JSON files (*.json)"));
      case PathKind::ReproduceFolder:
        return QFileDialog::getExistingDirectory(parent, tr("Reproduce in PyTorch: choose a folder"),
                                                 suggestion);
    }
    return QString();
  };
  questionPrompt_ = [this](const QString& title, const QString& text, DefaultAnswer defaultAnswer) {
    if (!interactive()) return false;
    QMessageBox* box = questionBox(window_.data(), title, text, defaultAnswer);
    box->setAttribute(Qt::WA_DeleteOnClose);
    return box->exec() == QMessageBox::Yes;
  };
  messageSink_ = [this](const QString& title, const QString& text, bool error) {
    if (!interactive()) {
      qWarning("%s: %s", qUtf8Printable(title), qUtf8Printable(text));
      return;
    }
    if (error) {
      QMessageBox::warning(window_.data(), title, text);
    } else {
      QMessageBox::information(window_.data(), title, text);
    }
  };
}

SessionController::~SessionController() = default;

void SessionController::installMenu(QMenu* fileMenu) {
  QAction* before = fileMenu->actions().isEmpty() ? nullptr : fileMenu->actions().constFirst();

  open_ = new QAction(tr("&Open Session…"), this);
  open_->setShortcut(QKeySequence::Open);
  open_->setStatusTip(tr("Open a saved session: its configuration and recorded plots, without retraining"));
  connect(open_, &QAction::triggered, this, [this] {
    const QString path = askPath(PathKind::OpenSession, path_.isEmpty() ? QDir::homePath() : path_);
    if (!path.isEmpty()) openFile(path);
  });

  recentMenu_ = new QMenu(tr("Open &Recent"), fileMenu);

  save_ = new QAction(tr("&Save Session"), this);
  save_->setShortcut(QKeySequence::Save);
  save_->setStatusTip(tr("Save the configuration and every recorded step"));
  connect(save_, &QAction::triggered, this, &SessionController::save);

  saveAs_ = new QAction(tr("Save Session &As…"), this);
  // QKeySequence::SaveAs is empty on some Linux desktops; Ctrl+Shift+S is what they all use.
  const QKeySequence saveAsKeys(QKeySequence::SaveAs);
  saveAs_->setShortcut(saveAsKeys.isEmpty() ? QKeySequence(QStringLiteral("Ctrl+Shift+S")) : saveAsKeys);
  connect(saveAs_, &QAction::triggered, this, &SessionController::saveAs);

  QMenu* exportMenu = new QMenu(tr("&Export Run Data"), fileMenu);
  exportCsv_ = exportMenu->addAction(tr("As &CSV (one row per step and mode)…"));
  connect(exportCsv_, &QAction::triggered, this, [this] { exportCsv(); });
  exportJson_ = exportMenu->addAction(tr("As &JSON (configuration, telemetry, histograms)…"));
  connect(exportJson_, &QAction::triggered, this, [this] { exportJson(); });

  reproduce_ = new QAction(tr("Reproduce in &PyTorch…"), this);
  reproduce_->setStatusTip(tr(
      "Write a Python script with the initial weights and batches that reruns this experiment in PyTorch"));
  connect(reproduce_, &QAction::triggered, this, [this] { reproduceInPyTorch(); });

  fileMenu->insertAction(before, open_);
  fileMenu->insertMenu(before, recentMenu_);
  fileMenu->insertSeparator(before);
  fileMenu->insertAction(before, save_);
  fileMenu->insertAction(before, saveAs_);
  fileMenu->insertSeparator(before);
  fileMenu->insertMenu(before, exportMenu);
  fileMenu->insertAction(before, reproduce_);
  if (before) fileMenu->insertSeparator(before);

  rebuildRecentMenu();
  updateActions();
}

void SessionController::setLoadHandler(std::function<void(const Session&)> handler) {
  loadHandler_ = std::move(handler);
}
void SessionController::setLessonProvider(std::function<QString()> provider) {
  lessonProvider_ = std::move(provider);
}
void SessionController::setFollowedRunsProvider(std::function<std::vector<FollowedRun>()> provider) {
  followedProvider_ = std::move(provider);
}
void SessionController::setPathPrompt(PathPrompt prompt) { pathPrompt_ = std::move(prompt); }
void SessionController::setQuestionPrompt(QuestionPrompt prompt) {
  if (!prompt) return setQuestionPrompt(DefaultedQuestionPrompt());
  setQuestionPrompt([prompt = std::move(prompt)](const QString& title, const QString& text, DefaultAnswer) {
    return prompt(title, text);
  });
}
void SessionController::setQuestionPrompt(DefaultedQuestionPrompt prompt) {
  questionPrompt_ = std::move(prompt);
  customQuestionPrompt_ = true;
}

QMessageBox* SessionController::questionBox(QWidget* parent, const QString& title, const QString& text,
                                            DefaultAnswer defaultAnswer) {
  auto* box = new QMessageBox(QMessageBox::Question, title, text, QMessageBox::Yes | QMessageBox::No, parent);
  box->setDefaultButton(defaultAnswer == DefaultAnswer::Yes ? QMessageBox::Yes : QMessageBox::No);
  box->setEscapeButton(QMessageBox::No);
  return box;
}

bool SessionController::ask(const QString& title, const QString& text, DefaultAnswer defaultAnswer) {
  return questionPrompt_ && questionPrompt_(title, text, defaultAnswer);
}
void SessionController::setMessageSink(MessageSink sink) { messageSink_ = std::move(sink); }

void SessionController::report(const QString& title, const QString& text, bool error) {
  if (messageSink_) messageSink_(title, text, error);
}

QString SessionController::askPath(PathKind kind, const QString& suggestion) {
  return pathPrompt_ ? pathPrompt_(kind, suggestion) : QString();
}

QString SessionController::suggestedName(const QString& suffix) const {
  const QString folder = path_.isEmpty() ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
                                         : QFileInfo(path_).absolutePath();
  const QString base = path_.isEmpty()
                           ? QStringLiteral("ampscope-%1")
                                 .arg(QString::fromStdString(modelName(recorder_.session().config.model)))
                           : QFileInfo(path_).completeBaseName();
  return QDir(folder).filePath(suffix.isEmpty() ? base : base + QLatin1Char('.') + suffix);
}

bool SessionController::openFile(const QString& path, QString* error) {
  if (error) error->clear();
  if (loader_.isRunning()) return false;  // one open at a time (the progress dialog is modal anyway)
  const QString name = QFileInfo(path).fileName();
  // Shown only when the open takes a moment: a short session opens without a flash.
  QProgressDialog progress(window_.data());
  progress.setWindowTitle(tr("Open Session"));
  progress.setLabelText(tr("Opening %1…").arg(name));
  progress.setCancelButtonText(tr("Cancel"));
  progress.setWindowModality(Qt::WindowModal);
  progress.setMinimumDuration(400);
  progress.setAutoClose(false);
  progress.setAutoReset(false);
  progress.setRange(0, 1000);
  const QMetaObject::Connection cancel =
      connect(&progress, &QProgressDialog::canceled, &loader_, &SessionLoader::cancel);
  const QMetaObject::Connection shown =
      connect(&loader_, &SessionLoader::progressed, &progress, [&progress, name](const SessionFile::Progress& p) {
        const double mb = 1e6;
        progress.setLabelText(tr("Opening %1…\nRead %2 of %3 MB; decoded %n record(s).", nullptr,
                                 static_cast<int>(p.records))
                                  .arg(name, QString::number(static_cast<double>(p.bytesRead) / mb, 'f', 1),
                                       QString::number(static_cast<double>(p.fileBytes) / mb, 'f', 1)));
        // Reading is the first half of the bar, decoding the second.
        const double done = p.fileBytes > 0 ? static_cast<double>(p.bytesRead + p.bytesDecoded) /
                                                  (2.0 * static_cast<double>(p.fileBytes))
                                            : 0.0;
        progress.setValue(static_cast<int>(std::min(1.0, done) * 999));
      });
  QEventLoop wait;
  connect(&loader_, &SessionLoader::finished, &wait, &QEventLoop::quit);
  loader_.start(path);
  progress.setValue(0);  // starts the dialog's clock for the minimum duration
  wait.exec();
  disconnect(shown);
  disconnect(cancel);  // closing the dialog says "canceled" too
  progress.close();

  if (loader_.wasCancelled()) return false;
  std::optional<Session> session = loader_.takeSession();
  if (!session) {
    if (error) {
      *error = loader_.error();
    } else {
      report(tr("Cannot open the session"), loader_.error(), true);
    }
    if (!QFileInfo::exists(path)) recent_.remove(path);
    return false;
  }
  autosave_.stop();
  setPath(path);
  recent_.add(path);
  // The handler sees the followed runs, which the recorder drops; then the records move into the
  // recorder instead of being copied.
  if (loadHandler_) loadHandler_(*session);
  recorder_.load(std::move(*session));
  setModified(false);  // after the handler: restoring its followed runs reports their data as new
  emit sessionLoaded(path);
  return true;
}

bool SessionController::save() {
  if (path_.isEmpty()) return saveAs();
  return saveTo(path_);
}

bool SessionController::saveAs() {
  QString path = askPath(PathKind::SaveSession, suggestedName(QLatin1String(SessionFile::kSuffix)));
  if (path.isEmpty()) return false;
  if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + QLatin1String(SessionFile::kSuffix);
  return saveTo(path);
}

bool SessionController::saveTo(const QString& path) {
  if (lessonProvider_ && recorder_.session().lesson.isEmpty()) recorder_.setLesson(lessonProvider_());
  QString error;
  bool saved = false;
  if (followedProvider_) {
    Session withFollowed = recorder_.session();
    withFollowed.followed = followedProvider_();
    saved = SessionFile::save(path, withFollowed, &error);
  } else {
    saved = SessionFile::save(path, recorder_.session(), &error);
  }
  if (!saved) {
    report(tr("Cannot save the session"), error, true);
    return false;
  }
  setPath(path);
  setModified(false);
  recent_.add(path);
  autosave_.compact();  // the next flush rewrites the journal in one piece
  emit sessionSaved(path);
  return true;
}

bool SessionController::exportCsv(const QString& chosen) {
  const QString path =
      chosen.isEmpty() ? askPath(PathKind::ExportCsv, suggestedName(QStringLiteral("csv"))) : chosen;
  if (path.isEmpty()) return false;
  QString error;
  if (!RunExporter::exportCsv(path, recorder_.records(), &error)) {
    report(tr("Export failed"), error, true);
    return false;
  }
  return true;
}

bool SessionController::exportJson(const QString& chosen) {
  const QString path =
      chosen.isEmpty() ? askPath(PathKind::ExportJson, suggestedName(QStringLiteral("json"))) : chosen;
  if (path.isEmpty()) return false;
  QString error;
  if (!RunExporter::exportJson(path, recorder_.session(), &error)) {
    report(tr("Export failed"), error, true);
    return false;
  }
  return true;
}

bool SessionController::reproduceInPyTorch(const QString& chosen) {
  if (!recorder_.hasConfig()) {
    report(tr("Reproduce in PyTorch"), tr("Start or open a run first: the export needs its configuration."),
           true);
    return false;
  }
  const QString folder = chosen.isEmpty()
                             ? askPath(PathKind::ReproduceFolder, suggestedName(QStringLiteral("pytorch")))
                             : chosen;
  if (folder.isEmpty()) return false;
  const Session& session = recorder_.session();
  // The steps the app recorded (so every recorded loss has its batch), or the configured run length.
  const int64_t steps = recorder_.isEmpty() ? session.config.steps : recorder_.lastStep();
  const std::string directory = QDir(folder).absolutePath().toStdString();
  QApplication::setOverrideCursor(Qt::WaitCursor);
  ReproduceExportResult result = exportReproduction(session.config, steps, directory, session.records);
  QApplication::restoreOverrideCursor();
  // Someone's folder is refused before anything is written; asked, the export writes beside their files.
  if (!result.ok && result.foreignCount > 0) {
    QStringList names;
    for (const auto& name : result.foreignEntries) names << QString::fromStdString(name);
    QString listed = names.join(QStringLiteral(", "));
    const int more = static_cast<int>(result.foreignCount) - static_cast<int>(names.size());
    if (more > 0) listed += tr(" and %n more", nullptr, more);
    // "No" is the default: Enter must not write into someone's folder.
    const bool force =
        ask(tr("Reproduce in PyTorch"),
            tr("The folder holds files AmpScope did not write: %1. Write into it anyway?\n\nThey "
               "are kept: only the export's own files (run.py, README.txt, weights/, batches/) "
               "are written.")
                .arg(listed),
            DefaultAnswer::No);
    if (!force) return false;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    result = exportReproduction(session.config, steps, directory, session.records, true);
    QApplication::restoreOverrideCursor();
  }
  if (!result.ok) {
    report(tr("Reproduce in PyTorch"), tr("The export failed: %1").arg(QString::fromStdString(result.error)),
           true);
    return false;
  }
  const QString script = QDir(folder).filePath(QStringLiteral("run.py"));
  report(tr("Reproduce in PyTorch"),
         tr("Wrote %n file(s) (%1 MB) to %2.\n\nRun it with:\n  python3 %3\n\nREADME.txt explains each "
            "precision mode and what to expect.",
            nullptr, static_cast<int>(result.files.size()))
             .arg(QString::number(static_cast<double>(result.bytes) / 1e6, 'f', 1), folder, script),
         false);
  return true;
}

bool SessionController::offerRecovery() {
  if (!autosave_.hasRecoverableSession()) return false;
  // Without anybody to ask, keep the autosave for the next interactive start rather than discard it.
  if (!customQuestionPrompt_ && !interactive()) return false;
  QDateTime newest;  // the engine's journal, or the followed runs' when only they were journaled
  for (const QString& file : autosave_.journalFiles())
    newest = std::max(newest, QFileInfo(file).lastModified());
  const QString when = QLocale().toString(newest, QLocale::ShortFormat);
  const bool restore =
      ask(tr("Restore the last session?"),
          tr("AmpScope did not shut down cleanly. A session autosaved at %1 can be restored "
             "(its configuration and every step recorded until then).\n\nRestore it?")
              .arg(when),
          DefaultAnswer::Yes);
  if (!restore) {
    autosave_.discard();
    return false;
  }
  QString error;
  QString note;
  const auto session = autosave_.recover(&error, &note);
  if (!session) {
    // Leave the damaged file where it is, so nothing is destroyed that someone might still rescue.
    report(tr("Cannot restore the session"), error, true);
    return false;
  }
  recorder_.load(*session);
  // The restored session is unsaved: journal it anew, without a torn line a crash may have left. The
  // handler first, so the followed runs it restores are journaled by the same write that replaces the
  // crash's files (a place no restored run takes is removed by it).
  autosave_.claim();
  autosave_.compact();
  setPath(QString());
  if (loadHandler_) loadHandler_(*session);
  autosave_.saveNow();
  setModified(!session->records.empty() || !session->followed.empty());
  if (!note.isEmpty()) report(tr("Session restored"), note, false);
  emit sessionLoaded(QString());
  return true;
}

bool SessionController::confirmClose() {
  if (!modified_) return true;
  if (recorder_.isEmpty() && (!followedProvider_ || followedProvider_().empty())) return true;
  if (!ask(tr("Save the session?"), tr("The recorded run has not been saved. Save it before closing?"),
           DefaultAnswer::Yes)) {
    return true;  // "No": close without saving
  }
  return save();
}

void SessionController::shutdown() { autosave_.cleanShutdown(); }

void SessionController::onRunStarted(const RunConfig& config) {
  recorder_.begin(config, lessonProvider_ ? lessonProvider_() : QString());
  // A new run is a new, unsaved session: Save asks for a name instead of overwriting the opened file.
  setPath(QString());
  setModified(false);
  autosave_.start();
}

void SessionController::onRecords(const std::vector<StepRecord>& batch) {
  if (batch.empty()) return;
  recorder_.append(batch);
  autosave_.markDirty();
  if (!autosave_.isActive()) autosave_.start();
  setModified(true);
}

void SessionController::onFollowedData() {
  autosave_.markFollowedDirty();
  if (!autosave_.isActive()) autosave_.start();
  setModified(true);
}

void SessionController::onRunStopped() {
  if (autosave_.isDirty()) autosave_.saveNow();
}

void SessionController::setModified(bool modified) {
  modified_ = modified;
  updateTitle();
  updateActions();
}

void SessionController::setPath(const QString& path) {
  path_ = path;
  updateTitle();
}

void SessionController::updateTitle() {
  if (!window_) return;
  // "[*]" is where Qt shows the modified marker; the file name comes first, as in other editors.
  const QString name = path_.isEmpty() ? tr("Untitled") : QFileInfo(path_).fileName();
  const QString base = baseTitle_.isEmpty() ? QStringLiteral("AmpScope") : baseTitle_;
  window_->setWindowTitle(QStringLiteral("%1[*] — %2").arg(name, base));
  window_->setWindowModified(modified_);
}

void SessionController::updateActions() {
  const bool hasData = !recorder_.isEmpty();
  if (save_) save_->setEnabled(recorder_.hasConfig());
  if (saveAs_) saveAs_->setEnabled(recorder_.hasConfig());
  if (exportCsv_) exportCsv_->setEnabled(hasData);
  if (exportJson_) exportJson_->setEnabled(hasData);
  if (reproduce_) reproduce_->setEnabled(recorder_.hasConfig());
}

void SessionController::rebuildRecentMenu() {
  // files() may prune missing entries and so emit changed() again: rebuild once.
  if (!recentMenu_ || rebuildingRecent_) return;
  rebuildingRecent_ = true;
  recentMenu_->clear();
  const QStringList files = recent_.files();
  for (int i = 0; i < files.size(); ++i) {
    // &1 … &9, then 10 without a mnemonic.
    const QString label = i < 9 ? QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName())
                                : QStringLiteral("%1 %2").arg(i + 1).arg(QFileInfo(files[i]).fileName());
    QAction* action = recentMenu_->addAction(label);
    action->setToolTip(files[i]);
    action->setData(files[i]);
    connect(action, &QAction::triggered, this, [this, file = files[i]] { openFile(file); });
  }
  if (!files.isEmpty()) {
    recentMenu_->addSeparator();
    connect(recentMenu_->addAction(tr("Clear Recent")), &QAction::triggered, &recent_, &RecentFiles::clear);
  }
  recentMenu_->setEnabled(!files.isEmpty());
  rebuildingRecent_ = false;
}

}  // namespace ampscope::ui
