// LessonWorkspace: the lessons inside the main window. It adds the lesson dock (LessonPanel), the two
// plots only lessons need (clip norms for §8, step times for §10), a "Lessons" menu with the browser and
// Previous/Next, and a LessonController; and it is the LessonHost that maps a lesson's panel ids onto
// the window: the number-format panel's tabs ("formats", "formats-range", "formats-finfo",
// "formats-underflow", "formats-memory"), the training workspace's docks ("run", "loss", "scale",
// "histogram", "heatmap", "underflow", "op-dtype", "memory") and its own ("grad-norm", "step-time").
//
// Layouts: opening a lesson keeps the user's own arrangement aside (MainWindow::beginManagedLayout) and
// arranges the window as the lesson declares (or as the teacher saved it for that lesson: Lessons >
// Save Lesson Layout, kept in QSettings per lesson; Reset Lesson Layout forgets it). Lessons > Leave
// Lessons closes the lesson and brings the user's arrangement back.
#pragma once

#include <QByteArray>
#include <QHash>
#include <QObject>
#include <QStringList>

#include "ui/lessons/lesson_host.h"
#include "ui/lessons/lesson_library.h"

class QAction;
class QDockWidget;
class QMenu;

namespace ampscope::ui {

class ClipNormPlot;
class LessonController;
class LessonPanel;
class MainWindow;
class StepTimePlot;
class TrainingWorkspace;

class LessonWorkspace : public QObject, public LessonHost {
  Q_OBJECT
 public:
  // Loads the lessons from `folder` (the resources by default) and builds the docks and the menu in
  // `window`, whose training workspace runs the lessons' configurations.
  explicit LessonWorkspace(MainWindow& window, const QString& folder = LessonLibrary::defaultFolder());
  ~LessonWorkspace() override;

  const LessonLibrary& library() const { return library_; }
  LessonController* controller() const { return controller_; }
  LessonPanel* panel() const { return panel_; }
  QDockWidget* lessonDock() const { return lessonDock_; }
  ClipNormPlot* clipNormPlot() const { return clipNorm_; }
  StepTimePlot* stepTimePlot() const { return stepTime_; }
  QMenu* menu() const { return menu_; }
  // Every panel id raisePanel() knows.
  QStringList panelIds() const;

  // Opens the lesson the app should start with: `requested` when given, else the one opened last time,
  // else the first. False when `requested` names no lesson.
  bool openStartLesson(const QString& requested = QString());
  // Opens the lesson browser (modal); opens the chosen lesson.
  void browse();

  // The current lesson's arrangement as it is now becomes that lesson's layout (kept in QSettings).
  void saveLessonLayout();
  // Forgets the current lesson's saved layout and applies the one it declares.
  void resetLessonLayout();
  bool hasSavedLayout(const QString& lessonId) const;
  // Closes the lesson and puts the user's own arrangement back.
  void leaveLessons();
  // The dock that shows this panel id (the number-format tabs share one dock); nullptr when unknown.
  QDockWidget* dockFor(const QString& panelId) const;
  QAction* saveLayoutAction() const { return saveLayoutAction_; }
  QAction* resetLayoutAction() const { return resetLayoutAction_; }
  QAction* leaveAction() const { return leaveAction_; }

  // LessonHost
  void stopRun() override;
  void loadRunConfig(const RunConfig& config) override;
  bool raisePanel(const QString& panelId) override;
  QWidget* panelWidget(const QString& panelId) override;
  void injectOverflow() override;
  bool applyLayout(const Lesson& lesson) override;
  bool panelOpen(const QString& panelId) override;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  QDockWidget* addLessonDock(const QString& id, QWidget* content, Qt::DockWidgetArea area);
  QWidget* formatsPage(const QString& panelId) const;
  void retranslate();
  // Gives the lesson's "large" panels the larger share of the window, at its present size.
  void sizeLayout(const Lesson& lesson);
  void updateLayoutActions();

  MainWindow& window_;
  TrainingWorkspace& workspace_;
  LessonLibrary library_;
  LessonPanel* panel_ = nullptr;
  QDockWidget* lessonDock_ = nullptr;
  ClipNormPlot* clipNorm_ = nullptr;
  StepTimePlot* stepTime_ = nullptr;
  QHash<QString, QDockWidget*> ownDocks_;
  LessonController* controller_ = nullptr;
  QMenu* menu_ = nullptr;
  QAction* browseAction_ = nullptr;
  QAction* saveLayoutAction_ = nullptr;
  QAction* resetLayoutAction_ = nullptr;
  QAction* leaveAction_ = nullptr;
  QByteArray baseState_;  // the window's arrangement as built, which lesson layouts start from
  bool sizedWhileShown_ = false;
  bool fontResizePending_ = false;  // a re-size for a new font is queued
};

}  // namespace ampscope::ui
