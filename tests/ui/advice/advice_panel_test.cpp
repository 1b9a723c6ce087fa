// The advice panel (Analysis > Precision Advice…) against the CLI it must agree with: a deep MLP trained
// by the engine in the window in FP32 beside FP16 autocast without a GradScaler (the underflow lesson's
// preset, loss weight 1e-5: its gradients flush in FP16, docs/advice.md "FP16 without a scaler"), and
// small probe streams built as a probe builds them (probe_record_builder.h). Expected verdicts, reports
// and plan files are the built ampscope-cli's own output on the same file, never written here.
#include <gtest/gtest.h>

#include <QAction>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QGuiApplication>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/session_codec.h"
#include "cli_runner.h"
#include "probe_record_builder.h"
#include "ui/advice/advice_panel.h"
#include "ui/advice/evidence_table_model.h"
#include "ui/main_window.h"
#include "ui/session/session_controller.h"
#include "ampscope/engine/precision_plan.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

using testing::CliResult;
using testing::CliRunner;
using testing::tensorOf;

// The report tab against the CLI's stdout: the same lines (a text view keeps no final newline apart).
std::string withoutFinalNewline(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

std::string readFile(const QString& path) {
  std::ifstream in(path.toStdString(), std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void writeFile(const QString& path, const std::string& text) {
  std::ofstream out(path.toStdString(), std::ios::binary | std::ios::trunc);
  out << text;
}

CliResult cli(const std::vector<std::string>& args) {
  return CliRunner().setEnvironment({"AMPSCOPE_CACHE_DIR=" + QDir::tempPath().toStdString() + "/ampscope-advice-test-cache"})
      .setTimeoutSeconds(300)
      .run(args);
}

StreamSource probeSource() {
  StreamSource source;
  source.source = "probe";
  source.run = "advice-panel-test";
  source.runId = "00112233445566ff";
  source.device = "cpu";
  source.torch = "1.13";
  source.every = 1;
  source.parameters = {"net.0.weight", "net.2.weight"};
  return source;
}

std::string probeStream(int steps, int flushing) {
  std::string text = probeStreamHeader(probeSource(), "advice panel test");
  for (int i = 1; i <= steps; ++i) appendRecordStreamLine(text, testing::flushingProbeStep(i, flushing));
  return text;
}

// The panel's verdict per (layer, role, format), read from its table as shown.
std::map<std::tuple<std::string, std::string, std::string>, QString> shownVerdicts(const AdvicePanel& panel) {
  std::map<std::tuple<std::string, std::string, std::string>, QString> verdicts;
  const QAbstractItemModel* m = panel.sortedEvidence();
  for (int r = 0; r < m->rowCount(); ++r) {
    const auto text = [&](int c) { return m->index(r, c).data().toString(); };
    verdicts[{text(EvidenceTableModel::LayerColumn).toStdString(), text(EvidenceTableModel::RoleColumn).toStdString(),
              text(EvidenceTableModel::FormatColumn).toStdString()}] = text(EvidenceTableModel::VerdictColumn);
  }
  return verdicts;
}

// The CLI's verdicts (advise --json), in the words the panel shows them in.
std::map<std::tuple<std::string, std::string, std::string>, QString> cliVerdicts(const std::string& json) {
  JsonParseError error;
  const auto doc = parseJson(json, &error);
  EXPECT_TRUE(doc) << error.message;
  std::map<std::tuple<std::string, std::string, std::string>, QString> verdicts;
  if (!doc) return verdicts;
  const std::map<std::string, Verdict> byKey = {{"ok", Verdict::Ok},
                                                {"caution", Verdict::Caution},
                                                {"unsafe", Verdict::Unsafe},
                                                {"too-few-steps", Verdict::TooFewSteps}};
  for (const auto& e : doc->find("evidence")->items()) {
    verdicts[{e.find("layer")->string(), e.find("role")->string(), e.find("format")->string()}] =
        EvidenceTableModel::verdictText(byKey.at(e.find("verdict")->string()));
  }
  return verdicts;
}

// Dialog hooks that record what was asked and answer as told.
struct Answers {
  QString path;
  bool replace = false;
  int questions = 0;
  QStringList errors;
  QStringList infos;
  void install(AdvicePanel& panel) {
    panel.setPathPrompt([this](bool, const QString&) { return path; });
    panel.setQuestionPrompt([this](const QString&, const QString&) {
      ++questions;
      return replace;
    });
    panel.setMessageSink([this](const QString&, const QString& text, bool error) {
      (error ? errors : infos) << text;
    });
  }
};

// The engine trains deep-mlp in FP32 and FP16 autocast without a scaler in the window; the run is saved
// (so the CLI can read the same records); Analysis > Precision Advice… on the run shown gives the CLI's
// verdicts for that session, FP16 gradients unsafe among them, and Save Plan… writes the CLI's --plan
// file byte for byte.
TEST(AdvicePanel, TheRunShownGivesTheCliVerdictsAndItsPlanByteForByte) {
  QTemporaryDir dir;
  const QString session = dir.filePath(QStringLiteral("underflow.ampscope"));
  MainWindow window;
  window.setLayoutPersistence(false);
  RunConfig config = presetFor(ModelKind::DeepMLP);  // loss weight 1e-5: FP16 gradients flush
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp};
  config.steps = 12;
  config.instrumentEvery = 2;
  RunController* run = window.trainingWorkspace()->controller();
  ASSERT_TRUE(run->start(config));
  for (int i = 0; i < 2400 && run->state() != RunState::Finished; ++i) QTest::qWait(50);
  run->drainNow();
  ASSERT_EQ(run->state(), RunState::Finished);
  ASSERT_TRUE(window.sessionController()->saveTo(session));

  QAction* action = window.adviceAction();
  ASSERT_NE(action, nullptr);
  EXPECT_TRUE(window.analysisMenu()->actions().contains(action));
  EXPECT_EQ(action->shortcut(), QKeySequence(QStringLiteral("Ctrl+Shift+A")));
  EXPECT_FALSE(action->toolTip().isEmpty());
  action->trigger();
  AdvicePanel* panel = window.advicePanel();
  ASSERT_TRUE(panel->isVisible());
  panel->setTarget(QStringLiteral("fp16-amp"));
  ASSERT_EQ(panel->sourceKind(), AdvicePanel::SourceKind::CurrentRun);
  ASSERT_TRUE(panel->advice()) << panel->errorText().toStdString();
  ASSERT_FALSE(panel->advice()->tooShort);

  const auto json = cli({"advise", session.toStdString(), "--target", "fp16-amp", "--json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto expected = cliVerdicts(json.out);
  ASSERT_FALSE(expected.empty());
  EXPECT_EQ(shownVerdicts(*panel), expected);
  // The flush the preset makes: FP16 without a scaler is unsafe for some layer's gradients, shown as such.
  int unsafeFp16Gradients = 0;
  for (const auto& [key, verdict] : expected)
    if (std::get<1>(key) == "gradient" && std::get<2>(key) == "fp16" &&
        verdict == EvidenceTableModel::verdictText(Verdict::Unsafe))
      ++unsafeFp16Gradients;
  EXPECT_GT(unsafeFp16Gradients, 0) << json.out;
  EXPECT_TRUE(panel->advice()->scaler.needed);
  // The report tab is the CLI's table as it prints it.
  const auto text = cli({"advise", session.toStdString(), "--target", "fp16-amp"});
  ASSERT_EQ(text.exitCode, 0) << text.err;
  EXPECT_EQ(withoutFinalNewline(panel->reportView()->toPlainText().toStdString()), withoutFinalNewline(text.out));

  const QString cliPlan = dir.filePath(QStringLiteral("cli-plan.json"));
  ASSERT_EQ(cli({"advise", session.toStdString(), "--target", "fp16-amp", "--plan", cliPlan.toStdString()}).exitCode, 0);
  const QString guiPlan = dir.filePath(QStringLiteral("gui-plan.json"));
  Answers answers;
  answers.path = guiPlan;
  answers.install(*panel);
  ASSERT_TRUE(panel->savePlanButton()->isEnabled());
  panel->savePlanButton()->click();
  EXPECT_EQ(answers.questions, 0);  // a new file: nothing to ask
  ASSERT_TRUE(QFile::exists(guiPlan));
  EXPECT_EQ(readFile(guiPlan), readFile(cliPlan));
  window.close();
}

// A probe stream opened as a file: the same verdicts and report as the CLI, for every target the plan
// offers; sorting by verdict puts the unsafe entry first; the copied table is the one shown.
TEST(AdvicePanel, AProbeStreamFileGivesTheCliVerdictsForEveryTarget) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("flush.jsonl"));
  writeFile(stream, probeStream(6, 20));
  AdvicePanel panel;
  Answers answers;
  answers.install(panel);
  ASSERT_TRUE(panel.openFile(stream)) << panel.errorText().toStdString();
  EXPECT_EQ(panel.sourceKind(), AdvicePanel::SourceKind::File);
  for (const char* target : {"auto", "fp16-amp", "bf16-amp", "fp8-current"}) {
    panel.setTarget(QLatin1String(target));
    ASSERT_EQ(panel.target(), QLatin1String(target));
    const auto json = cli({"advise", stream.toStdString(), "--target", target, "--json"});
    ASSERT_EQ(json.exitCode, 0) << json.err;
    EXPECT_EQ(shownVerdicts(panel), cliVerdicts(json.out)) << target;
    const auto text = cli({"advise", stream.toStdString(), "--target", target});
    EXPECT_EQ(withoutFinalNewline(panel.reportView()->toPlainText().toStdString()), withoutFinalNewline(text.out)) << target;
  }
  // 20 of net.2's 100 values flush: 20 % at step 1 (the CLI test's figure for the same records).
  panel.evidenceView()->sortByColumn(EvidenceTableModel::VerdictColumn, Qt::DescendingOrder);
  const QAbstractItemModel* m = panel.sortedEvidence();
  EXPECT_EQ(m->index(0, EvidenceTableModel::VerdictColumn).data().toString(),
            EvidenceTableModel::verdictText(Verdict::Unsafe));
  EXPECT_EQ(m->index(0, EvidenceTableModel::LayerColumn).data().toString(), QStringLiteral("net.2"));
  EXPECT_EQ(m->index(0, EvidenceTableModel::FlushedColumn).data().toString(), QStringLiteral("20 % at step 1"));
  panel.copyButton()->click();
  const QString copied = QGuiApplication::clipboard()->text();
  EXPECT_EQ(copied, panel.tableText());
  const QStringList lines = copied.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
  ASSERT_EQ(lines.size(), m->rowCount() + 1);
  EXPECT_TRUE(lines[1].startsWith(QStringLiteral("net.2\tgradient\t"))) << lines[1].toStdString();
  // The thresholds in use are stated.
  EXPECT_TRUE(panel.thresholdsLabel()->text().contains(QStringLiteral("1 %"))) << panel.thresholdsLabel()->text().toStdString();
}

// An existing file is replaced only when the user says so; "no" leaves it as it was.
TEST(AdvicePanel, SavePlanNeverReplacesAFileWithoutAsking) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("keep.jsonl"));
  writeFile(stream, probeStream(6, 20));
  const QString plan = dir.filePath(QStringLiteral("plan.json"));
  writeFile(plan, "mine");
  AdvicePanel panel;
  Answers answers;
  answers.install(panel);
  ASSERT_TRUE(panel.openFile(stream));
  answers.path = plan;
  answers.replace = false;
  EXPECT_FALSE(panel.savePlan());
  EXPECT_EQ(answers.questions, 1);
  EXPECT_EQ(readFile(plan), "mine");
  EXPECT_FALSE(QFile::exists(plan + QStringLiteral(".tmp")));
  // Cancelling the file dialog writes nothing either.
  answers.path.clear();
  EXPECT_FALSE(panel.savePlan());
  EXPECT_EQ(readFile(plan), "mine");
  answers.path = plan;
  answers.replace = true;
  EXPECT_TRUE(panel.savePlan());
  EXPECT_EQ(answers.questions, 2);
  const QString cliPlan = dir.filePath(QStringLiteral("cli-plan.json"));
  ASSERT_EQ(cli({"advise", stream.toStdString(), "--plan", cliPlan.toStdString()}).exitCode, 0);
  EXPECT_EQ(readFile(plan), readFile(cliPlan));
  // A plan that cannot be written is an error said to the user, not a silent success.
  EXPECT_FALSE(panel.savePlan(dir.filePath(QStringLiteral("no-such-folder/plan.json"))));
  ASSERT_EQ(answers.errors.size(), 1);
  EXPECT_TRUE(answers.errors.front().contains(QStringLiteral("no-such-folder"))) << answers.errors.front().toStdString();
}

