// The application's main window: a QMainWindow whose panels are dock widgets (nestable, tabbable),
// with File, View and Help menus. Dock layout and geometry are saved in QSettings on close and
// restored at the next start; a layout saved by an incompatible version is ignored.
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

  formats::NumberFormatsPanel* numberFormatsPanel() const { return m_formatsPanel; }
  QDockWidget* numberFormatsDock() const { return m_formatsDock; }
  QAction* resetLayoutAction() const { return m_resetLayoutAction; }
  QAction* aboutAction() const { return m_aboutAction; }
  TrainingWorkspace* trainingWorkspace() const { return m_training; }
  // File menu sessions, data export, Reproduce in PyTorch, autosave and the restore offer.
  SessionController* sessionController() const { return m_session; }
  // File > Follow Run…, the followed runs and the non-finite gradients table (ui/follow).
  FollowWorkspace* followWorkspace() const { return m_follow; }

 public slots:
  // Opens Help -> About (non-blocking, window-modal); returns the dialog.
  AboutDialog* showAbout();

 protected:
  void closeEvent(QCloseEvent* event) override;

 private:
  void createMenus();

  QMenu* m_fileMenu = nullptr;
  QMenu* m_viewMenu = nullptr;
  QMenu* m_helpMenu = nullptr;
  QAction* m_panelsSeparator = nullptr;  // panel toggles go above it, "Reset layout" below
  QAction* m_resetLayoutAction = nullptr;
  QAction* m_aboutAction = nullptr;
  formats::NumberFormatsPanel* m_formatsPanel = nullptr;
  QDockWidget* m_formatsDock = nullptr;
  TrainingWorkspace* m_training = nullptr;
  SessionController* m_session = nullptr;
  FollowWorkspace* m_follow = nullptr;
  QByteArray m_defaultState;
  bool m_persistLayout = true;
};

}  // namespace ampscope::ui
