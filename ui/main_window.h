// The application's main window: a QMainWindow whose panels are dock widgets (nestable, tabbable),
// with File, View and Help menus. Dock layout and geometry are saved in QSettings on close and
// restored at the next start; a layout saved by an incompatible version is ignored.
//
// Two arrangements can stand in for the user's own for a while: a managed layout (a lesson's, see
// ui/lessons/lesson_workspace.h) and Focus (one panel alone, View menu). While either is on, the layout
// that is saved is still the user's own, and leaving them brings it back. The window never opens larger
// than its screen's available area.
#pragma once

#include <QByteArray>
#include <QMainWindow>

class QAction;
class QDockWidget;
class QMenu;

namespace ampscope::ui {

namespace formats {
class NumberFormatsPanel;
}

class AboutDialog;
class AdvicePanel;
class FollowWorkspace;
class SessionController;
class TrainingWorkspace;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  // Bump when the set of docks or their object names change: older saved layouts are then ignored.
  static constexpr int kLayoutVersion = 1;

  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  QMenu* fileMenu() const { return m_fileMenu; }
  QMenu* viewMenu() const { return m_viewMenu; }
  QMenu* helpMenu() const { return m_helpMenu; }
  QMenu* analysisMenu() const { return m_analysisMenu; }

  // Adds a dock (it must have a unique objectName: saveState() keys on it) and its toggle to View.
  void addPanel(QDockWidget* dock, Qt::DockWidgetArea area);

  // Call once after every panel exists: remembers the default layout, then restores the saved one
  // (if any, and if its version matches).
  void restoreLayout();
  // Back to the default layout captured by restoreLayout().
  void resetLayout();
  // Writes geometry and dock state to QSettings (also done on close).
  void saveLayout() const;
  // When off, restoreLayout() ignores saved settings and closing saves nothing (screenshots, tests).
  void setLayoutPersistence(bool enabled) { m_persistLayout = enabled; }

  // The user's own arrangement is remembered once and kept aside; another may then be applied freely.
  void beginManagedLayout();
  // Puts the user's own arrangement back (also leaves Focus).
  void endManagedLayout();
  bool hasManagedLayout() const { return !m_userState.isEmpty(); }
  // What saveLayout() writes: the user's own arrangement, whatever stands in for it now.
  QByteArray userLayoutState() const;

  // Focus: the dock shows alone in the window (the others hidden); again, and the arrangement comes back.
  // Without an argument the dock holding the keyboard focus, else the one under the mouse, else the
  // largest visible one.
  void setFocusedPanel(QDockWidget* dock);
  void toggleFocus();
  bool isFocused() const { return !m_focusState.isEmpty(); }
  QDockWidget* focusedPanel() const { return m_focusedDock; }
  QAction* focusAction() const { return m_focusAction; }

  // Shrinks (and moves) the window into its screen's available area where it is larger.
  void fitToScreen();
  // The size a first start (no saved geometry) opens at on a screen with `available` room: all of it up
  // to 1920x1200 (projectors, laptops, 1080p), 80 % of each side of a larger screen (at least 1920x1200).
  // Never larger than `available`.
  static QSize startSize(const QSize& available);
  // A window rendered to a file at a size the user asked for (--screenshot --size) is not on any screen:
  // it keeps that size. On by default.
  void setFitsScreen(bool fits) { m_fitsScreen = fits; }

  formats::NumberFormatsPanel* numberFormatsPanel() const { return m_formatsPanel; }
  QDockWidget* numberFormatsDock() const { return m_formatsDock; }
  QAction* resetLayoutAction() const { return m_resetLayoutAction; }
  QAction* aboutAction() const { return m_aboutAction; }
  // Analysis > Precision Advice… (Ctrl+Shift+A) and the panel it opens (ui/advice), made on first use.
  QAction* adviceAction() const { return m_adviceAction; }
  AdvicePanel* advicePanel();
  TrainingWorkspace* trainingWorkspace() const { return m_training; }
  // File menu sessions, data export, Reproduce in PyTorch, autosave and the restore offer.
  SessionController* sessionController() const { return m_session; }
  // File > Follow Run…, the followed runs and the non-finite gradients table (ui/follow).
  FollowWorkspace* followWorkspace() const { return m_follow; }

 public slots:
  // Opens Help -> About (non-blocking, window-modal); returns the dialog.
  AboutDialog* showAbout();
  // Opens Analysis -> Precision Advice… (non-modal) on the run shown; returns the panel.
  AdvicePanel* showAdvice();

 protected:
  void closeEvent(QCloseEvent* event) override;
  void showEvent(QShowEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void createMenus();
  QDockWidget* focusCandidate() const;

  QMenu* m_fileMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QMenu* m_helpMenu = nullptr;
  QMenu* m_analysisMenu = nullptr;
  QAction* m_adviceAction = nullptr;
  AdvicePanel* m_advicePanel = nullptr;
  QAction* m_panelsSeparator = nullptr;  // panel toggles go above it, "Reset layout" below
  QAction* m_resetLayoutAction = nullptr;
  QAction* m_aboutAction = nullptr;
  QAction* m_focusAction = nullptr;
  formats::NumberFormatsPanel* m_formatsPanel = nullptr;
  QDockWidget* m_formatsDock = nullptr;
  TrainingWorkspace* m_training = nullptr;
  SessionController* m_session = nullptr;
  FollowWorkspace* m_follow = nullptr;
  QByteArray m_defaultState;
  QByteArray m_userState;   // the user's own arrangement while a managed one stands in for it
  QByteArray m_focusState;  // the arrangement Focus replaced
  QDockWidget* m_focusedDock = nullptr;
  bool m_persistLayout = true;
  bool m_fitQueued = false;
  bool m_fitsScreen = true;
};

}  // namespace ampscope::ui
