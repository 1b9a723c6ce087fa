#include "ui/training/headless_trainer.h"

#include <QApplication>
#include <QDialog>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QMessageBox>
#include <QTimer>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::HeadlessTrainer", text); }

// How often the wait looks for a finished run or a dialog that would block it.
constexpr int kPollMs = 50;

bool finishedState(RunState state) { return state == RunState::Finished || state == RunState::Failed; }

}  // namespace

HeadlessTrainingResult HeadlessTrainer::trainSteps(TrainingWorkspace& workspace, int64_t steps, int timeoutMs) {
  HeadlessTrainingResult result;
  if (steps <= 0) {
    result.error = tr("The number of steps must be positive (got %1).").arg(steps);
    return result;
  }
  RunController* controller = workspace.controller();
  if (controller->isActive()) workspace.reset();  // the run panel is read-only while a run is active
  RunPanel* panel = workspace.runPanel();
  if (!panel->isValid()) {
    result.error = tr("The run panel's configuration is not valid; fix it before training.");
    return result;
  }
  RunConfig config = panel->config();
  config.steps = steps;
  workspace.applyConfig(config);
  if (!panel->isValid() || panel->config().steps != steps) {
    result.error = tr("The run panel does not accept %1 steps.").arg(steps);
    return result;
  }

  QString modalText;
  QEventLoop loop;
  QTimer poll;
  poll.setInterval(kPollMs);
  QObject::connect(&poll, &QTimer::timeout, &loop, [&] {
    // A dialog (e.g. "Training failed") would wait forever for a click nobody can make: note what it
    // says, close it and stop waiting.
    if (QWidget* modal = QApplication::activeModalWidget()) {
      auto* box = qobject_cast<QMessageBox*>(modal);
      modalText = box ? box->text() : modal->windowTitle();
      if (auto* dialog = qobject_cast<QDialog*>(modal)) dialog->reject();
      else modal->close();
      loop.quit();
      return;
    }
    if (finishedState(controller->state()) || controller->store()->lastStep() >= steps) loop.quit();
  });
  QTimer deadline;
  deadline.setSingleShot(true);
  QObject::connect(&deadline, &QTimer::timeout, &loop, &QEventLoop::quit);

  QElapsedTimer clock;
  clock.start();
  workspace.runOrPause();
  if (controller->state() == RunState::Idle || controller->state() == RunState::Failed) {
    result.error = tr("Training could not start: %1").arg(controller->lastError());
    return result;
  }
  poll.start();
  deadline.start(timeoutMs);
  loop.exec();
  poll.stop();

  // Wait for the runner to reach Finished on its own (it stops at config.steps) unless time is up, so
  // the end-of-run refreshes (memory ledger) happen as they do on screen.
  while (!finishedState(controller->state()) && modalText.isEmpty() && clock.elapsed() < timeoutMs)
    QApplication::processEvents(QEventLoop::AllEvents, kPollMs);
  controller->drainNow();
  result.stepsDone = controller->store()->lastStep();

  if (!modalText.isEmpty()) {
    workspace.stop();
    result.error = tr("Training stopped at step %1: %2").arg(result.stepsDone).arg(modalText);
    return result;
  }
  if (controller->state() == RunState::Failed) {
    result.error = tr("Training failed at step %1: %2").arg(result.stepsDone).arg(controller->lastError());
    return result;
  }
  if (result.stepsDone < steps) {
    workspace.stop();
    result.error = tr("Training reached step %1 of %2 within the %3 s time limit; stopped.")
                       .arg(result.stepsDone)
                       .arg(steps)
                       .arg(timeoutMs / 1000.0);
    return result;
  }
  result.ok = true;
  return result;
}

}  // namespace ampscope::ui
