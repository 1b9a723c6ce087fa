// The live-training workspace driving the real engine: a comparison fills every plot, pause pauses,
// step steps once, bad input keeps Run disabled, closing mid-run shuts down cleanly.
#include <QTranslator>
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QElapsedTimer>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QSignalSpy>
#include <QTest>
#include <functional>
#include <memory>
#include <qcustomplot.h>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/loss_plot.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/scale_plot.h"
#include "ui/training/training_workspace.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {
namespace {

bool waitFor(const std::function<bool()>& condition, int timeoutMs) {
  QElapsedTimer timer;
  timer.start();
  while (!condition()) {
    if (timer.elapsed() > timeoutMs) return false;
    QTest::qWait(10);
  }
  return true;
}

struct Window {
  std::unique_ptr<QMainWindow> window = std::make_unique<QMainWindow>();
  QMenu* view = new QMenu(QStringLiteral("View"), window.get());
  TrainingWorkspace* workspace = new TrainingWorkspace(window.get(), view);
  Window() {
    window->resize(1400, 900);
    window->show();
  }
  ~Window() { workspace->shutdown(); }
};

RunConfig fourModeTinyMlp(int64_t steps) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp, PrecisionMode::BF16Amp};
  config.instrumentEvery = 1;
  config.steps = steps;
  return config;
}

TEST(TrainingWorkspace, AComparisonPutsOnePointPerStepPerModeInEveryPlot) {
  Window w;
  const int64_t kSteps = 12;
  w.workspace->applyConfig(fourModeTinyMlp(kSteps));
  ASSERT_TRUE(w.workspace->runPauseAction()->isEnabled());
  QSignalSpy appended(w.workspace->controller(), &RunController::dataAppended);
  w.workspace->runPauseAction()->trigger();
  ASSERT_TRUE(waitFor([&] { return w.workspace->controller()->state() == RunState::Finished; }, 60000))
      << w.workspace->controller()->lastError().toStdString();
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() == kSteps; }, 5000));
  QTest::qWait(50);
  // Batching: the steps arrived in fewer wake-ups than steps (never one signal per step is the design;
  // at least the count cannot exceed the steps).
  EXPECT_GE(appended.count(), 1);
  EXPECT_LE(appended.count(), kSteps);
  for (PrecisionMode mode : fourModeTinyMlp(kSteps).modes) {
    SCOPED_TRACE(modeName(mode));
    ASSERT_NE(w.workspace->lossPlot()->lossGraph(mode), nullptr);
    EXPECT_EQ(w.workspace->lossPlot()->lossGraph(mode)->dataCount(), kSteps);
    for (auto q : {UnderflowPlot::Quantity::FlushedToZero, UnderflowPlot::Quantity::Subnormal,
                   UnderflowPlot::Quantity::Overflowed})
      EXPECT_EQ(w.workspace->underflowPlot()->graph(mode, q)->dataCount(), kSteps);
    // The exponent histogram accounts for every gradient element: bins + zero + inf + NaN = numel.
    const ModeSeries* series = w.workspace->store()->series(mode);
    int64_t numel = 0;
    for (const TensorStats& t : series->latestTensors)
      if (t.isParameter) numel += t.numel;
    ASSERT_GT(numel, 0);
    EXPECT_EQ(w.workspace->histogramPlot()->shownHistogram(mode).total(), numel);
  }
  ASSERT_NE(w.workspace->scalePlot()->scaleGraph(PrecisionMode::FP16AmpScaled), nullptr);
  EXPECT_EQ(w.workspace->scalePlot()->scaleGraph(PrecisionMode::FP16AmpScaled)->dataCount(), kSteps);
  // The chapter: the first fp16-amp-scaled step runs at PyTorch's default init_scale 2^16.
  EXPECT_EQ(w.workspace->scalePlot()->scaleGraph(PrecisionMode::FP16AmpScaled)->data()->constBegin()->value,
            65536.0);
  EXPECT_EQ(w.workspace->scalePlot()->scaleGraph(PrecisionMode::FP32), nullptr);
}

TEST(TrainingWorkspace, PauseReallyPauses) {
  Window w;
  w.workspace->applyConfig(fourModeTinyMlp(1000000));
  w.workspace->runOrPause();
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() >= 3; }, 60000));
  w.workspace->runOrPause();
  // pause() returns once the engine acknowledges; the step in flight may still be handing over its record.
  ASSERT_TRUE(waitFor([&] { return w.workspace->controller()->state() == RunState::Paused; }, 5000));
  QTest::qWait(100);  // the last drain lands
  const int64_t atPause = w.workspace->store()->lastStep();
  const int points = w.workspace->lossPlot()->lossGraph(PrecisionMode::FP32)->dataCount();
  QTest::qWait(300);
  EXPECT_EQ(w.workspace->store()->lastStep(), atPause);
  EXPECT_EQ(w.workspace->lossPlot()->lossGraph(PrecisionMode::FP32)->dataCount(), points);
  EXPECT_EQ(w.workspace->runPauseAction()->text(), QObject::tr("Resume"));
}

