// The lesson panel's "what to look for" items show their claims' states live (the engine's
// LessonClaimEvaluator fed with the run's records): waiting, holds since step N, held N..M, does not hold,
// with the observed number against the claim's. Editing the configuration re-arms the checks, and a
// configuration change can make a claim false: the clipping lesson's points are trained for real here
// (tiny-mlp, a few seconds) with the lesson's configuration and with a changed one.
#include <gtest/gtest.h>

#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSignalSpy>
#include <QComboBox>
#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <memory>

#include "ampscope/engine/lesson_claim_evaluator.h"
#include "ui/lessons/lesson.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/lessons/lesson_workspace.h"
#include "ui/main_window.h"
#include "ui/session/session_controller.h"
#include "ui/session/session_file.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

#include "lesson_window_fixture.h"

namespace ampscope::ui {
namespace {

class LessonClaimsLive : public test::LessonWindowFixture {
 protected:
  LessonClaimsLive() : LessonWindowFixture(QSize(1280, 720)) {}

  QListWidgetItem* item(int index) const { return lessons->panel()->calloutList()->item(index); }
  QString status(int index) const { return item(index)->data(LessonPanel::kClaimStatusRole).toString(); }

  // Trains `config` to its end through the window's run controller, as pressing Run does.
  bool train(const RunConfig& config) {
    workspace->applyConfig(config);
    EXPECT_TRUE(workspace->runPanel()->isValid());
    RunController* run = workspace->controller();
    // The window learns that the run finished from stateChanged (queued from the training thread, after
    // the last records): the claims are decided then, so wait for the signal, not for the runner's state.
    QSignalSpy states(run, &RunController::stateChanged);
    if (!run->start(workspace->runPanel()->config())) return false;
    return QTest::qWaitFor(
        [&] {
          for (const QList<QVariant>& args : states)
            if (args.at(0).value<RunState>() == RunState::Finished) return true;
          return false;
        },
        120000);
  }

};

ModeStep scaledStep(int64_t step, double scale) {
  ModeStep m;
  m.mode = PrecisionMode::FP16AmpScaled;
  m.step = step;
  m.loss = 1;
  m.lossScale = scale;
  return m;
}

std::vector<StepRecord> steps(int64_t first, int64_t last, double scale) {
  std::vector<StepRecord> records;
  for (int64_t step = first; step <= last; ++step) {
    StepRecord r;
    r.step = step;
    ModeStep fp32 = scaledStep(step, 1);
    fp32.mode = PrecisionMode::FP32;
    ModeStep amp = scaledStep(step, scale);
    r.modes = {fp32, amp};
    ModeStep plain = scaledStep(step, 1);
    plain.mode = PrecisionMode::FP16Amp;
    r.modes.push_back(plain);
    records.push_back(r);
  }
  return records;
}

// loss-scaling's item ①: the scale is 65536 at step 1 and 131072 at step 11 (PyTorch's GradScaler with
// init 2^16, growth 2, interval 10). Records are made here, so the states follow them exactly.
TEST_F(LessonClaimsLive, ItemsShowTheirStatesAsRecordsArriveAndAnEditReArmsThem) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("loss-scaling")));
  EXPECT_EQ(status(0), QStringLiteral("waiting"));
  EXPECT_TRUE(item(0)->text().contains(QStringLiteral("not measured yet"))) << item(0)->text().toStdString();
  EXPECT_TRUE(status(3).isEmpty()) << "the inject-overflow item states no fact about the run";

  lessons->controller()->observeRecords(steps(1, 10, 65536));
  EXPECT_EQ(status(0), QStringLiteral("waiting"));  // step 11 decides
  lessons->controller()->observeRecords(steps(11, 11, 131072));
  EXPECT_EQ(status(0), QStringLiteral("holds"));
  EXPECT_TRUE(item(0)->text().contains(QStringLiteral("holds since step 11"))) << item(0)->text().toStdString();
  EXPECT_TRUE(item(0)->toolTip().contains(QStringLiteral("131072"))) << item(0)->toolTip().toStdString();
  EXPECT_TRUE(lessons->panel()->questionLabel()->isVisibleTo(lessons->panel()));
  EXPECT_TRUE(lessons->panel()->questionLabel()->text().contains(QStringLiteral("600 steps")));
  EXPECT_TRUE(lessons->panel()->lookForLabel()->text().contains(QStringLiteral("1 of 3 hold now")))
      << lessons->panel()->lookForLabel()->text().toStdString();

  // The teacher edits the configuration: every check starts again, against it.
  workspace->runPanel()->field(QStringLiteral("lr"))->setText(QStringLiteral("0.002"));
  EXPECT_EQ(status(0), QStringLiteral("waiting"));
  EXPECT_TRUE(lessons->panel()->lookForLabel()->text().contains(QStringLiteral("0 of 3 hold now")));
}

