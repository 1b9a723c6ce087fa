#include "ui/training/training_workspace.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QMessageBox>
#include <QSpinBox>
#include <QStatusBar>
#include <QStyle>
#include <QTableWidget>
#include <QTimer>
#include <QToolBar>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/fp8_scale_plot.h"
#include "ui/training/heat_map_plot.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/loss_plot.h"
#include "ui/training/memory_ledger_table.h"
#include "ui/training/mode_palette.h"
#include "ui/training/op_dtype_table.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/scale_plot.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {

namespace {
constexpr int kStatusRefreshMs = 500;  // steps/s decays to 0 when nothing arrives: poll it
// The memory ledger and op-dtype tables during a run: each refresh takes the runner's step lock, so
// not after every step.
constexpr int kLiveTablesRefreshMs = 1000;
}  // namespace

TrainingWorkspace::TrainingWorkspace(QMainWindow* window, QMenu* viewMenu)
    : QObject(window), window_(window), controller_(new RunController(this)) {
  TelemetryStore* s = controller_->store();
  // Docks the window already has on the left (other panels) share their place with the run panel as tabs.
  QDockWidget* leftNeighbour = nullptr;
  for (QDockWidget* d : window->findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly))
    if (window->dockWidgetArea(d) == Qt::LeftDockWidgetArea && !leftNeighbour) leftNeighbour = d;
  runPanel_ = new RunPanel(window);
  loss_ = new LossPlot(s, window);
  scale_ = new ScalePlot(s, window);
  histogram_ = new HistogramPlot(s, window);
  heatMap_ = new HeatMapPlot(s, window);
  underflow_ = new UnderflowPlot(s, window);
  fp8Scale_ = new Fp8ScalePlot(s, window);
  opDtype_ = new OpDtypeTable(window);
  memory_ = new MemoryLedgerTable(window);

  QDockWidget* run = addDock(QStringLiteral("run"), tr("Run"), runPanel_, Qt::LeftDockWidgetArea);
  QDockWidget* loss = addDock(QStringLiteral("loss"), tr("Loss"), loss_, Qt::RightDockWidgetArea);
  QDockWidget* scale = addDock(QStringLiteral("scale"), tr("Loss scale"), scale_, Qt::RightDockWidgetArea);
  QDockWidget* hist = addDock(QStringLiteral("histogram"), tr("Gradient exponents"), histogram_, Qt::RightDockWidgetArea);
  QDockWidget* heat = addDock(QStringLiteral("heatmap"), tr("Exponents over time"), heatMap_, Qt::RightDockWidgetArea);
  QDockWidget* under = addDock(QStringLiteral("underflow"), tr("Underflow"), underflow_, Qt::RightDockWidgetArea);
  QDockWidget* ops = addDock(QStringLiteral("op-dtype"), tr("Op dtypes"), opDtype_, Qt::RightDockWidgetArea);
  QDockWidget* mem = addDock(QStringLiteral("memory"), tr("Memory ledger"), memory_, Qt::RightDockWidgetArea);
  QDockWidget* fp8 = addDock(QStringLiteral("fp8-scale"), tr("FP8 scales"), fp8Scale_, Qt::RightDockWidgetArea);
  // A 2×2 grid right of the run panel: loss | scale over histogram (+heat map) | underflow (+tables).
  window->splitDockWidget(loss, hist, Qt::Vertical);
  window->splitDockWidget(loss, scale, Qt::Horizontal);
  window->splitDockWidget(hist, under, Qt::Horizontal);
  window->tabifyDockWidget(hist, heat);
  window->tabifyDockWidget(under, ops);
  window->tabifyDockWidget(under, mem);
  window->tabifyDockWidget(scale, fp8);  // the loss scale's neighbour: both are scales on a log2 axis
  if (leftNeighbour) window->tabifyDockWidget(leftNeighbour, run);
  scale->raise();
  hist->raise();
  under->raise();
  run->raise();
  if (viewMenu) {
    // Panel toggles go above the menu's first separator when it has one (items like "Reset layout" below).
    QAction* before = nullptr;
    for (QAction* a : viewMenu->actions())
      if (a->isSeparator()) {
        before = a;
        break;
      }
    for (const char* id : {"run", "loss", "scale", "histogram", "heatmap", "underflow", "op-dtype", "memory",
                           "fp8-scale"})
      viewMenu->insertAction(before, docks_.value(QLatin1String(id))->toggleViewAction());
  }

  buildToolBar();
  buildStatusBar();

  connect(runPanel_, &RunPanel::validityChanged, this, &TrainingWorkspace::updateActions);
  connect(controller_, &RunController::stateChanged, this, &TrainingWorkspace::onStateChanged);
  connect(controller_, &RunController::dataAppended, this, &TrainingWorkspace::onDataAppended);
  connect(controller_, &RunController::storeCleared, this, &TrainingWorkspace::onStoreCleared);
  connect(controller_, &RunController::errorOccurred, this, [this](const QString& message) {
    window_->statusBar()->showMessage(message, 10000);
  });
  connect(opDtype_, &OpDtypeTable::refreshRequested, this, &TrainingWorkspace::refreshOpDtype);
  connect(memory_, &MemoryLedgerTable::refreshRequested, this, &TrainingWorkspace::refreshMemory);
  statusTimer_ = new QTimer(this);
  statusTimer_->setObjectName(QStringLiteral("statusTimer"));
  statusTimer_->setInterval(kStatusRefreshMs);
  connect(statusTimer_, &QTimer::timeout, this, &TrainingWorkspace::updateStatus);
  statusTimer_->start();
  liveTablesTimer_ = new QTimer(this);
  liveTablesTimer_->setObjectName(QStringLiteral("liveTablesTimer"));
  liveTablesTimer_->setInterval(kLiveTablesRefreshMs);
  connect(liveTablesTimer_, &QTimer::timeout, this, &TrainingWorkspace::refreshLiveTables);
  updateActions();
  updateStatus();
}

