// SessionController: the File menu's session commands and the safety net around them.
//   Open… (Ctrl+O), Save (Ctrl+S), Save As… (Ctrl+Shift+S), Open Recent ▸, Export Run Data ▸ (CSV,
//   JSON), Reproduce in PyTorch…; the window title shows the session's file name and an unsaved marker;
//   an AutosaveManager journals the running session (synced to disk once a second), and at the next
//   start after a crash offerRecovery() asks whether to restore it.
//
// It is not tied to the training widgets: the owner feeds it (onRunStarted, onRecords, onRunStopped)
// and gives it a hook that shows an opened session in the views (setLoadHandler). Dialogs go through
// replaceable hooks so tests can answer them (setPathPrompt, setQuestionPrompt, setMessageSink); on the
// offscreen and minimal platforms the default hooks never block: questions answer "no", file dialogs
// are cancelled, messages go to the log, and offerRecovery() keeps the autosave for a later start.
#pragma once

#include <QCoreApplication>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

#include "ui/session/autosave_manager.h"
#include "ui/session/recent_files.h"
#include "ui/session/session_file.h"
#include "ui/session/session_loader.h"
#include "ui/session/session_recorder.h"

class QAction;
class QMenu;
class QMessageBox;
class QWidget;

namespace ampscope::ui {

class SessionController : public QObject {
  Q_OBJECT

 public:
  enum class PathKind { OpenSession, SaveSession, ExportCsv, ExportJson, ReproduceFolder };
  // Returns the chosen path, or an empty string when the user cancelled.
  using PathPrompt = std::function<QString(PathKind kind, const QString& suggestion)>;
  // The button a question's dialog presses on Enter: "no" where "yes" writes into someone's files.
  enum class DefaultAnswer { Yes, No };
  // Returns true for "yes" (restore, save, ...).
  using QuestionPrompt = std::function<bool(const QString& title, const QString& text)>;
  using DefaultedQuestionPrompt =
      std::function<bool(const QString& title, const QString& text, DefaultAnswer defaultAnswer)>;
  using MessageSink = std::function<void(const QString& title, const QString& text, bool error)>;

  // `window`: dialog parent and the widget whose windowTitle/windowModified it maintains (may be null).
  // `autosavePath` empty: AutosaveManager::defaultPath().
  explicit SessionController(QWidget* window, const QString& autosavePath = QString(),
                             QObject* parent = nullptr);
  ~SessionController() override;

  // Adds the session actions to `fileMenu` (before its first existing action, e.g. Quit).
  void installMenu(QMenu* fileMenu);

  // Shows a session in the plots (config, lesson, records): the owner's part.
  void setLoadHandler(std::function<void(const Session&)> handler);
  const std::function<void(const Session&)>& loadHandler() const { return loadHandler_; }
  // The followed runs to save with the engine's records (File > Save). The autosave journals them through
  // autosave()->setFollowedSource (the owner wires it).
  void setFollowedRunsProvider(std::function<std::vector<FollowedRun>()> provider);
  // The lesson the current run belongs to, asked when a run starts.
  void setLessonProvider(std::function<QString()> provider);
  void setPathPrompt(PathPrompt prompt);
  void setQuestionPrompt(QuestionPrompt prompt);
  void setQuestionPrompt(DefaultedQuestionPrompt prompt);
  void setMessageSink(MessageSink sink);

  SessionRecorder* recorder() { return &recorder_; }
  AutosaveManager* autosave() { return &autosave_; }
  RecentFiles* recentFiles() { return &recent_; }
  SessionLoader* loader() { return &loader_; }
  QString currentPath() const { return path_; }
  bool isModified() const { return modified_; }

  QAction* openAction() const { return open_; }
  QAction* saveAction() const { return save_; }
  QAction* saveAsAction() const { return saveAs_; }
  QAction* exportCsvAction() const { return exportCsv_; }
  QAction* exportJsonAction() const { return exportJson_; }
  QAction* reproduceAction() const { return reproduce_; }
  QMenu* recentMenu() const { return recentMenu_; }

  // The dialog the default question prompt shows (not yet shown), Yes and No buttons.
  static QMessageBox* questionBox(QWidget* parent, const QString& title, const QString& text,
                                  DefaultAnswer defaultAnswer);

  // Each returns true on success (false also when the user cancelled).
  // openFile reads and decodes on the loader's worker thread and waits for it in a local event loop, the
  // window kept drawing and a progress dialog (after a moment) offering Cancel; the opened session
  // replaces the current one only once it is complete, so a cancelled or failed open changes nothing.
  // With `error`, a failure is put there (empty when cancelled) instead of shown to the user: the command
  // line's session is opened before the window shows, and its error goes to stderr.
  bool openFile(const QString& path, QString* error = nullptr);
  bool save();
  bool saveAs();
  bool saveTo(const QString& path);
  bool exportCsv(const QString& path = QString());
  bool exportJson(const QString& path = QString());
  bool reproduceInPyTorch(const QString& folder = QString());

  // At start-up: when an autosave survived (the last run crashed or was killed), asks whether to restore
  // it; restores (as an unsaved session) or discards it. Returns true if a session was restored.
  bool offerRecovery();
  // Before the window closes: unsaved recorded data? Ask to save. False: the user chose to keep the
  // window open (or saving failed).
  bool confirmClose();
  // A clean exit (GUI or headless): no journal stays behind, and none is written any more.
  void shutdown();

 public slots:
  void onRunStarted(const ampscope::RunConfig& config);
  void onRecords(const std::vector<ampscope::StepRecord>& batch);
  void onRunStopped();  // finished, stopped or paused: write what is pending
  // Steps of a followed run arrived: the session has unsaved data (closing asks to save it), and the
  // autosave journals them.
  void onFollowedData();

 signals:
  void sessionLoaded(const QString& path);
  void sessionSaved(const QString& path);

 private:
  void setModified(bool modified);
  void setPath(const QString& path);
  void updateTitle();
  void updateActions();
  void rebuildRecentMenu();
  void report(const QString& title, const QString& text, bool error);
  QString askPath(PathKind kind, const QString& suggestion);
  QString suggestedName(const QString& suffix) const;
  bool ask(const QString& title, const QString& text, DefaultAnswer defaultAnswer);

  QPointer<QWidget> window_;
  QString baseTitle_;
  SessionRecorder recorder_;
  AutosaveManager autosave_;
  RecentFiles recent_;
  SessionLoader loader_;
  QString path_;
  bool modified_ = false;
  bool rebuildingRecent_ = false;
  bool customQuestionPrompt_ = false;
  std::function<void(const Session&)> loadHandler_;
  std::function<QString()> lessonProvider_;
  std::function<std::vector<FollowedRun>()> followedProvider_;
  PathPrompt pathPrompt_;
  DefaultedQuestionPrompt questionPrompt_;
  MessageSink messageSink_;

  QAction* open_ = nullptr;
  QAction* save_ = nullptr;
  QAction* saveAs_ = nullptr;
  QAction* exportCsv_ = nullptr;
  QAction* exportJson_ = nullptr;
  QAction* reproduce_ = nullptr;
  QMenu* recentMenu_ = nullptr;
};

}  // namespace ampscope::ui
