// Lessons inside the real main window: every lesson opens and brings its panels forward, every lesson
// with a configuration trains 20 steps through the training workspace, and the lesson panel's controls
// (callouts, Next/Previous, variants, inject overflow) do what they say.
#include "ui/lessons/lesson_workspace.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QTest>
#include <QTreeWidget>
#include <memory>

#include "ampscope/engine/telemetry_store.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lesson_browser.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/lessons/panel_highlight.h"
#include "ui/lessons/step_time_plot.h"
#include "ui/main_window.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

#include "lesson_window_fixture.h"

namespace ampscope::ui {
namespace {

class LessonWindow : public test::LessonWindowFixture {
 protected:
  LessonWindow() : LessonWindowFixture(QSize(1400, 900)) {}

  // Runs `config` for `steps` steps through the workspace's controller and waits until it finishes.
  bool runSteps(RunConfig config, int64_t steps) {
    config.steps = steps;
    workspace->applyConfig(config);
    EXPECT_TRUE(workspace->runPanel()->isValid())
        << workspace->runPanel()->errorFields().join(QLatin1Char(',')).toStdString();
    RunController* run = workspace->controller();
    if (!run->start(workspace->runPanel()->config())) return false;
    const bool finished = QTest::qWaitFor(
        [&] { return run->state() == RunState::Finished || run->state() == RunState::Failed; }, 60000);
    run->drainNow();
    return finished && run->state() == RunState::Finished;
  }

};

TEST_F(LessonWindow, EveryLessonOpensAndBringsEachOfItsPanelsForward) {
  QSignalSpy missing(lessons->controller(), &LessonController::missingPanel);
  const LessonLibrary& library = lessons->library();
  ASSERT_EQ(library.size(), 12);
  for (int i = 0; i < library.size(); ++i) {
    const Lesson& lesson = library.at(i);
    SCOPED_TRACE(lesson.id.toStdString());
    ASSERT_TRUE(lessons->controller()->openIndex(i));
    EXPECT_EQ(lessons->panel()->titleLabel()->text(), lesson.title.text());
    // The first panel listed is in front after opening (others may share its dock or tab group).
    QWidget* first = lessons->panelWidget(lesson.panels.front());
    ASSERT_NE(first, nullptr);
    EXPECT_TRUE(first->isVisible()) << lesson.panels.front().toStdString();
    for (const QString& panel : lesson.panels) {
      EXPECT_TRUE(lessons->panelIds().contains(panel)) << panel.toStdString();
      QWidget* widget = lessons->panelWidget(panel);
      ASSERT_NE(widget, nullptr) << panel.toStdString();
      EXPECT_TRUE(lessons->raisePanel(panel));
      EXPECT_TRUE(widget->isVisible()) << panel.toStdString();
    }
    // The lesson's config (if any) is in the run panel, ready for Run.
    if (lesson.config) {
      EXPECT_EQ(workspace->runPanel()->config().modes, lesson.configFor(0)->modes);
      EXPECT_EQ(workspace->runPanel()->config().lr, lesson.configFor(0)->lr);
    }
  }
  EXPECT_EQ(missing.count(), 0);
}

TEST_F(LessonWindow, EveryLessonTrainsTwentyStepsInEachOfItsModes) {
  const LessonLibrary& library = lessons->library();
  int trained = 0;
  for (int i = 0; i < library.size(); ++i) {
    const Lesson& lesson = library.at(i);
    ASSERT_TRUE(lessons->controller()->openIndex(i));
    if (!lesson.config) continue;  // formats and memory: nothing to train, opening is the test
    const int variants = std::max<int>(1, static_cast<int>(lesson.variants.size()));
    for (int v = 0; v < variants; ++v) {
      SCOPED_TRACE(lesson.id.toStdString() + " variant " + std::to_string(v));
      ASSERT_TRUE(lessons->controller()->selectVariant(v) || lesson.variants.isEmpty());
      ASSERT_TRUE(runSteps(workspace->runPanel()->config(), 20))
          << workspace->controller()->lastError().toStdString();
      const TelemetryStore* store = workspace->store();
      const RunConfig expected = *lesson.configFor(v);
      for (PrecisionMode mode : expected.modes) {
        const ModeSeries* series = store->series(mode);
        ASSERT_NE(series, nullptr) << modeName(mode);
        // A mode that diverges stops early by design (and says so); every other one did all 20 steps.
        if (series->divergedAt) {
          EXPECT_LE(*series->divergedAt, 20) << modeName(mode);
        } else {
          EXPECT_EQ(series->lastStep, 20) << modeName(mode);
          EXPECT_EQ(series->stepsSeen, 20) << modeName(mode);
        }
      }
      ++trained;
    }
  }
  // 10 lessons with a config: the underflow lesson twice (AdamW eps 1e-12 and 1e-8), the clipping lesson
  // twice, the FP8 lesson five times, the precision plan lesson four times.
  EXPECT_EQ(trained, 19);
}

TEST_F(LessonWindow, ClickingACalloutRaisesAndHighlightsItsPanel) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("underflow")));
  const Lesson* lesson = lessons->controller()->currentLesson();
  const int last = static_cast<int>(lesson->callouts.size()) - 1;
  const QString panel = lesson->callouts[last].panel;
  QListWidget* list = lessons->panel()->calloutList();
  ASSERT_EQ(list->count(), lesson->callouts.size());
  QSignalSpy activated(lessons->panel(), &LessonPanel::calloutActivated);
  QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, list->visualItemRect(list->item(last)).center());
  ASSERT_EQ(activated.count(), 1);
  EXPECT_EQ(activated.at(0).at(0).toInt(), last);
  QWidget* widget = lessons->panelWidget(panel);
  ASSERT_NE(widget, nullptr);
  EXPECT_TRUE(widget->isVisible());
  EXPECT_NE(widget->findChild<PanelHighlight*>(), nullptr);
}