TrainingWorkspace::~TrainingWorkspace() { shutdown(); }

TelemetryStore* TrainingWorkspace::store() const { return controller_->store(); }

std::vector<PlotPanel*> TrainingWorkspace::valuePlots() const {
  return {histogram_, heatMap_, scale_, fp8Scale_, underflow_};
}

QDockWidget* TrainingWorkspace::addDock(const QString& id, const QString& title, QWidget* content,
                                        Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(title, window_);
  dock->setObjectName(QStringLiteral("training.") + id);
  dock->setWidget(content);
  dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                    QDockWidget::DockWidgetFloatable);
  window_->addDockWidget(area, dock);
  docks_.insert(id, dock);
  return dock;
}

void TrainingWorkspace::buildToolBar() {
  toolBar_ = new QToolBar(tr("Training"), window_);
  toolBar_->setObjectName(QStringLiteral("training.toolbar"));
  toolBar_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  QStyle* style = window_->style();
  runPause_ = toolBar_->addAction(style->standardIcon(QStyle::SP_MediaPlay), tr("Run"));
  runPause_->setShortcut(Qt::Key_Space);
  runPause_->setToolTip(tr("Run or pause the comparison (Space)"));
  step_ = toolBar_->addAction(style->standardIcon(QStyle::SP_MediaSkipForward), tr("Step"));
  step_->setShortcuts({QKeySequence(Qt::Key_Right), QKeySequence(Qt::Key_S)});
  step_->setToolTip(tr("Exactly one training step in every mode (→ or S)"));
  stop_ = toolBar_->addAction(style->standardIcon(QStyle::SP_MediaStop), tr("Stop"));
  stop_->setToolTip(tr("Stop after the step in flight; the plots keep the run"));
  reset_ = toolBar_->addAction(style->standardIcon(QStyle::SP_BrowserReload), tr("Reset"));
  reset_->setToolTip(tr("Stop and clear the plots; the next run starts at step 1"));
  toolBar_->addSeparator();
  toolBar_->addWidget(new QLabel(tr(" Speed cap "), toolBar_));
  speed_ = new QSpinBox(toolBar_);
  speed_->setRange(0, 1000);
  speed_->setSpecialValueText(tr("unlimited"));
  speed_->setSuffix(tr(" steps/s"));
  speed_->setValue(0);
  speed_->setToolTip(tr("At most this many steps per second, so a class can watch slowly (0 = unlimited)"));
  toolBar_->addWidget(speed_);
  toolBar_->addSeparator();
  inject_ = toolBar_->addAction(style->standardIcon(QStyle::SP_MessageBoxWarning), tr("Inject overflow"));
  inject_->setToolTip(tr("Put an inf into one gradient element of every mode at the next step: the GradScaler "
                         "skips the step and halves its scale; modes without a scaler diverge."));
  window_->addToolBar(Qt::TopToolBarArea, toolBar_);

  connect(runPause_, &QAction::triggered, this, &TrainingWorkspace::runOrPause);
  connect(step_, &QAction::triggered, this, &TrainingWorkspace::stepOnce);
  connect(stop_, &QAction::triggered, this, &TrainingWorkspace::stop);
  connect(reset_, &QAction::triggered, this, &TrainingWorkspace::reset);
  connect(inject_, &QAction::triggered, controller_, &RunController::injectOverflowNextStep);
  connect(speed_, &QSpinBox::valueChanged, this, [this](int v) { controller_->setMaxStepsPerSecond(v); });
}