// Files that do not read: the message names the line and field (or what is wrong with the file), the
// panel shows no advice and offers no plan, and nothing crashes.
TEST(AdvicePanel, ABadFileIsRefusedWithAMessageNamingTheField) {
  QTemporaryDir dir;
  std::string text = probeStream(6, 0);
  text.replace(text.find("\"loss\":"), 7, "\"lost\":");
  const QString damaged = dir.filePath(QStringLiteral("damaged.jsonl"));
  writeFile(damaged, text);
  const QString empty = dir.filePath(QStringLiteral("empty.jsonl"));
  writeFile(empty, "\n  \n");
  const QString foreign = dir.filePath(QStringLiteral("foreign.txt"));
  writeFile(foreign, "hello, world\n");
  std::string newerText = probeStream(6, 0);
  newerText.replace(newerText.find("\"version\":4"), 11, "\"version\":99");
  const QString newer = dir.filePath(QStringLiteral("newer.jsonl"));
  writeFile(newer, newerText);
  const QString missing = dir.filePath(QStringLiteral("missing.jsonl"));

  AdvicePanel panel;
  Answers answers;
  answers.install(panel);
  ASSERT_TRUE(panel.openFile([&] {
    const QString good = dir.filePath(QStringLiteral("good.jsonl"));
    writeFile(good, probeStream(6, 20));
    return good;
  }()));
  const std::vector<std::pair<QString, std::string>> cases = {
      {damaged, "line 2"}, {empty, "is empty"}, {foreign, "is neither a record stream nor a session"},
      {newer, "99"},       {missing, "does not exist"}, {dir.path(), "is a folder"}};
  for (const auto& [path, expected] : cases) {
    answers.errors.clear();
    EXPECT_FALSE(panel.openFile(path)) << path.toStdString();
    ASSERT_EQ(answers.errors.size(), 1) << path.toStdString();
    EXPECT_NE(answers.errors.front().toStdString().find(expected), std::string::npos)
        << answers.errors.front().toStdString();
    // The CLI says the same of the same file.
    const auto refused = cli({"advise", path.toStdString()});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_NE(refused.err.find(expected), std::string::npos) << refused.err;
    EXPECT_FALSE(panel.advice());
    EXPECT_EQ(panel.statusLabel()->text(), answers.errors.front());
    EXPECT_FALSE(panel.savePlanButton()->isEnabled());
    EXPECT_EQ(panel.sortedEvidence()->rowCount(), 0);
    EXPECT_FALSE(panel.savePlan(dir.filePath(QStringLiteral("never.json"))));
  }
  EXPECT_FALSE(QFile::exists(dir.filePath(QStringLiteral("never.json"))));
}

