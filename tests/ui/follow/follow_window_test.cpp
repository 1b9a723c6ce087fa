// Followed runs in the main window: the non-finite gradients table, File > Save and Open with followed
// runs, the Follow Run dialog's validation.
#include <gtest/gtest.h>

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QTemporaryDir>
#include <fstream>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "follow_test_support.h"
#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_dialog.h"
#include "ui/follow/follow_workspace.h"
#include "ui/follow/nonfinite_table.h"
#include "ui/main_window.h"
#include "ui/session/session_controller.h"
#include "ui/training/loss_plot.h"
#include "ui/training/run_controller.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

using test::fileTarget;
using test::header;
using test::lines;
using test::pollUntil;
using test::probeSource;
using test::probeStep;

void writeFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}


// A tensor whose scaled gradient holds `nan` NaNs and `inf` +infs among `numel` values.
TensorStats gradient(const std::string& name, int64_t numel, int64_t nan, int64_t inf) {
  TensorStats t;
  t.name = name;
  t.numel = numel;
  t.scaled.nan = nan;
  t.scaled.posInf = inf;
  t.scaled.zero = numel - nan - inf;
  t.unscaled = t.scaled;
  return t;
}

// Step 3 is skipped by the scaler: net.1.weight's gradient turned NaN first (module order), and the
// backward pass carried it on into net.0 (autograd runs back to front, the stream lists module order).
std::string poisonedStream() {
  std::string text = header(probeSource("poisoned", "00000000000000ee")) + lines(1, 2);
  ModeStep bad = probeStep(3);
  bad.skipped = true;
  bad.foundInf = true;
  bad.instrumented = true;
  bad.nonFinite = {"net.0.bias", "net.1.weight"};
  bad.tensors = {gradient("net.0.weight", 100, 0, 0), gradient("net.0.bias", 10, 10, 0),
                 gradient("net.1.weight", 50, 3, 2)};
  appendRecordStreamLine(text, bad);
  appendRecordStreamLine(text, probeStep(4));
  return text;
}

struct WindowFixture : ::testing::Test {
  void SetUp() override {
    window.setLayoutPersistence(false);
    window.show();
    follow = window.followWorkspace();
    follow->controller()->setPolling(false);
  }
  MainWindow window;
  FollowWorkspace* follow = nullptr;
  QTemporaryDir dir;
};

TEST_F(WindowFixture, TheNonFiniteTableListsThePoisonedParameterFirst) {
  const std::string path = dir.filePath(QStringLiteral("poisoned.jsonl")).toStdString();
  writeFile(path, poisonedStream());
  follow->controller()->follow(fileTarget(path));
  ASSERT_TRUE(pollUntil(*follow->controller(),
                        [&] { return !follow->controller()->runs().empty() && follow->controller()->runs()[0].steps.size() == 4; }));
  NonFiniteTable* table = follow->nonFiniteTable();
  ASSERT_EQ(table->rowCount(), 1);
  EXPECT_EQ(table->text(0, NonFiniteTable::RunColumn), QStringLiteral("poisoned"));
  EXPECT_EQ(table->text(0, NonFiniteTable::StepColumn), QStringLiteral("3"));
  EXPECT_EQ(table->text(0, NonFiniteTable::FirstColumn), QStringLiteral("net.0.bias"));
  EXPECT_EQ(table->text(0, NonFiniteTable::ParametersColumn), QStringLiteral("net.0.bias, net.1.weight"));
  EXPECT_EQ(table->text(0, NonFiniteTable::CountColumn), QStringLiteral("15"));  // 10 NaN + 3 NaN + 2 inf
  EXPECT_TRUE(window.viewMenu()->actions().contains(follow->nonFiniteDock()->toggleViewAction()));
  // Copy: a header line and the row, tab-separated.
  const QString copied = table->selectionText();
  EXPECT_TRUE(copied.startsWith(QStringLiteral("Run\t")));
  EXPECT_TRUE(copied.contains(QStringLiteral("poisoned\t")));
  EXPECT_TRUE(copied.contains(QStringLiteral("\tnet.0.bias\t")));
  // The status bar reports the follow without a dialog.
  QLabel* status = follow->statusLabel(follow->controller()->follows()[0]->id);
  ASSERT_NE(status, nullptr);
  EXPECT_TRUE(status->text().contains(QStringLiteral("4 records"))) << status->text().toStdString();
}

TEST(NonFiniteTable, WithoutTheWritersListTheTensorsInModuleOrderSayWhere) {
  NonFiniteTable table;
  ModeStep s = probeStep(7);
  s.foundInf = true;
  s.tensors = {gradient("a.weight", 4, 0, 0), gradient("b.weight", 4, 1, 0), gradient("c.weight", 4, 0, 4)};
  ModeStep clean = probeStep(8);
  table.addSteps(QStringLiteral("engine"), {s, clean});
  ASSERT_EQ(table.rowCount(), 1);
  EXPECT_EQ(table.text(0, NonFiniteTable::FirstColumn), QStringLiteral("b.weight"));
  EXPECT_EQ(table.text(0, NonFiniteTable::CountColumn), QStringLiteral("5"));
}