TEST(TrainingWorkspace, StepAdvancesExactlyOneStep) {
  Window w;
  w.workspace->applyConfig(fourModeTinyMlp(100));
  w.workspace->stepAction()->trigger();  // from idle: starts paused and does one step
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() == 1; }, 60000));
  QTest::qWait(200);
  EXPECT_EQ(w.workspace->store()->lastStep(), 1);
  w.workspace->stepAction()->trigger();
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() == 2; }, 10000));
  QTest::qWait(200);
  EXPECT_EQ(w.workspace->store()->lastStep(), 2);
  EXPECT_EQ(w.workspace->lossPlot()->lossGraph(PrecisionMode::BF16Amp)->dataCount(), 2);
}

TEST(TrainingWorkspace, InjectedOverflowIsASkippedStepWithBackoffOnTheScalePlot) {
  Window w;
  w.workspace->applyConfig(fourModeTinyMlp(100));
  w.workspace->stepOnce();
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() == 1; }, 60000));
  w.workspace->injectOverflowAction()->trigger();
  w.workspace->stepOnce();
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() == 2; }, 10000));
  w.workspace->stepOnce();
  ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() == 3; }, 10000));
  QTest::qWait(100);
  QCPGraph* scale = w.workspace->scalePlot()->scaleGraph(PrecisionMode::FP16AmpScaled);
  QCPGraph* skipped = w.workspace->scalePlot()->skippedGraph(PrecisionMode::FP16AmpScaled);
  ASSERT_EQ(scale->dataCount(), 3);
  ASSERT_EQ(skipped->dataCount(), 1);
  EXPECT_EQ(skipped->data()->constBegin()->key, 2.0);
  // GradScaler: an inf skips the step and multiplies the scale by backoff_factor (0.5) for the next step.
  EXPECT_EQ((scale->data()->constBegin() + 1)->value, 65536.0);
  EXPECT_EQ((scale->data()->constBegin() + 2)->value, 32768.0);
}

TEST(TrainingWorkspace, InvalidLearningRateDisablesRunAndSaysWhy) {
  Window w;
  RunPanel* panel = w.workspace->runPanel();
  QSignalSpy validity(panel, &RunPanel::validityChanged);
  panel->field(QStringLiteral("lr"))->setText(QStringLiteral("-0.1"));
  EXPECT_FALSE(panel->isValid());
  EXPECT_FALSE(w.workspace->runPauseAction()->isEnabled());
  EXPECT_FALSE(w.workspace->stepAction()->isEnabled());
  ASSERT_EQ(validity.count(), 1);
  EXPECT_FALSE(validity.takeFirst().at(0).toBool());
  EXPECT_TRUE(panel->fieldError(QStringLiteral("lr")).contains(QStringLiteral("> 0")));  // validate()'s reason
  EXPECT_EQ(panel->errorFields(), QStringList{QStringLiteral("lr")});
  panel->field(QStringLiteral("lr"))->setText(QStringLiteral("abc"));
  EXPECT_EQ(panel->fieldError(QStringLiteral("lr")), QObject::tr("not a number"));
  panel->field(QStringLiteral("lr"))->setText(QStringLiteral("0.01"));
  EXPECT_TRUE(panel->isValid());
  EXPECT_TRUE(w.workspace->runPauseAction()->isEnabled());
  EXPECT_TRUE(panel->fieldError(QStringLiteral("lr")).isEmpty());
}

// The engine's reasons reach the form in the user's language: the schema's template through the catalogue
// (resources/translations/ampscope_zh_CN.ts, context ConfigSchema), its numbers as they are.
TEST(RunPanel, EngineErrorsAreTranslatedThroughTheCatalogue) {
  QTranslator zh;
  ASSERT_TRUE(zh.load(QStringLiteral(":/i18n/ampscope_zh_CN.qm")));
  QCoreApplication::installTranslator(&zh);
  RunPanel panel;
  panel.setConfig(presetFor(ModelKind::TinyMLP));
  panel.field(QStringLiteral("batch"))->setText(QStringLiteral("0"));
  const QString chinese = panel.fieldError(QStringLiteral("batch"));
  QCoreApplication::removeTranslator(&zh);
  EXPECT_EQ(chinese, QStringLiteral("必须 >= 1（收到 0）"));
  panel.field(QStringLiteral("batch"))->setText(QStringLiteral("-1"));
  EXPECT_EQ(panel.fieldError(QStringLiteral("batch")), QStringLiteral("must be >= 1 (got -1)"));
}

