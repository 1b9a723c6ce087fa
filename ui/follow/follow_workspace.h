// FollowWorkspace: the followed-runs part of the main window. File > Follow Run… (Ctrl+Shift+F) and
// File > Stop Following ▸ (one entry per live follow), the "Non-finite gradients" dock (its toggle in
// View), and one status-bar label per follow: connection state, records, dropped and malformed lines,
// lag, "diverged"; the last stream error in its tooltip (never a message box per bad line).
#pragma once

#include <QHash>
#include <QObject>
#include <QString>
#include <functional>

#include "ampscope/engine/stream_follower.h"

class QAction;
class QDockWidget;
class QLabel;
class QMainWindow;
class QMenu;

namespace ampscope {
class TelemetryStore;
}  // namespace ampscope

namespace ampscope::ui {

class FollowController;
class FollowDialog;
class NonFiniteTable;

class FollowWorkspace : public QObject {
  Q_OBJECT
 public:
  // Adds its File menu entries before `beforeAction` (null: at the end).
  FollowWorkspace(QMainWindow* window, TelemetryStore* store, QMenu* fileMenu, QAction* beforeAction, QMenu* viewMenu);
  ~FollowWorkspace() override;

  FollowController* controller() const { return controller_; }
  NonFiniteTable* nonFiniteTable() const { return table_; }
  QDockWidget* nonFiniteDock() const { return dock_; }
  QAction* followAction() const { return followAction_; }
  QMenu* stopMenu() const { return stopMenu_; }
  QLabel* statusLabel(int followId) const { return labels_.value(followId); }

  // Opens the dialog (window-modal, non-blocking) and starts following when it is accepted; returns it.
  FollowDialog* showFollowDialog();
  // What the dialog does once accepted (also for a stream given on the command line): follows `target`
  // under `label` (empty: the stream's own run name) and emits followStarted(). Returns the follow id.
  int follow(const FollowTarget& target, const QString& label = QString());

 signals:
  void dataAppended();  // followed steps are in the store: the plots update
  void followStarted();  // the user started following a run (its plots should be on screen)

 private:
  void rebuildStopMenu();
  void updateStatus();

  QMainWindow* window_;
  FollowController* controller_;
  NonFiniteTable* table_;
  QDockWidget* dock_;
  QAction* followAction_;
  QMenu* stopMenu_;
  QHash<int, QLabel*> labels_;
};

}  // namespace ampscope::ui