TEST_F(LessonWindow, AnchoredCalloutsAreDrawnInThePlotAndRemovedWithTheLesson) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("underflow")));
  // Two anchored callouts on the histogram, an arrow and a label each.
  EXPECT_EQ(lessons->controller()->plotCalloutCount(), 4);
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("memory")));
  EXPECT_EQ(lessons->controller()->plotCalloutCount(), 0);
}

// The FP8 lesson's anchored callouts each describe one variant's run ("fp8-delayed stays at 2.30 here"
// holds without scaling only): choosing a variant draws its own and removes the others'.
TEST_F(LessonWindow, AVariantDrawsOnlyTheCalloutsAnchoredInItsRun) {
  LessonController* controller = lessons->controller();
  ASSERT_TRUE(controller->openLesson(QStringLiteral("fp8-scaling")));
  const Lesson* lesson = controller->currentLesson();
  ASSERT_NE(lesson, nullptr);
  int checked = 0;
  for (int v = 0; v < lesson->variants.size(); ++v) {
    ASSERT_TRUE(controller->selectVariant(v));
    int expected = 0;
    for (const Lesson::Callout& c : lesson->callouts)
      if (c.anchor.kind != Lesson::Anchor::Kind::None && c.drawnFor(lesson->variants[v].id)) ++expected;
    EXPECT_EQ(controller->plotCalloutCount(), 2 * expected) << lesson->variants[v].id.toStdString();
    checked += expected;
  }
  // no-scaling, delayed, spike and outlier have one each; blocks has none.
  EXPECT_EQ(checked, 4);
  ASSERT_TRUE(controller->selectVariant(static_cast<int>(lesson->variants.size()) - 1));
  ASSERT_TRUE(controller->openLesson(QStringLiteral("memory")));
  EXPECT_EQ(controller->plotCalloutCount(), 0);
}