TEST(RunPanel, ModelChoiceLoadsItsPreset) {
  RunPanel panel;
  panel.setConfig(presetFor(ModelKind::TinyMLP));
  RunConfig deep = presetFor(ModelKind::DeepMLP);
  panel.setConfig(deep);
  EXPECT_EQ(panel.config().lossWeight, deep.lossWeight);
  EXPECT_EQ(panel.config().modes, deep.modes);
  EXPECT_EQ(panel.config().adamEps, deep.adamEps);  // the deep-MLP preset's 1e-12 survives the form
  EXPECT_EQ(panel.field(QStringLiteral("adam-eps"))->text(), QStringLiteral("1e-12"));
  EXPECT_TRUE(panel.isValid());
}

TEST(RunPanel, OptimizerHyperParametersAreEditableAndValidated) {
  RunPanel panel;
  panel.setConfig(presetFor(ModelKind::TinyMLP));
  // The schema's bounds (engine/src/data/config_schema.cpp): eps > 0, momentum in [0, 1), weight decay >= 0.
  panel.field(QStringLiteral("adam-eps"))->setText(QStringLiteral("1e-4"));
  panel.field(QStringLiteral("momentum"))->setText(QStringLiteral("0.5"));
  panel.field(QStringLiteral("weight-decay"))->setText(QStringLiteral("0"));
  EXPECT_TRUE(panel.isValid());
  EXPECT_EQ(panel.config().adamEps, 1e-4);
  EXPECT_EQ(panel.config().momentum, 0.5);
  EXPECT_EQ(panel.config().weightDecay, 0.0);
  panel.field(QStringLiteral("adam-eps"))->setText(QStringLiteral("0"));
  EXPECT_FALSE(panel.isValid());
  EXPECT_FALSE(panel.fieldError(QStringLiteral("adam-eps")).isEmpty());
  panel.field(QStringLiteral("adam-eps"))->setText(QStringLiteral("1e-8"));
  panel.field(QStringLiteral("momentum"))->setText(QStringLiteral("1"));
  EXPECT_FALSE(panel.isValid());
  EXPECT_EQ(panel.errorFields(), QStringList{QStringLiteral("momentum")});
}

// A config unlike every preset in every field (the threads, the scaler switches and the reals' last
// bits included): the form gives back exactly what it was given.
TEST(RunPanel, SetConfigThenConfigIsBitForBitForEveryField) {
  RunConfig c = presetFor(ModelKind::TinyTransformer);
  c.modes = {PrecisionMode::BF16Pure, PrecisionMode::FP32, PrecisionMode::FP16Pure};
  c.optimizer = OptimizerKind::SGD;
  c.lr = 0.1 + 0.2;  // 0.30000000000000004: ten significant digits would lose it
  c.momentum = 0.85;
  c.weightDecay = 1.0 / 3.0;
  c.adamEps = 1e-4;
  c.batchSize = 7;
  c.seed = 9007199254740991ull;  // the schema's largest seed, 2^53 - 1
  c.steps = 123;
  c.lossWeight = 3e-5;
  c.scaler = {1024.0, 3.0, 0.25, 17, false};
  c.scalerForPureFp16 = true;
  c.clipOrder = ClipOrder::BeforeUnscale;
  c.clipMaxNorm = 0.7;
  c.instrumentEvery = 3;
  c.threadsPerMode = 256;
  c.precisionPath = PrecisionPath::Emulated;
  ASSERT_TRUE(validate(c).empty());
  RunPanel panel;
  panel.setConfig(c);
  EXPECT_TRUE(panel.isValid()) << panel.errorFields().join(QLatin1Char(',')).toStdString();
  const RunConfig back = panel.config();
  for (const ConfigField& field : configFields()) {
    EXPECT_EQ(fieldText(back, field), fieldText(c, field)) << field.key;
    // Every field has its widget (numbers by their full key, switches as check boxes).
    const QString key = QString::fromLatin1(field.key.data(), static_cast<qsizetype>(field.key.size()));
    if (field.type == FieldType::Real || field.type == FieldType::Integer) {
      ASSERT_NE(panel.field(key), nullptr) << field.key;
    } else if (field.type == FieldType::Switch) {
      ASSERT_NE(panel.switchField(key), nullptr) << field.key;
    } else if (field.key == "precision-path") {
      ASSERT_NE(panel.choiceField(key), nullptr) << field.key;
    }
  }
  EXPECT_EQ(back.lr, 0.1 + 0.2);
  EXPECT_EQ(back.seed, 9007199254740991ull);
  EXPECT_EQ(back.modes, c.modes);  // the configured order
  // The new widgets edit the config.
  panel.switchField(QStringLiteral("scaler.enabled"))->setChecked(true);
  panel.field(QStringLiteral("threads"))->setText(QStringLiteral("300"));
  EXPECT_TRUE(panel.config().scaler.enabled);
  EXPECT_FALSE(panel.isValid());
  EXPECT_EQ(panel.errorFields(), QStringList{QStringLiteral("threads")});
  EXPECT_EQ(panel.fieldError(QStringLiteral("threads")), QStringLiteral("must be <= 256 (got 300)"));
}