TEST_F(WindowFixture, SavingAndReopeningAFollowedRunGivesTheSameSteps) {
  const std::string path = dir.filePath(QStringLiteral("poisoned.jsonl")).toStdString();
  writeFile(path, poisonedStream());
  follow->controller()->follow(fileTarget(path), QStringLiteral("mine"));
  ASSERT_TRUE(pollUntil(*follow->controller(),
                        [&] { return !follow->controller()->runs().empty() && follow->controller()->runs()[0].steps.size() == 4; }));
  const QString session = dir.filePath(QStringLiteral("followed.ampscope"));
  ASSERT_TRUE(window.sessionController()->saveTo(session));

  MainWindow other;
  other.setLayoutPersistence(false);
  other.show();
  ASSERT_TRUE(other.sessionController()->openFile(session));
  const auto& runs = other.followWorkspace()->controller()->runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_FALSE(runs[0].live);
  EXPECT_TRUE(runs[0].label.contains(QStringLiteral("saved")));
  EXPECT_EQ(runs[0].source.runId, "00000000000000ee");
  const auto& before = follow->controller()->runs()[0].steps;
  ASSERT_EQ(runs[0].steps.size(), before.size());
  for (std::size_t i = 0; i < before.size(); ++i) {
    EXPECT_EQ(runs[0].steps[i].step, before[i].step);
    EXPECT_EQ(runs[0].steps[i].loss, before[i].loss);
    EXPECT_EQ(runs[0].steps[i].skipped, before[i].skipped);
    EXPECT_EQ(runs[0].steps[i].nonFinite, before[i].nonFinite);
  }
  // It plots, and its non-finite step is listed again.
  TelemetryStore* store = other.trainingWorkspace()->store();
  const SeriesKey key{runs[0].storeRun, PrecisionMode::FP16AmpScaled};
  ASSERT_NE(store->series(key), nullptr);
  EXPECT_EQ(store->series(key)->stepsSeen, 4);
  EXPECT_EQ(other.followWorkspace()->nonFiniteTable()->rowCount(), 1);
}

TEST_F(WindowFixture, AFollowedRunIsUnsavedDataClosingOffersToSave) {
  int asked = 0;
  window.sessionController()->setQuestionPrompt([&asked](const QString&, const QString&) {
    ++asked;
    return false;  // "No": close without saving
  });
  EXPECT_FALSE(window.sessionController()->isModified());
  const std::string path = dir.filePath(QStringLiteral("run.jsonl")).toStdString();
  writeFile(path, poisonedStream());
  follow->controller()->follow(fileTarget(path));
  ASSERT_TRUE(pollUntil(*follow->controller(), [&] { return !follow->controller()->runs().empty(); }));
  EXPECT_TRUE(window.sessionController()->isModified()) << "a TCP stream's data exists nowhere else";
  EXPECT_TRUE(window.sessionController()->confirmClose());
  EXPECT_EQ(asked, 1);

  // Saved, and opened again: nothing unsaved until new data arrives.
  const QString session = dir.filePath(QStringLiteral("followed.ampscope"));
  ASSERT_TRUE(window.sessionController()->saveTo(session));
  EXPECT_FALSE(window.sessionController()->isModified());
  ASSERT_TRUE(window.sessionController()->openFile(session));
  EXPECT_FALSE(window.sessionController()->isModified());
  EXPECT_TRUE(window.sessionController()->confirmClose());
  EXPECT_EQ(asked, 1);
}

TEST_F(WindowFixture, FollowingARunShowsTheTrainingPlotsALessonHid) {
  QDockWidget* loss = window.trainingWorkspace()->dock(QStringLiteral("loss"));
  QDockWidget* histogram = window.trainingWorkspace()->dock(QStringLiteral("histogram"));
  ASSERT_TRUE(loss && histogram);
  loss->hide();  // as the number-format lessons' layout leaves them
  histogram->hide();
  FollowDialog* dialog = follow->showFollowDialog();
  dialog->setTargetText(dir.filePath(QStringLiteral("run.jsonl")));
  ASSERT_TRUE(dialog->acceptable());
  dialog->accept();
  EXPECT_EQ(follow->controller()->follows().size(), 1u);
  EXPECT_TRUE(loss->isVisible());
  EXPECT_TRUE(histogram->isVisible());
}