TEST_F(LessonClaimsLive, AChangedConfigurationThatDropsAModeLeavesItsClaimsUnchecked) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("underflow")));
  EXPECT_EQ(status(3), QStringLiteral("waiting"));  // fp16-amp falls behind the other three
  RunConfig config = workspace->runPanel()->config();
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp};
  workspace->applyConfig(config);
  EXPECT_EQ(status(3), QStringLiteral("unchecked"));
  EXPECT_TRUE(item(3)->text().contains(QStringLiteral("does not train fp16-amp"))) << item(3)->text().toStdString();
}

// Held, then not: a scale that grows breaks "the scale stays 65536" (clipping's item ④).
TEST_F(LessonClaimsLive, AClaimThatHeldAndStoppedSaysFromWhenToWhen) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("clipping")));
  const int scaleItem = 3;
  lessons->controller()->observeRecords(steps(1, 5, 65536));
  EXPECT_EQ(status(scaleItem), QStringLiteral("holds"));
  EXPECT_TRUE(item(scaleItem)->text().contains(QStringLiteral("holds since step 1")));
  lessons->controller()->observeRecords(steps(6, 6, 131072));
  EXPECT_EQ(status(scaleItem), QStringLiteral("held-before"));
  EXPECT_TRUE(item(scaleItem)->text().contains(QStringLiteral("held from step 1 to 5, not now")))
      << item(scaleItem)->text().toStdString();
  // Item ①'s clip norm at step 1 was 0 in these records, not about 1.5: decided at once.
  EXPECT_EQ(status(0), QStringLiteral("fails"));
}

// The brief's "what if we use AdamW?": in the wrong-order variant, SGD shows the clipped update (the
// scaled model hardly learns, item ③); AdamW normalises the update, so the same claim does not hold.
TEST_F(LessonClaimsLive, AConfigurationChangeMakesTheLessonsClaimFalse) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("clipping")));
  ASSERT_TRUE(lessons->controller()->selectVariant(1));  // before-unscale
  const Lesson* lesson = lessons->controller()->currentLesson();
  RunConfig config = *lesson->configFor(1);
  config.steps = 160;
  ASSERT_TRUE(train(config));
  EXPECT_EQ(status(2), QStringLiteral("holds")) << item(2)->toolTip().toStdString();
  EXPECT_EQ(status(1), QStringLiteral("holds")) << item(1)->toolTip().toStdString();

  config.optimizer = OptimizerKind::AdamW;
  config.lr = 1e-3;
  ASSERT_TRUE(train(config));
  EXPECT_EQ(status(2), QStringLiteral("fails")) << item(2)->toolTip().toStdString();
  EXPECT_TRUE(item(2)->text().contains(QStringLiteral("does not hold"))) << item(2)->text().toStdString();
  EXPECT_EQ(status(1), QStringLiteral("holds")) << "the clip still sees the scaled norm";
}

// Screenshots and exports draw the window's widgets: the states are the list's own text, inside the
// lesson dock, which a window grab contains. A claim still waiting when the run ends does not hold.
TEST_F(LessonClaimsLive, TheStatesAreInTheLessonDockAndTheRunsEndDecidesTheWaitingOnes) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("loss-scaling")));
  lessons->controller()->observeRecords(steps(1, 11, 65536));  // no growth at step 11: ① does not hold
  EXPECT_EQ(status(0), QStringLiteral("fails"));
  EXPECT_TRUE(item(0)->text().contains(QStringLiteral("does not hold"))) << item(0)->text().toStdString();
  EXPECT_EQ(status(1), QStringLiteral("waiting"));  // no step skipped yet
  lessons->controller()->runFinished();
  EXPECT_EQ(status(1), QStringLiteral("fails"));
  QListWidget* list = lessons->panel()->calloutList();
  ASSERT_TRUE(list->isVisible());
  const QRect inWindow(list->mapTo(window.get(), QPoint(0, 0)), list->size());
  EXPECT_TRUE(window->rect().contains(inWindow.center()));
  EXPECT_FALSE(window->grab().isNull());
}