void TrainingWorkspace::buildStatusBar() {
  QStatusBar* bar = window_->statusBar();
  stateLabel_ = new QLabel(window_);
  stepLabel_ = new QLabel(window_);
  rateLabel_ = new QLabel(window_);
  modesLabel_ = new QLabel(window_);
  modesLabel_->setTextFormat(Qt::RichText);
  modesLabel_->setToolTip(tr("Per mode: native (real low-precision kernels) or emulated (FP32 arithmetic with "
                             "exact IEEE rounding where autocast would cast), and where a mode diverged."));
  bar->addPermanentWidget(modesLabel_);
  bar->addPermanentWidget(stateLabel_);
  bar->addPermanentWidget(stepLabel_);
  bar->addPermanentWidget(rateLabel_);
}

std::vector<PlotPanel*> TrainingWorkspace::plots() const { return {loss_, scale_, histogram_, heatMap_, underflow_, fp8Scale_}; }

void TrainingWorkspace::applyConfig(const RunConfig& config) { runPanel_->setConfig(config); }

void TrainingWorkspace::raisePanel(const QString& id) {
  QDockWidget* dock = docks_.value(id);
  if (!dock) return;
  dock->show();
  dock->raise();
}

void TrainingWorkspace::shutdown() {
  if (statusTimer_) statusTimer_->stop();
  if (liveTablesTimer_) liveTablesTimer_->stop();
  controller_->shutdown();
}

void TrainingWorkspace::setLineScale(double scale) {
  for (PlotPanel* p : plots()) p->setLineScale(scale);
}

void TrainingWorkspace::runOrPause() {
  switch (controller_->state()) {
    case RunState::Running:
      controller_->pause();
      break;
    case RunState::Paused:
      controller_->resume();
      break;
    default:
      if (!runPanel_->isValid()) break;
      // Start paused so the op-dtype report (one forward pass per mode) is taken before step 1.
      if (controller_->start(runPanel_->config(), /*paused=*/true)) {
        refreshOpDtype();
        controller_->resume();
      }
      break;
  }
  updateActions();
}

void TrainingWorkspace::stepOnce() {
  const RunState state = controller_->state();
  if (state == RunState::Running) {
    controller_->pause();
  } else if (state == RunState::Paused) {
    controller_->stepOnce();
  } else if (runPanel_->isValid()) {
    if (controller_->start(runPanel_->config(), /*paused=*/true)) {
      refreshOpDtype();
      controller_->stepOnce();
    }
  }
  updateActions();
}

void TrainingWorkspace::stop() {
  controller_->stop();
  refreshMemory();
  updateActions();
}

