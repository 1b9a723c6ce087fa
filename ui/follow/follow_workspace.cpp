#include "ui/follow/follow_workspace.h"

#include <QAction>
#include <QDockWidget>
#include <QKeySequence>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QStatusBar>
#include <QTimer>

#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_dialog.h"
#include "ui/follow/nonfinite_table.h"

namespace ampscope::ui {

FollowWorkspace::FollowWorkspace(QMainWindow* window, TelemetryStore* store, QMenu* fileMenu, QAction* beforeAction,
                                 QMenu* viewMenu)
    : QObject(window), window_(window), controller_(new FollowController(store, this)) {
  table_ = new NonFiniteTable(window);
  dock_ = new QDockWidget(tr("Non-finite gradients"), window);
  dock_->setObjectName(QStringLiteral("follow.nonfinite"));
  dock_->setWidget(table_);
  dock_->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                     QDockWidget::DockWidgetFloatable);
  // A tab beside the underflow plot and the tables: shown, but only raised when asked for (a dock of its
  // own across the bottom would squeeze every plot).
  if (auto* neighbour = window->findChild<QDockWidget*>(QStringLiteral("training.underflow"))) {
    window->addDockWidget(window->dockWidgetArea(neighbour), dock_);
    window->tabifyDockWidget(neighbour, dock_);
    neighbour->raise();
  } else {
    window->addDockWidget(Qt::BottomDockWidgetArea, dock_);
  }
  if (viewMenu) {
    QAction* before = nullptr;
    for (QAction* a : viewMenu->actions())
      if (a->isSeparator()) {
        before = a;
        break;
      }
    viewMenu->insertAction(before, dock_->toggleViewAction());
  }

  followAction_ = new QAction(tr("&Follow Run…"), this);
  followAction_->setObjectName(QStringLiteral("followRunAction"));
  followAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
  followAction_->setToolTip(tr("Plot a training script's records as they arrive (a stream file or a TCP port)."));
  connect(followAction_, &QAction::triggered, this, [this] { showFollowDialog(); });
  stopMenu_ = new QMenu(tr("Stop &Following"), window);
  stopMenu_->setObjectName(QStringLiteral("stopFollowingMenu"));
  fileMenu->insertAction(beforeAction, followAction_);
  fileMenu->insertMenu(beforeAction, stopMenu_);
  fileMenu->insertSeparator(beforeAction);
  rebuildStopMenu();

  connect(controller_, &FollowController::dataAppended, this, &FollowWorkspace::dataAppended);
  connect(controller_, &FollowController::followsChanged, this, [this] {
    rebuildStopMenu();
    updateStatus();
  });
  connect(controller_, &FollowController::statusChanged, this, &FollowWorkspace::updateStatus);
  // The lag and "stalled" move while nothing arrives.
  auto* clock = new QTimer(this);
  clock->setObjectName(QStringLiteral("followLagTimer"));
  clock->setInterval(1000);
  connect(clock, &QTimer::timeout, this, [this] {
    if (!controller_->follows().empty()) updateStatus();
  });
  clock->start();
  connect(controller_, &FollowController::stepsArrived, this, [this](int runIndex, const std::vector<ModeStep>& steps) {
    table_->addSteps(controller_->runs()[static_cast<std::size_t>(runIndex)].label, steps);
  });
}

FollowWorkspace::~FollowWorkspace() = default;

FollowDialog* FollowWorkspace::showFollowDialog() {
  auto* dialog = new FollowDialog(window_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  dialog->setWindowModality(Qt::WindowModal);
  connect(dialog, &QDialog::accepted, this, [this, dialog] {
    if (const auto target = dialog->target()) follow(*target, dialog->runLabel());
  });
  dialog->open();
  return dialog;
}

int FollowWorkspace::follow(const FollowTarget& target, const QString& label) {
  const int id = controller_->follow(target, label);
  emit followStarted();
  return id;
}

void FollowWorkspace::rebuildStopMenu() {
  stopMenu_->clear();
  for (const auto& f : controller_->follows()) {
    const int id = f->id;
    const QString name = f->run >= 0 ? controller_->runs()[static_cast<std::size_t>(f->run)].label
                                     : QString::fromStdString(f->target.text());
    QAction* a = stopMenu_->addAction(name);
    connect(a, &QAction::triggered, controller_, [this, id] { controller_->stop(id); });
  }
  if (controller_->follows().size() > 1) {
    stopMenu_->addSeparator();
    connect(stopMenu_->addAction(tr("Stop All")), &QAction::triggered, controller_, &FollowController::stopAll);
  }
  stopMenu_->setEnabled(!controller_->follows().empty());
}

void FollowWorkspace::updateStatus() {
  // Labels of follows that ended go; new follows get one.
  for (auto it = labels_.begin(); it != labels_.end();) {
    if (!controller_->followById(it.key())) {
      window_->statusBar()->removeWidget(it.value());
      it.value()->deleteLater();
      it = labels_.erase(it);
    } else {
      ++it;
    }
  }
  for (const auto& f : controller_->follows()) {
    QLabel*& label = labels_[f->id];
    if (!label) {
      label = new QLabel(window_);
      label->setObjectName(QStringLiteral("followStatus%1").arg(f->id));
      window_->statusBar()->addPermanentWidget(label);
    }
    label->setText(controller_->statusText(f->id));
    label->setToolTip(controller_->statusToolTip(f->id));
    const bool bad = controller_->diverged(f->id) || f->follower->state() != StreamFollower::State::Connected;
    label->setStyleSheet(bad ? QStringLiteral("color: #b00000") : QString());
  }
}

}  // namespace ampscope::ui