// The bf16 lesson's steps, made here: fp32 and bf16-amp at loss 1, fp16-amp at 2.3 and, from step
// `explodesAt` on, 100; every step instrumented, with 5 values flushed to zero by fp16-amp and none by
// bf16-amp.
std::vector<StepRecord> bf16Steps(int64_t first, int64_t last, int64_t explodesAt) {
  std::vector<StepRecord> records;
  for (int64_t step = first; step <= last; ++step) {
    StepRecord r;
    r.step = step;
    for (PrecisionMode mode : {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::BF16Amp}) {
      ModeStep m;
      m.mode = mode;
      m.step = step;
      m.loss = mode != PrecisionMode::FP16Amp ? 1.0 : step >= explodesAt ? 100.0 : 2.3;
      m.instrumented = true;
      m.rounding.flushedToZero = mode == PrecisionMode::FP16Amp ? 5 : 0;
      r.modes.push_back(m);
    }
    records.push_back(r);
  }
  return records;
}

// The question is answered item by item: each answering item's number and state under it, "answered at
// step N" once every claim holds, from the step the last of them came true. The bf16 lesson's claims
// (resources/lessons/bf16.json; loss windows of 20 steps by default, docs/lesson-claims.md): ① needs 20
// steps of each loss, so it holds from step 20; ② from step 1; ⑤ reads fp16-amp's loss at step 320
// (2.3 <= 2.4) and then needs the mean of its last 20 losses >= 10: with 100 from step 321 that mean is
// (19 x 2.3 + 100) / 20 = 7.19 at step 321 and (18 x 2.3 + 200) / 20 = 12.07 at step 322. Answered at 322.
TEST_F(LessonClaimsLive, TheQuestionIsAnsweredAtTheStepItsLastClaimCameTrue) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("bf16")));
  QLabel* answer = lessons->panel()->answerLabel();
  ASSERT_TRUE(answer->isVisibleTo(lessons->panel())) << "asked before Run";
  EXPECT_EQ(answer->property("verdict").toString(), QStringLiteral("pending"));
  EXPECT_EQ(answer->text(), QStringLiteral("Not answered yet: ① …  ② …  ⑤ …")) << answer->text().toStdString();

  lessons->controller()->observeRecords(bf16Steps(1, 19, 321));
  EXPECT_EQ(answer->text(), QStringLiteral("Not answered yet: ① …  ② ✓  ⑤ …")) << answer->text().toStdString();
  lessons->controller()->observeRecords(bf16Steps(20, 321, 321));
  EXPECT_EQ(status(0), QStringLiteral("holds"));
  EXPECT_EQ(answer->property("verdict").toString(), QStringLiteral("pending"));
  lessons->controller()->observeRecords(bf16Steps(322, 322, 321));
  EXPECT_EQ(answer->property("verdict").toString(), QStringLiteral("answered"));
  EXPECT_EQ(answer->text(), QStringLiteral("Answered at step 322: ① ✓  ② ✓  ⑤ ✓")) << answer->text().toStdString();
  // It stays answered to the end of the run.
  lessons->controller()->observeRecords(bf16Steps(323, 400, 321));
  lessons->controller()->runFinished();
  EXPECT_EQ(answer->text(), QStringLiteral("Answered at step 322: ① ✓  ② ✓  ⑤ ✓")) << answer->text().toStdString();
}

// A configuration in which fp16-amp never explodes: ⑤ has not held by its "by-step" 400, so the question
// is not answered in this configuration, and the item that says so is named.
TEST_F(LessonClaimsLive, AClaimThatFailsLeavesTheQuestionNotAnsweredInThisConfiguration) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("bf16")));
  QLabel* answer = lessons->panel()->answerLabel();
  lessons->controller()->observeRecords(bf16Steps(1, 399, 1000));
  EXPECT_EQ(answer->property("verdict").toString(), QStringLiteral("pending"));
  lessons->controller()->observeRecords(bf16Steps(400, 400, 1000));
  EXPECT_EQ(status(4), QStringLiteral("fails"));
  EXPECT_EQ(answer->property("verdict").toString(), QStringLiteral("not-answered"));
  EXPECT_EQ(answer->text(), QStringLiteral("Not answered in this configuration: ① ✓  ② ✓  ⑤ ✗"))
      << answer->text().toStdString();
  // A run dropping a mode a claim names cannot answer it either: its claims are not checked.
  RunConfig config = workspace->runPanel()->config();
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp};
  workspace->applyConfig(config);
  EXPECT_EQ(answer->property("verdict").toString(), QStringLiteral("not-answered"));
  EXPECT_TRUE(answer->text().contains(QStringLiteral("① –"))) << answer->text().toStdString();
}

