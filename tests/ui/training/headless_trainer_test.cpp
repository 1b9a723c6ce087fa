// HeadlessTrainer (for `ampscope --steps N --screenshot FILE`): drives the workspace to exactly N steps
// or fails with a reason.
#include <gtest/gtest.h>

#include <QMainWindow>
#include <QMenu>
#include <memory>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/headless_trainer.h"
#include "ui/training/run_controller.h"
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

}  // namespace
}  // namespace ampscope::ui
