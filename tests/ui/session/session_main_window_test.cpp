// The session commands wired into the main window: a real training run is recorded, saved, and opened
// in a fresh window, whose plots' store then holds the same steps without training.
#include <gtest/gtest.h>

#include <QAction>
#include <QFileInfo>
#include <QMenu>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "ampscope/engine/telemetry_store.h"
#include "ui/main_window.h"
#include "ui/session/session_controller.h"
#include "ui/training/run_controller.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

RunConfig shortRun() {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp};
  config.steps = 12;
  config.instrumentEvery = 4;
  return config;
}

bool waitUntilFinished(RunController* run) {
  for (int i = 0; i < 600 && run->state() != RunState::Finished; ++i) QTest::qWait(50);
  run->drainNow();
  return run->state() == RunState::Finished;
}

TEST(SessionMainWindow, FileMenuHasTheSessionCommandsBeforeQuit) {
  MainWindow window;
  window.setLayoutPersistence(false);
  SessionController* session = window.sessionController();
  ASSERT_NE(session, nullptr);
  const auto actions = window.fileMenu()->actions();
  EXPECT_TRUE(actions.contains(session->openAction()));
  EXPECT_TRUE(actions.contains(session->saveAction()));
  EXPECT_TRUE(actions.contains(session->reproduceAction()));
  EXPECT_EQ(actions.last()->objectName(), QStringLiteral("quitAction"));
}

TEST(SessionMainWindow, ARecordedRunSavedAndOpenedReappearsWithoutTraining) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("run.ampscope"));
  {
    MainWindow window;
    window.setLayoutPersistence(false);
    RunController* run = window.trainingWorkspace()->controller();
    ASSERT_TRUE(run->start(shortRun()));
    ASSERT_TRUE(waitUntilFinished(run));
    SessionController* session = window.sessionController();
    ASSERT_EQ(session->recorder()->lastStep(), 12);
    EXPECT_TRUE(session->isModified());
    ASSERT_TRUE(session->saveTo(path));
    window.close();
  }
  MainWindow window;
  window.setLayoutPersistence(false);
  ASSERT_TRUE(window.sessionController()->openFile(path));
  RunController* run = window.trainingWorkspace()->controller();
  EXPECT_NE(run->state(), RunState::Running) << "opening a session does not train";
  const TelemetryStore* store = run->store();
  EXPECT_EQ(store->lastStep(), 12);
  ASSERT_EQ(store->modes().size(), 2u);
  const ModeSeries* fp32 = store->series(PrecisionMode::FP32);
  ASSERT_NE(fp32, nullptr);
  EXPECT_EQ(fp32->stepsSeen, 12);
  EXPECT_FALSE(fp32->latestTensors.empty()) << "histograms of the instrumented steps came back";
  EXPECT_EQ(window.sessionController()->currentPath(), path);
  EXPECT_TRUE(window.windowTitle().startsWith(QStringLiteral("run.ampscope")))
      << window.windowTitle().toStdString();
}

TEST(SessionMainWindow, ClosingTheWindowRemovesTheJournalOfItsRun) {
  const QString journal = [] {
    MainWindow window;
    window.setLayoutPersistence(false);
    RunController* run = window.trainingWorkspace()->controller();
    EXPECT_TRUE(run->start(shortRun()));
    EXPECT_TRUE(waitUntilFinished(run));
    AutosaveManager* autosave = window.sessionController()->autosave();
    // Records drained after the run stopped reach the journal on the next flush, within an interval.
    for (int i = 0; i < 60 && !autosave->hasRecoverableSession(); ++i) QTest::qWait(50);
    autosave->waitForWrite();
    EXPECT_TRUE(autosave->hasRecoverableSession()) << "the run was journaled";
    window.close();  // a clean exit: the next start must not offer a restore
    EXPECT_FALSE(autosave->hasRecoverableSession());
    return autosave->path();
  }();
  EXPECT_FALSE(QFileInfo::exists(journal)) << journal.toStdString();
}

}  // namespace
}  // namespace ampscope::ui