// A run with fewer instrumented steps than the threshold: "too short to judge", as the CLI says, and no
// plan to save.
TEST(AdvicePanel, ARunTooShortToJudgeSaysSoAndOffersNoPlan) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("short.jsonl"));
  writeFile(stream, probeStream(3, 20));
  AdvicePanel panel;
  Answers answers;
  answers.path = dir.filePath(QStringLiteral("plan.json"));
  answers.install(panel);
  ASSERT_TRUE(panel.openFile(stream));
  ASSERT_TRUE(panel.advice());
  EXPECT_TRUE(panel.advice()->tooShort);
  EXPECT_TRUE(panel.statusLabel()->text().contains(QStringLiteral("Too short to judge"))) << panel.statusLabel()->text().toStdString();
  EXPECT_TRUE(panel.statusLabel()->text().contains(QStringLiteral("is 3, at least 5")));
  EXPECT_FALSE(panel.savePlanButton()->isEnabled());
  EXPECT_FALSE(panel.savePlan());
  EXPECT_FALSE(QFile::exists(answers.path));
  const auto result = cli({"advise", stream.toStdString()});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(withoutFinalNewline(panel.reportView()->toPlainText().toStdString()), withoutFinalNewline(result.out));
}

// A followed run (as the window keeps it) is judged as the CLI judges the stream it came from: same
// verdicts, and the plan names the followed file as its source, byte for byte the CLI's --plan.
TEST(AdvicePanel, AFollowedRunGivesTheAdviceOfItsStream) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("followed.jsonl"));
  writeFile(stream, probeStream(6, 20));
  FollowedRun followed;
  followed.source = probeSource();
  followed.target = stream.toStdString();
  for (int i = 1; i <= 6; ++i) followed.steps.push_back(testing::flushingProbeStep(i, 20));
  AdvicePanel panel;
  Answers answers;
  answers.install(panel);
  panel.setCurrentRunProvider([] { return nullptr; });
  panel.setFollowedRunsProvider([followed] { return std::vector<FollowedRun>{followed}; });
  // Nothing trained in the window: the followed run is the one shown.
  panel.refresh();
  ASSERT_EQ(panel.sourceKind(), AdvicePanel::SourceKind::FollowedRun);
  ASSERT_TRUE(panel.advice()) << panel.errorText().toStdString();
  const auto json = cli({"advise", stream.toStdString(), "--json"});
  ASSERT_EQ(json.exitCode, 0);
  EXPECT_EQ(shownVerdicts(panel), cliVerdicts(json.out));
  const QString cliPlan = dir.filePath(QStringLiteral("cli-plan.json"));
  ASSERT_EQ(cli({"advise", stream.toStdString(), "--plan", cliPlan.toStdString()}).exitCode, 0);
  answers.path = dir.filePath(QStringLiteral("gui-plan.json"));
  ASSERT_TRUE(panel.savePlan());
  EXPECT_EQ(readFile(answers.path), readFile(cliPlan));
  // The current run, asked for explicitly, says there is none yet.
  EXPECT_FALSE(panel.showCurrentRun());
  EXPECT_FALSE(panel.advice());
  EXPECT_FALSE(panel.statusLabel()->text().isEmpty());
}