void TrainingWorkspace::reset() {
  controller_->reset();
  updateActions();
}

void TrainingWorkspace::onStateChanged(RunState state) {
  if (state == RunState::Running) {
    liveTablesTimer_->start();
  } else {
    liveTablesTimer_->stop();
  }
  if (state == RunState::Paused || state == RunState::Finished) {
    refreshMemory();
    if (state == RunState::Paused) refreshOpDtype();
  }
  if (state == RunState::Failed)
    QMessageBox::warning(window_, tr("Training failed"),
                         tr("The run stopped with an error:\n%1").arg(controller_->lastError()));
  updateActions();
  updateStatus();
}

void TrainingWorkspace::refreshFromStore() { onDataAppended(); }

void TrainingWorkspace::onDataAppended() {
  for (PlotPanel* p : plots()) p->onDataAppended();
  updateStatus();
}

void TrainingWorkspace::onStoreCleared() {
  for (PlotPanel* p : plots()) p->refresh();
  opDtype_->clear();
  memory_->clear();
  updateStatus();
}

void TrainingWorkspace::refreshLiveTables() {
  if (controller_->state() != RunState::Running) return;
  // Only what is on screen: a table in a tab behind another, or a closed dock, waits for the pause.
  if (memory_->isVisible()) refreshMemory();
  // The ops' dtypes follow from the modes alone, so one report per run is enough; it is taken before
  // step 1 when Run starts a run, and here when the run was started some other way.
  if (opDtype_->isVisible() && opDtype_->table()->columnCount() == 0) refreshOpDtype();
}

void TrainingWorkspace::refreshOpDtype() {
  const RunState state = controller_->state();
  if (state == RunState::Idle) return;
  std::vector<OpDtypeTable::ModeReport> reports;
  for (PrecisionMode mode : controller_->config().modes) reports.push_back({mode, controller_->opDtypeReport(mode)});
  opDtype_->setReports(reports);
}

void TrainingWorkspace::refreshMemory() {
  if (controller_->store()->modes().empty()) return;
  std::vector<MemoryLedgerTable::ModeLedger> ledgers;
  for (PrecisionMode mode : controller_->config().modes) ledgers.push_back({mode, controller_->memoryLedger(mode)});
  memory_->setLedgers(ledgers);
}