// What the dialog does once accepted, without the dialog (a stream given on the command line): two
// streams overlay as two follows, and the plots a lesson hid come back.
// A session (or a crash's journal) that brings followed runs back shows them, as following does, even
// where a lesson's layout had hidden the plots.
TEST_F(WindowFixture, ASessionWithFollowedRunsShowsThePlots) {
  const std::string a = dir.filePath(QStringLiteral("a.jsonl")).toStdString();
  writeFile(a, header(probeSource("run-a", "00000000000000f1")) + lines(1, 6));
  follow->follow(fileTarget(a));
  FollowController* controller = follow->controller();
  ASSERT_TRUE(pollUntil(*controller, [controller] {
    return !controller->followedRuns().empty() && controller->followedRuns()[0].steps.size() == 6;
  }));
  Session session;
  session.followed = controller->followedRuns();
  QDockWidget* loss = window.trainingWorkspace()->dock(QStringLiteral("loss"));
  ASSERT_TRUE(loss);
  loss->hide();
  window.sessionController()->loadHandler()(session);
  EXPECT_TRUE(loss->isVisible());
  loss->hide();
  window.sessionController()->loadHandler()(Session{});  // nothing followed: the layout stays
  EXPECT_FALSE(loss->isVisible());
}

TEST_F(WindowFixture, FollowingWithoutTheDialogDoesWhatTheDialogDoes) {
  QDockWidget* loss = window.trainingWorkspace()->dock(QStringLiteral("loss"));
  ASSERT_TRUE(loss);
  loss->hide();
  const std::string a = dir.filePath(QStringLiteral("a.jsonl")).toStdString();
  const std::string b = dir.filePath(QStringLiteral("b.jsonl")).toStdString();
  writeFile(a, header(probeSource("run-a", "00000000000000f1")) + lines(1, 6));
  writeFile(b, header(probeSource("run-b", "00000000000000f2")) + lines(1, 4));
  int started = 0;
  QObject::connect(follow, &FollowWorkspace::followStarted, [&started] { ++started; });
  const int first = follow->follow(fileTarget(a));
  const int second = follow->follow(fileTarget(b), QStringLiteral("labelled"));
  EXPECT_NE(first, second);
  EXPECT_EQ(started, 2);
  EXPECT_TRUE(loss->isVisible());
  FollowController* controller = follow->controller();
  ASSERT_TRUE(pollUntil(*controller, [controller] { return controller->runs().size() == 2; }));
  EXPECT_EQ(controller->runs()[0].label, QStringLiteral("run-a"));
  EXPECT_EQ(controller->runs()[1].label, QStringLiteral("labelled"));
}

TEST(FollowDialog, RefusesBadTargetsWithTheMessageAndAcceptsGoodOnes) {
  FollowDialog dialog;
  EXPECT_FALSE(dialog.acceptable());  // empty
  for (const char* bad : {"127.0.0.1:70000", "localhost:0"}) {
    dialog.setTargetText(QString::fromLatin1(bad));
    std::string expected;
    ASSERT_FALSE(parseFollowTarget(bad, &expected).has_value()) << bad;
    EXPECT_FALSE(dialog.acceptable()) << bad;
    EXPECT_TRUE(dialog.errorText().contains(QString::fromStdString(expected))) << dialog.errorText().toStdString();
  }
  QTemporaryDir dir;
  dialog.setTargetText(dir.path());  // a folder is not a stream
  EXPECT_FALSE(dialog.acceptable());
  EXPECT_FALSE(dialog.errorText().isEmpty());
  dialog.setTargetText(QStringLiteral("127.0.0.1:5000"));
  EXPECT_TRUE(dialog.acceptable());
  EXPECT_TRUE(dialog.errorText().isEmpty());
  ASSERT_TRUE(dialog.target().has_value());
  EXPECT_EQ(dialog.target()->kind, FollowTarget::Kind::Tcp);
  EXPECT_EQ(dialog.target()->port, 5000);
  dialog.setTargetText(dir.filePath(QStringLiteral("run.jsonl")));  // not there yet: waited for
  EXPECT_TRUE(dialog.acceptable());
}

TEST_F(WindowFixture, FileMenuHasFollowRunWithItsShortcut) {
  QAction* action = follow->followAction();
  EXPECT_EQ(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+F")));
  EXPECT_TRUE(window.fileMenu()->actions().contains(action));
  EXPECT_FALSE(follow->stopMenu()->isEnabled());
  const std::string path = dir.filePath(QStringLiteral("a.jsonl")).toStdString();
  writeFile(path, header(probeSource("a", "00000000000000a1")) + lines(1, 2));
  const int id = follow->controller()->follow(fileTarget(path));
  EXPECT_TRUE(follow->stopMenu()->isEnabled());
  follow->controller()->stop(id);
  EXPECT_FALSE(follow->stopMenu()->isEnabled());
  EXPECT_EQ(follow->statusLabel(id), nullptr);
}

}  // namespace
}  // namespace ampscope::ui