// A followed engine stream (ampscope-cli train --jsonl) read from its file, as advise reads it: the
// header's configuration gives the engine's layer names (fc1, not net.0) and fp32 as the judged mode.
TEST(AdvicePanel, AFollowedEngineStreamFileIsJudgedWithItsConfiguration) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("engine.jsonl"));
  const auto train = cli({"train", "--model", "deep-mlp", "--modes", "fp16-amp,fp32", "--steps", "10",
                          "--instrument-every", "2", "--quiet", "--jsonl", stream.toStdString()});
  ASSERT_EQ(train.exitCode, 0) << train.err;
  FollowedRun followed;
  followed.source.source = "engine";
  followed.target = stream.toStdString();
  AdvicePanel panel;
  panel.setFollowedRunsProvider([followed] { return std::vector<FollowedRun>{followed}; });
  ASSERT_TRUE(panel.showFollowedRun(0)) << panel.errorText().toStdString();
  EXPECT_EQ(panel.advice()->run.mode, "fp32");
  const auto json = cli({"advise", stream.toStdString(), "--json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  const auto verdicts = shownVerdicts(panel);
  EXPECT_EQ(verdicts, cliVerdicts(json.out));
  EXPECT_TRUE(verdicts.count({"fc1", "gradient", "fp16"})) << json.out;
}

// The judged mode is advise's --mode: fp16-amp's own tensors give the CLI's --mode fp16-amp verdicts, and a
// mode the run lacks is refused with the modes it has, as the CLI refuses it.
TEST(AdvicePanel, TheJudgedModeIsTheCliMode) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("modes.jsonl"));
  const auto train = cli({"train", "--model", "deep-mlp", "--modes", "fp32,fp16-amp", "--steps", "10",
                          "--instrument-every", "2", "--quiet", "--jsonl", stream.toStdString()});
  ASSERT_EQ(train.exitCode, 0) << train.err;
  AdvicePanel panel;
  Answers answers;
  answers.install(panel);
  ASSERT_TRUE(panel.openFile(stream));
  EXPECT_EQ(panel.advice()->run.mode, "fp32");
  panel.setJudgedMode(QStringLiteral("fp16-amp"));
  ASSERT_TRUE(panel.advice()) << panel.errorText().toStdString();
  EXPECT_EQ(panel.advice()->run.mode, "fp16-amp");
  const auto json = cli({"advise", stream.toStdString(), "--mode", "fp16-amp", "--json"});
  ASSERT_EQ(json.exitCode, 0) << json.err;
  EXPECT_EQ(shownVerdicts(panel), cliVerdicts(json.out));
  panel.setJudgedMode(QStringLiteral("bf16-amp"));
  EXPECT_FALSE(panel.advice());
  const auto refused = cli({"advise", stream.toStdString(), "--mode", "bf16-amp"});
  EXPECT_EQ(refused.exitCode, 2);
  const std::string expected = "the run has no bf16-amp records (it has: fp32, fp16-amp)";
  EXPECT_NE(refused.err.find(expected), std::string::npos) << refused.err;
  EXPECT_NE(panel.errorText().toStdString().find(expected), std::string::npos) << panel.errorText().toStdString();
}