void TrainingWorkspace::updateActions() {
  const RunState state = controller_->state();
  const bool running = state == RunState::Running;
  const bool paused = state == RunState::Paused;
  const bool valid = runPanel_->isValid();
  QStyle* style = window_->style();
  runPause_->setText(running ? tr("Pause") : paused ? tr("Resume") : tr("Run"));
  runPause_->setIcon(style->standardIcon(running ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  runPause_->setEnabled(running || paused || valid);
  step_->setEnabled(paused || (!running && valid));
  stop_->setEnabled(running || paused);
  reset_->setEnabled(state != RunState::Idle || !controller_->store()->modes().empty());
  inject_->setEnabled(running || paused);
  runPanel_->setEditable(!running && !paused);
  if (!valid && !running && !paused)
    runPause_->setToolTip(tr("Fix the fields marked in the run panel first"));
  else
    runPause_->setToolTip(tr("Run or pause the comparison (Space)"));
}

QString TrainingWorkspace::stateText(RunState state) {
  // The engine's runStateName() is English for logs; the status bar shows the translated word.
  switch (state) {
    case RunState::Idle: return tr("idle");
    case RunState::Running: return tr("running");
    case RunState::Paused: return tr("paused");
    case RunState::Finished: return tr("finished");
    case RunState::Failed: return tr("failed");
  }
  return QString::fromStdString(runStateName(state));
}

void TrainingWorkspace::updateStatus() {
  const TelemetryStore* s = controller_->store();
  stateLabel_->setText(stateText(controller_->state()));
  stepLabel_->setText(tr("step %1").arg(s->lastStep()));
  rateLabel_->setText(tr("%1 steps/s").arg(controller_->stepsPerSecond(), 0, 'f', 1));
  QStringList parts;
  const std::vector<ModeCapability> caps = s->modes().empty() ? std::vector<ModeCapability>{}
                                                              : controller_->capabilities();
  // Why each mode runs its path (native kernels or the exact emulation): shown in the tooltip, and
  // next to the mode when the timing on this CPU chose the emulation.
  const bool pathSet = controller_->config().precisionPath != PrecisionPath::Auto;
  QStringList reasons;
  auto pathReason = [&](const ModeCapability& c) {
    const QString name = ModePalette::name(c.mode);
    const QString path = c.native ? tr("native") : tr("emulated");
    if (c.mode == PrecisionMode::FP32) return QString();
    QString reason;
    if (c.nativeFailedCheck) {
      reason = tr("%1: emulated; this LibTorch's native kernel failed its self-check against an exact "
                  "reference on this CPU (%2)")
                   .arg(name, QString::fromStdString(c.pathNote));
    } else if (!c.nativeAvailable) {
      reason = tr("%1: emulated; this LibTorch has no native path").arg(name);
    } else if (pathSet) {
      reason = tr("%1: %2, set by precision-path").arg(name, path);
    } else if (c.comparedSteps > 0 && c.firstDifferingStep > 0) {
      reason = tr("%1: native; the emulation is not bit-identical to this CPU's kernels (the loss differs "
                  "from step %2 of %3 compared), so auto runs what PyTorch runs here")
                   .arg(name)
                   .arg(c.firstDifferingStep)
                   .arg(c.comparedSteps);
    } else if (c.comparedSteps > 0 && c.nativeStepUs > 0 && c.emulatedStepUs > 0) {
      reason = tr("%1: %2; both paths trained bit-identically for %3 steps on this CPU, a step taking %4 µs "
                  "native and %5 µs emulated (auto takes the emulation only when it is bit-identical and at "
                  "least 1.1× faster)")
                   .arg(name, path)
                   .arg(c.comparedSteps)
                   .arg(c.nativeStepUs, 0, 'f', 0)
                   .arg(c.emulatedStepUs, 0, 'f', 0);
    } else {
      reason = tr("%1: %2 (the paths were not compared on this CPU)").arg(name, path);
    }
    if (!c.kernelNote.empty()) reason += QStringLiteral("; ") + QString::fromStdString(c.kernelNote);
    return reason;
  };
  for (PrecisionMode mode : s->modes()) {
    QString part = QStringLiteral("<span style='color:%1'>■</span> %2")
                       .arg(ModePalette::color(mode).name(), ModePalette::name(mode));
    for (const ModeCapability& c : caps) {
      if (c.mode != mode) continue;
      part += c.native ? tr(" · native") : tr(" · <i>emulated</i>");
      if (!c.native && c.nativeAvailable && c.comparedSteps > 0 && c.firstDifferingStep == 0 &&
          c.nativeStepUs > 0 && c.emulatedStepUs > 0)
        part += tr(": bit-identical, %1× faster than native on this CPU").arg(c.nativeStepUs / c.emulatedStepUs, 0, 'f', 1);
      if (c.nativeFailedCheck) part += tr(": native kernel failed its self-check");
      const QString reason = pathReason(c);
      if (!reason.isEmpty()) reasons << reason;
    }
    const ModeSeries* series = s->series(mode);
    if (series && series->divergedAt)
      part += tr(" <span style='color:#c00000'><b>✕ diverged @%1</b></span>").arg(*series->divergedAt);
    parts << part;
  }
  modesLabel_->setText(parts.join(QStringLiteral("&nbsp;&nbsp;")));
  QString tip = tr("Per mode: native (real low-precision kernels) or emulated (FP32 arithmetic with "
                   "exact IEEE rounding where autocast would cast), and where a mode diverged.");
  if (!reasons.isEmpty()) tip += QStringLiteral("\n\n") + reasons.join(QLatin1Char('\n'));
  modesLabel_->setToolTip(tip);
}

}  // namespace ampscope::ui