// The teacher closes a panel the lesson shows, saves the lesson's layout, and the lesson opens like that
// again: the saved arrangement wins over the lesson's own panel list (the loss dock used to come back,
// raised with the lesson's panels), a callout on the closed panel still opens it, and Reset brings
// back the lesson's own layout.
TEST_F(LessonWindow, ASavedLessonLayoutKeepsAPanelTheTeacherClosed) {
  LessonController* controller = lessons->controller();
  ASSERT_TRUE(controller->openLesson(QStringLiteral("underflow")));
  QDockWidget* loss = workspace->dock(QStringLiteral("loss"));
  QDockWidget* histogram = workspace->dock(QStringLiteral("histogram"));
  ASSERT_NE(loss, nullptr);
  ASSERT_NE(histogram, nullptr);
  ASSERT_TRUE(loss->toggleViewAction()->isChecked());
  ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
  QTest::qWait(20);  // the lesson's panels are raised once more when the window first shows
  ASSERT_TRUE(loss->close());
  QTest::qWait(20);
  ASSERT_FALSE(loss->toggleViewAction()->isChecked());
  lessons->saveLayoutAction()->trigger();
  EXPECT_TRUE(lessons->resetLayoutAction()->isEnabled());

  ASSERT_TRUE(controller->openLesson(QStringLiteral("loss-scaling")));
  EXPECT_TRUE(loss->toggleViewAction()->isChecked()) << "another lesson has its own layout";
  ASSERT_TRUE(controller->openLesson(QStringLiteral("underflow")));
  QTest::qWait(20);
  EXPECT_FALSE(loss->toggleViewAction()->isChecked()) << "the saved layout closed the loss panel";
  EXPECT_TRUE(histogram->isVisible());

  const Lesson* lesson = controller->currentLesson();
  int lossCallout = -1;
  for (int i = 0; i < lesson->callouts.size(); ++i)
    if (lesson->callouts[i].panel == QLatin1String("loss")) lossCallout = i;
  ASSERT_GE(lossCallout, 0);
  EXPECT_TRUE(controller->activateCallout(lossCallout));
  EXPECT_TRUE(loss->isVisible()) << "a callout opens the panel it is about";

  loss->close();
  lessons->resetLayoutAction()->trigger();
  QTest::qWait(20);
  EXPECT_TRUE(loss->toggleViewAction()->isChecked()) << "Reset gives the lesson's own layout";
  EXPECT_FALSE(lessons->resetLayoutAction()->isEnabled());
}

TEST_F(LessonWindow, NextAndPreviousFollowTheChapterWithCtrlPageDownAndUp) {
  LessonController* controller = lessons->controller();
  ASSERT_TRUE(controller->openIndex(0));
  EXPECT_EQ(lessons->panel()->nextAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_PageDown));
  EXPECT_EQ(lessons->panel()->previousAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_PageUp));
  lessons->panel()->nextAction()->trigger();
  EXPECT_EQ(controller->currentIndex(), 1);
  QTest::mouseClick(lessons->panel()->findChild<QPushButton*>(QStringLiteral("lessonNext")), Qt::LeftButton);
  EXPECT_EQ(controller->currentIndex(), 2);
  lessons->panel()->previousAction()->trigger();
  EXPECT_EQ(controller->currentIndex(), 1);
  // The real keys, with the focus anywhere in the window.
  window->activateWindow();
  ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
  QTest::keyClick(window.get(), Qt::Key_PageDown, Qt::ControlModifier);
  EXPECT_EQ(controller->currentIndex(), 2);
  QTest::keyClick(window.get(), Qt::Key_PageUp, Qt::ControlModifier);
  EXPECT_EQ(controller->currentIndex(), 1);
  // The ends do not wrap around.
  ASSERT_TRUE(controller->openIndex(lessons->library().size() - 1));
  EXPECT_FALSE(controller->next());
  EXPECT_FALSE(lessons->panel()->findChild<QPushButton*>(QStringLiteral("lessonNext"))->isEnabled());
}

TEST_F(LessonWindow, TheLastLessonOpenedIsWhereTheNextStartBegins) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("bf16")));
  EXPECT_EQ(LessonController::rememberedLessonId(), QStringLiteral("bf16"));
  EXPECT_TRUE(lessons->openStartLesson());
  EXPECT_EQ(lessons->controller()->currentLesson()->id, QStringLiteral("bf16"));
  EXPECT_FALSE(lessons->openStartLesson(QStringLiteral("no-such-lesson")));
}

TEST_F(LessonWindow, ChoosingAVariantLoadsItsConfiguration) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("clipping")));
  QComboBox* box = lessons->panel()->variantBox();
  ASSERT_TRUE(box->isVisible());
  ASSERT_EQ(box->count(), 2);
  EXPECT_EQ(workspace->runPanel()->config().clipOrder, ClipOrder::AfterUnscale);
  box->activated(1);
  EXPECT_EQ(workspace->runPanel()->config().clipOrder, ClipOrder::BeforeUnscale);
  EXPECT_EQ(lessons->controller()->currentVariant(), 1);
}

