// Headless training for `ampscope --steps N --screenshot FILE`: HeadlessTrainer drives the workspace to
// exactly N steps or fails with a reason, the options parse, and the built `ampscope` trains and writes
// the PNG offscreen.
#include <gtest/gtest.h>

#include <QAction>
#include <QImage>
#include <QMainWindow>
#include <QMenu>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>
#include <memory>

#include "ui/app_options.h"
#include "ui/export/headless_trainer.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/telemetry_store.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

struct Window {
  std::unique_ptr<QMainWindow> window = std::make_unique<QMainWindow>();
  QMenu* view = new QMenu(QStringLiteral("View"), window.get());
  TrainingWorkspace* workspace = new TrainingWorkspace(window.get(), view);
  Window() {
    RunConfig config = presetFor(ModelKind::TinyMLP);
    config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled};
    workspace->applyConfig(config);
    window->resize(1200, 800);
    window->show();
  }
  ~Window() { workspace->shutdown(); }
};

TEST(HeadlessTrainer, TrainsExactlyTheRequestedStepsAndFinishes) {
  Window w;
  const HeadlessTrainingResult result = HeadlessTrainer::trainSteps(*w.workspace, 15, 120000);
  ASSERT_TRUE(result.ok) << result.error.toStdString();
  EXPECT_EQ(result.stepsDone, 15);
  EXPECT_EQ(w.workspace->store()->lastStep(), 15);
  EXPECT_EQ(w.workspace->controller()->state(), RunState::Finished);
  // Both configured modes have all 15 steps.
  for (PrecisionMode mode : {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled}) {
    const ModeSeries* series = w.workspace->store()->series(mode);
    ASSERT_NE(series, nullptr);
    EXPECT_EQ(series->stepsSeen, 15);
  }
  // Training again starts from step 1.
  const HeadlessTrainingResult again = HeadlessTrainer::trainSteps(*w.workspace, 5, 120000);
  ASSERT_TRUE(again.ok) << again.error.toStdString();
  EXPECT_EQ(w.workspace->store()->lastStep(), 5);
}

TEST(HeadlessTrainer, RunningOutOfTimeStopsTheRunAndSaysHowFarItGot) {
  Window w;
  w.workspace->controller()->setMaxStepsPerSecond(20);  // 1,000,000 steps cannot finish in 300 ms
  const HeadlessTrainingResult result = HeadlessTrainer::trainSteps(*w.workspace, 1000000, 300);
  EXPECT_FALSE(result.ok);
  EXPECT_LT(result.stepsDone, 1000000);
  EXPECT_TRUE(result.error.contains(QStringLiteral("time limit"))) << result.error.toStdString();
  EXPECT_TRUE(result.error.contains(QStringLiteral("1000000")));
  EXPECT_NE(w.workspace->controller()->state(), RunState::Running);
}

TEST(HeadlessTrainer, RefusesANonPositiveStepCount) {
  Window w;
  const HeadlessTrainingResult result = HeadlessTrainer::trainSteps(*w.workspace, 0, 1000);
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.error.isEmpty());
  EXPECT_EQ(w.workspace->controller()->state(), RunState::Idle);
}

TEST(AppOptionsSteps, StepsGoWithAScreenshotAndArePositive) {
  const AppOptions ok = parseAppOptions({"ampscope", "--steps", "40", "--screenshot", "x.png"});
  ASSERT_EQ(ok.action, AppOptions::Action::Run) << ok.message.toStdString();
  EXPECT_EQ(ok.steps, 40);
  EXPECT_EQ(parseAppOptions({"ampscope", "--screenshot", "x.png"}).steps, 0);
  for (const char* bad : {"0", "-3", "ten", "1.5", "99999999999"}) {
    const AppOptions options = parseAppOptions({"ampscope", "--steps", bad, "--screenshot", "x.png"});
    EXPECT_EQ(options.action, AppOptions::Action::Error) << bad;
    EXPECT_TRUE(options.message.contains(QStringLiteral("--steps"))) << options.message.toStdString();
  }
  const AppOptions alone = parseAppOptions({"ampscope", "--steps", "10"});
  EXPECT_EQ(alone.action, AppOptions::Action::Error);
  EXPECT_TRUE(alone.message.contains(QStringLiteral("--screenshot")));
}

// Runs the built `ampscope` offscreen; returns its exit code (-1 when it did not finish in time).
int runAmpscope(const QStringList& arguments, QString* output, const QString& settingsDir) {
  QProcess process;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  // The app's settings (saved layout, last lesson, autosave) go to a throwaway folder.
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), settingsDir);
  env.insert(QStringLiteral("XDG_DATA_HOME"), settingsDir);
  process.setProcessEnvironment(env);
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(QStringLiteral(AMPSCOPE_GUI_EXE), arguments);
  if (!process.waitForFinished(180000)) {
    process.kill();
    process.waitForFinished();
    return -1;
  }
  *output = QString::fromLocal8Bit(process.readAll());
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

TEST(AmpscopeHeadless, TrainsTheStepsThenWritesTheScreenshot) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("trained.png"));
  QString output;
  const int code = runAmpscope({"--steps", "20", "--screenshot", png, "--size", "1280x860"}, &output,
                               dir.filePath(QStringLiteral("settings")));
  ASSERT_EQ(code, 0) << output.toStdString();
  const QImage image(png);
  ASSERT_FALSE(image.isNull()) << output.toStdString();
  // The window may not shrink below its panels' minimum sizes; it is never smaller than asked.
  EXPECT_GE(image.width(), 1280);
  EXPECT_GE(image.height(), 860);
  EXPECT_TRUE(output.contains(QStringLiteral("20 steps"))) << output.toStdString();
}

TEST(AmpscopeHeadless, TrainsALessonsRunThenWritesTheScreenshot) {
  // The loss-scaling lesson loads its own comparison into the run panel; --steps trains that one.
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("lesson.png"));
  QString output;
  const int code = runAmpscope({"--lesson", "loss-scaling", "--steps", "25", "--screenshot", png, "--size", "1600x1000"},
                               &output, dir.filePath(QStringLiteral("settings")));
  ASSERT_EQ(code, 0) << output.toStdString();
  EXPECT_FALSE(QImage(png).isNull());
  EXPECT_TRUE(output.contains(QStringLiteral("Trained 25 steps"))) << output.toStdString();
}

TEST(AmpscopeHeadless, StepsWithoutAScreenshotIsAUsageError) {
  QTemporaryDir dir;
  QString output;
  EXPECT_EQ(runAmpscope({"--steps", "20"}, &output, dir.path()), kExitUsageError) << output.toStdString();
}

}  // namespace
}  // namespace ampscope::ui