// Opening a saved session of a lesson run (File > Open, and a crash's autosave, go through the same
// load handler) shows the claim states and the answer the live run had: the evaluator is fed with the
// session's records.
TEST_F(LessonClaimsLive, ASavedSessionShowsTheStatesItsLiveRunHad) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("bf16")));
  const Lesson* lesson = lessons->controller()->currentLesson();
  const std::vector<StepRecord> run = bf16Steps(1, 400, 321);
  lessons->controller()->observeRecords(run);
  lessons->controller()->runFinished();
  QStringList live;
  for (int i = 0; i < lesson->callouts.size(); ++i) live << status(i) + QLatin1Char('|') + item(i)->text();
  const QString liveAnswer = lessons->panel()->answerLabel()->text();
  ASSERT_EQ(status(0), QStringLiteral("holds"));
  ASSERT_EQ(status(4), QStringLiteral("holds"));

  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("bf16.ampscope"));
  QString error;
  ASSERT_TRUE(SessionFile::save(path, Session{*lesson->configFor(0), lesson->id, run, {}}, &error))
      << error.toStdString();

  // The lesson opens afresh (as the app does for a session's lesson): every check waits again.
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("bf16")));
  ASSERT_EQ(status(0), QStringLiteral("waiting"));
  ASSERT_TRUE(window->sessionController()->openFile(path, &error)) << error.toStdString();
  QTest::qWait(50);  // anything the window queued while showing the session
  QStringList replayed;
  for (int i = 0; i < lesson->callouts.size(); ++i) replayed << status(i) + QLatin1Char('|') + item(i)->text();
  EXPECT_EQ(replayed, live);
  EXPECT_EQ(lessons->panel()->answerLabel()->text(), liveAnswer);
  EXPECT_EQ(lessons->panel()->answerLabel()->text(), QStringLiteral("Answered at step 322: ① ✓  ② ✓  ⑤ ✓"));
}

// A session keeps the configuration, not the variant: the variant whose configuration it is gets chosen,
// so the claims of that variant are the ones checked (the clipping lesson's before-unscale run).
TEST_F(LessonClaimsLive, ASavedSessionChoosesTheVariantItsConfigurationIs) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("clipping")));
  const Lesson* lesson = lessons->controller()->currentLesson();
  EXPECT_EQ(status(1), QString()) << "item ② is checked in the before-unscale run only";
  QTemporaryDir dir;
  ASSERT_TRUE(dir.isValid());
  const QString path = dir.filePath(QStringLiteral("clipping.ampscope"));
  QString error;
  // The run's own modes only (a session's records name the modes its configuration trains).
  std::vector<StepRecord> records = steps(1, 5, 65536);
  for (StepRecord& record : records)
    record.modes.erase(std::remove_if(record.modes.begin(), record.modes.end(),
                                      [](const ModeStep& m) { return m.mode == PrecisionMode::FP16Amp; }),
                       record.modes.end());
  ASSERT_TRUE(SessionFile::save(path, Session{*lesson->configFor(1), lesson->id, records, {}}, &error))
      << error.toStdString();
  ASSERT_TRUE(window->sessionController()->openFile(path, &error)) << error.toStdString();
  QTest::qWait(50);
  EXPECT_EQ(lessons->controller()->currentVariant(), 1);
  EXPECT_EQ(lessons->panel()->variantBox()->currentIndex(), 1);
  // Its clip norm at step 1 was 0 in these records, not 65536 times the true norm: decided at once.
  EXPECT_EQ(status(1), QStringLiteral("fails"));
  EXPECT_EQ(status(3), QStringLiteral("holds")) << "the scale stayed 65536 and no step was skipped";
  EXPECT_TRUE(item(3)->text().contains(QStringLiteral("holds since step 1"))) << item(3)->text().toStdString();
}

// A lesson without a question shows no answer.
TEST_F(LessonClaimsLive, ALessonWithoutAQuestionShowsNoAnswer) {
  ASSERT_TRUE(lessons->controller()->openLesson(QStringLiteral("measuring")));
  EXPECT_FALSE(lessons->panel()->answerLabel()->isVisibleTo(lessons->panel()));
}

}  // namespace
}  // namespace ampscope::ui