TEST_F(LessonWindow, InjectOverflowMakesTheScalerSkipAStepAndHalveItsScale) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("loss-scaling")));
  QPushButton* inject = lessons->panel()->injectOverflowButton();
  ASSERT_TRUE(inject->isVisible());
  RunConfig config = workspace->runPanel()->config();
  config.steps = 6;
  RunController* run = workspace->controller();
  ASSERT_TRUE(run->start(config, /*paused=*/true));
  run->stepOnce();
  run->stepOnce();
  ASSERT_TRUE(QTest::qWaitFor([&] { return run->stepsDone() == 2; }, 20000));
  run->drainNow();
  QTest::mouseClick(inject, Qt::LeftButton);
  run->stepOnce();
  const auto drainedSteps = [&] {
    run->drainNow();
    const ModeSeries* series = workspace->store()->series(PrecisionMode::FP16AmpScaled);
    return series ? series->recent.size() : 0u;
  };
  ASSERT_TRUE(QTest::qWaitFor([&] { return drainedSteps() == 3; }, 20000));
  const ModeSeries* scaled = workspace->store()->series(PrecisionMode::FP16AmpScaled);
  ASSERT_NE(scaled, nullptr);
  // torch.amp.GradScaler: a non-finite gradient skips optimizer.step(); update() multiplies the scale
  // by backoff_factor (0.5). The scale of step 4 is therefore half that of step 3.
  EXPECT_FALSE(scaled->recent[1].skipped);
  EXPECT_TRUE(scaled->recent[2].skipped);
  run->stepOnce();
  ASSERT_TRUE(QTest::qWaitFor([&] { return drainedSteps() == 4; }, 20000));
  EXPECT_EQ(scaled->recent[3].lossScale, 0.5 * scaled->recent[2].lossScale);
  run->stop();
}

TEST_F(LessonWindow, TheStepTimePlotReportsTheMeanAfterWarmUp) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("measuring")));
  RunConfig config = workspace->runPanel()->config();
  config.modes = {PrecisionMode::FP32};
  config.model = ModelKind::TinyMLP;
  ASSERT_TRUE(runSteps(config, 25));
  StepTimePlot* plot = lessons->stepTimePlot();
  plot->refresh();
  const ModeSeries* series = workspace->store()->series(PrecisionMode::FP32);
  ASSERT_NE(series, nullptr);
  double sum = 0;
  for (const ScalarPoint& p : series->recent) {
    if (p.step > StepTimePlot::kWarmupSteps) sum += p.stepTimeMs;
  }
  // The chapter's method: skip 5 warm-up steps, average the next 20.
  ASSERT_TRUE(plot->meanAfterWarmup(PrecisionMode::FP32).has_value());
  EXPECT_NEAR(*plot->meanAfterWarmup(PrecisionMode::FP32), sum / StepTimePlot::kTimedSteps, 1e-9);
}

TEST_F(LessonWindow, TheBrowserListsEveryLessonUnderItsSectionAndOpensTheChosenOne) {
  LessonBrowser browser(lessons->library(), window.get());
  QTreeWidget* tree = browser.tree();
  ASSERT_EQ(tree->topLevelItemCount(), 12);  // one section per lesson, §1..§12
  for (int i = 0; i < tree->topLevelItemCount(); ++i) {
    EXPECT_TRUE(tree->topLevelItem(i)->text(0).startsWith(QStringLiteral("§%1 ").arg(i + 1)));
    ASSERT_EQ(tree->topLevelItem(i)->childCount(), 1);
    EXPECT_EQ(tree->topLevelItem(i)->child(0)->text(0), lessons->library().at(i).title.text());
  }
  browser.setCurrentId(QStringLiteral("bf16"));
  EXPECT_EQ(browser.chosenId(), QStringLiteral("bf16"));
  browser.show();
  emit tree->itemActivated(tree->topLevelItem(7)->child(0), 0);
  EXPECT_EQ(browser.result(), QDialog::Accepted);
  EXPECT_EQ(browser.chosenId(), lessons->library().at(7).id);
}

}  // namespace
}  // namespace ampscope::ui