TEST(RunPanel, NestedFieldsUseTheirFullKeyAndTheTablesHelp) {
  RunPanel panel;
  panel.field(QStringLiteral("scaler.growth-interval"))->setText(QStringLiteral("0"));
  EXPECT_EQ(panel.errorFields(), QStringList{QStringLiteral("scaler.growth-interval")});
  EXPECT_EQ(panel.fieldError(QStringLiteral("scaler.growth-interval")), QStringLiteral("must be >= 1 (got 0)"));
  // The tooltip is the schema's help line and bounds (untranslated here: no translator installed).
  EXPECT_TRUE(panel.field(QStringLiteral("clip.max-norm"))->toolTip().contains(
      QStringLiteral("clip_grad_norm_'s max_norm (0, 1e+30]")))
      << panel.field(QStringLiteral("clip.max-norm"))->toolTip().toStdString();
}

TEST(RunPanel, EveryHelpLineOfTheTableIsInTheChineseCatalogue) {
  // lupdate reads the table itself (QT_TRANSLATE_NOOP in config_schema.cpp): every row's help line must
  // come back translated from the compiled zh_CN catalogue, under the context the run panel asks with.
  QTranslator translator;
  ASSERT_TRUE(translator.load(QStringLiteral(":/i18n/ampscope_zh_CN.qm")));
  for (const ConfigField& field : configFields()) {
    const std::string help(field.help);
    const QString translated = translator.translate("ConfigSchema", help.c_str());
    EXPECT_FALSE(translated.isEmpty()) << field.key;
    EXPECT_NE(translated.toStdString(), help) << field.key;
  }
}

TEST(RunPanel, NoModeCheckedIsAnError) {
  RunPanel panel;
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes.clear();
  panel.setConfig(config);
  EXPECT_FALSE(panel.isValid());
  EXPECT_FALSE(panel.fieldError(QStringLiteral("modes")).isEmpty());
}

TEST(TrainingWorkspace, ClosingTheWindowMidRunExitsCleanly) {
  QElapsedTimer timer;
  {
    Window w;
    w.workspace->applyConfig(fourModeTinyMlp(1000000));
    w.workspace->runOrPause();
    ASSERT_TRUE(waitFor([&] { return w.workspace->store()->lastStep() >= 2; }, 60000));
    timer.start();
    w.window->close();
    w.workspace->shutdown();  // what MainWindow::closeEvent does
    EXPECT_NE(w.workspace->controller()->state(), RunState::Running);
  }  // destroying the window (and the workspace, its child) must not hang or crash
  EXPECT_LT(timer.elapsed(), 5000);
}

TEST(TrainingWorkspace, DocksHaveStableNamesAndViewMenuToggles) {
  Window w;
  for (const char* id : {"run", "loss", "scale", "histogram", "heatmap", "underflow", "op-dtype", "memory"}) {
    QDockWidget* dock = w.workspace->dock(QLatin1String(id));
    ASSERT_NE(dock, nullptr) << id;
    EXPECT_EQ(dock->objectName(), QStringLiteral("training.") + QLatin1String(id));
    EXPECT_TRUE(w.view->actions().contains(dock->toggleViewAction()));
  }
  QDockWidget* loss = w.workspace->dock(QStringLiteral("loss"));
  loss->close();
  EXPECT_FALSE(loss->isVisible());
  w.workspace->raisePanel(QStringLiteral("loss"));
  EXPECT_TRUE(loss->isVisible());
}

}  // namespace
}  // namespace ampscope::ui