// Train This Plan on advice for an `ampscope-cli train` stream of the deep MLP (FP16 without a scaler
// flushes its gradients): the window, which showed the tiny MLP, now shows the stream's configuration
// with the advised plan as the plan lane beside FP32 and the uniform fp16-amp, valid and ready to run.
TEST(AdvicePanel, TrainThisPlanPutsTheAdvisedPlanIntoTheRunPanel) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("deep.jsonl"));
  const auto train = cli({"train", "--model", "deep-mlp", "--modes", "fp16-amp,fp32", "--steps", "10",
                          "--instrument-every", "2", "--quiet", "--jsonl", stream.toStdString()});
  ASSERT_EQ(train.exitCode, 0) << train.err;
  MainWindow window;
  window.setLayoutPersistence(false);
  AdvicePanel* panel = window.advicePanel();
  Answers answers;
  answers.install(*panel);
  ASSERT_TRUE(panel->openFile(stream)) << panel->errorText().toStdString();
  panel->setTarget(QStringLiteral("fp16-amp"));
  ASSERT_TRUE(panel->advice());
  ASSERT_TRUE(panel->trainPlanButton()->isEnabled()) << panel->trainPlanButton()->toolTip().toStdString();
  std::vector<std::string> notes;
  std::string error;
  const auto expected = planConfigOf(planOf(*panel->advice()), ModelKind::DeepMLP, &notes, &error);
  ASSERT_TRUE(expected) << error;
  // The flushing gradients keep some layer out of fp16-amp.
  ASSERT_FALSE(expected->layers.empty());
  bool keptHigher = false;
  for (const auto& [layer, mode] : expected->layers) keptHigher = keptHigher || mode != PrecisionMode::FP16Amp;
  EXPECT_TRUE(keptHigher) << planLayersText(expected->layers);

  RunPanel* runPanel = window.trainingWorkspace()->runPanel();
  ASSERT_EQ(runPanel->config().model, ModelKind::TinyMLP);
  panel->trainPlanButton()->click();
  EXPECT_TRUE(answers.errors.isEmpty()) << answers.errors.join(QLatin1Char('\n')).toStdString();
  const RunConfig config = runPanel->config();
  EXPECT_EQ(config.model, ModelKind::DeepMLP);
  EXPECT_EQ(config.modes,
            (std::vector<PrecisionMode>{PrecisionMode::FP16Amp, PrecisionMode::FP32, PrecisionMode::Plan}));
  EXPECT_EQ(config.steps, 10);  // the stream's configuration
  EXPECT_EQ(config.lossWeight, presetFor(ModelKind::DeepMLP).lossWeight);
  EXPECT_EQ(config.plan.defaultMode, PrecisionMode::FP16Amp);
  EXPECT_EQ(config.plan.layers, expected->layers);
  EXPECT_TRUE(runPanel->isValid()) << runPanel->errorFields().join(QLatin1Char(',')).toStdString();
  EXPECT_TRUE(runPanel->planFields()->isEnabled());
  ASSERT_EQ(answers.infos.size(), 1);
  EXPECT_TRUE(answers.infos[0].contains(QStringLiteral("fp16-amp, fp32, plan"))) << answers.infos[0].toStdString();
  EXPECT_TRUE(answers.infos[0].contains(QString::fromStdString(planLayersText(expected->layers))))
      << answers.infos[0].toStdString();

  // A run training: the user is asked first; "no" leaves the Run panel as it is.
  panel->setRunActiveProvider([] { return true; });
  runPanel->setConfig(presetFor(ModelKind::DeepMLP));
  answers.replace = false;
  EXPECT_FALSE(panel->trainPlan());
  EXPECT_EQ(answers.questions, 1);
  EXPECT_TRUE(runPanel->config().plan.layers.empty());
  // "yes": the window's configuration (of the same model now) is kept and extended.
  answers.replace = true;
  runPanel->field(QStringLiteral("steps"))->setText(QStringLiteral("40"));
  ASSERT_TRUE(panel->trainPlan());
  EXPECT_EQ(runPanel->config().steps, 40);
  EXPECT_EQ(runPanel->config().modes,
            (std::vector<PrecisionMode>{PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16AmpScaled,
                                        PrecisionMode::BF16Amp, PrecisionMode::Plan}))
      << fieldText(runPanel->config(), *findConfigField("modes"));
  EXPECT_EQ(runPanel->config().plan.layers, expected->layers);
  window.close();
}

// A probed script's advice cannot be trained: the button is disabled and says why.
TEST(AdvicePanel, TrainThisPlanIsOfferedOnlyWhereTheModelIsKnown) {
  QTemporaryDir dir;
  const QString stream = dir.filePath(QStringLiteral("probe.jsonl"));
  writeFile(stream, probeStream(6, 20));
  AdvicePanel panel;
  Answers answers;
  answers.install(panel);
  bool requested = false;
  QObject::connect(&panel, &AdvicePanel::trainPlanRequested, [&requested] { requested = true; });
  ASSERT_TRUE(panel.openFile(stream));
  ASSERT_TRUE(panel.savePlanButton()->isEnabled());
  EXPECT_FALSE(panel.trainPlanButton()->isEnabled());
  EXPECT_TRUE(panel.trainPlanButton()->toolTip().contains(QStringLiteral("probed script")))
      << panel.trainPlanButton()->toolTip().toStdString();
  EXPECT_FALSE(panel.trainPlan());
  EXPECT_FALSE(requested);
  EXPECT_EQ(answers.errors.size(), 1);
  // No advice at all: nothing to train either.
  EXPECT_FALSE(panel.showCurrentRun());
  EXPECT_FALSE(panel.trainPlanButton()->isEnabled());
}

}  // namespace
}  // namespace ampscope::ui
