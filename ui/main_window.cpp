#include "ui/main_window.h"

#include <algorithm>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QCursor>
#include <QDockWidget>
#include <QIcon>
#include <QKeySequence>
#include <QMenu>
#include <QMenuBar>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QShowEvent>
#include <QTabBar>
#include <QTimer>

#include "ui/about_dialog.h"
#include "ui/advice/advice_panel.h"
#include "ui/export/export_manager.h"
#include "ui/follow/follow_controller.h"
#include "ui/follow/follow_workspace.h"
#include "ui/follow/nonfinite_table.h"
#include "ui/formats/format_text.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/session/session_controller.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/plot_panel.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {

namespace {

// QSettings keys of the saved layout.
const char* const kGeometryKey = "mainWindow/geometry";
const char* const kStateKey = "mainWindow/state";
const char* const kLayoutVersionKey = "mainWindow/layoutVersion";
// Up to this size a screen's whole available area is the window's on a first start (a projector, a
// laptop, a 1080p monitor: the lessons need every pixel). A larger screen gives the window
// kLargeScreenFraction of each side, at least this much.
constexpr int kWholeScreenWidth = 1920;
constexpr int kWholeScreenHeight = 1200;
constexpr double kLargeScreenFraction = 0.8;

QDockWidget* dockOf(QWidget* widget) {
  for (QWidget* w = widget; w; w = w->parentWidget()) {
    if (auto* dock = qobject_cast<QDockWidget*>(w)) return dock;
  }
  return nullptr;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setObjectName(QStringLiteral("mainWindow"));
  setWindowTitle(tr("AmpScope"));
  setWindowIcon(QIcon(QStringLiteral(":/icons/ampscope.svg")));
  setDockNestingEnabled(true);
  setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowNestedDocks | QMainWindow::AllowTabbedDocks |
                 QMainWindow::GroupedDragging);
  setTabPosition(Qt::AllDockWidgetAreas, QTabWidget::North);
  // Qt does not support a main window without a central widget; the panels are all docks, so the
  // central widget is an empty placeholder that takes no space.
  auto* placeholder = new QWidget(this);
  placeholder->setObjectName(QStringLiteral("centralPlaceholder"));
  placeholder->setMaximumSize(0, 0);
  setCentralWidget(placeholder);
  centralWidget()->hide();

  createMenus();

  m_formatsPanel = new formats::NumberFormatsPanel(this);
  m_formatsDock = new QDockWidget(tr("Number formats"), this);
  m_formatsDock->setObjectName(QStringLiteral("numberFormatsDock"));
  // The whole panel scrolls as one where the dock is short (a lesson's column on a 720-pixel screen), so
  // the dock asks for little height and the tables inside keep the height of their rows.
  auto* formatsScroll = new QScrollArea(m_formatsDock);
  formatsScroll->setObjectName(QStringLiteral("numberFormatsScroll"));
  formatsScroll->setWidgetResizable(true);
  formatsScroll->setFrameShape(QFrame::NoFrame);
  formatsScroll->setWidget(m_formatsPanel);
  m_formatsDock->setWidget(formatsScroll);
  addPanel(m_formatsDock, Qt::LeftDockWidgetArea);

  // Live-training workspace (ui/training): constructed here, after the number-format panel.
  m_training = new TrainingWorkspace(this, m_viewMenu);
  // From a plotted value to its bits and back: a clicked histogram bin, heat-map cell, loss scale, FP8
  // scale or underflow point opens in the formats panel, whose value marks its bin on the histogram.
  for (PlotPanel* plot : m_training->valuePlots())
    connect(plot, &PlotPanel::valueActivated, this, [this](double value, const QString& context) {
      m_formatsPanel->showPlotValue(value, context);
      m_formatsDock->show();
      m_formatsDock->raise();
    });
  connect(m_formatsPanel, &formats::NumberFormatsPanel::valueChanged, m_training->histogramPlot(),
          &HistogramPlot::markValue);
  m_formatsPanel->setValueText(m_formatsPanel->valueText());  // the value shown now marks its bin too
  ExportManager::install(this, m_fileMenu);  // File -> Export..., every plot's context menu (ui/export)

  // Sessions (ui/session): the File menu's Open/Save/Recent/Export/Reproduce commands, autosave while
  // training, and the recorder that keeps every step (the store the plots read decimates old ones).
  m_session = new SessionController(this, QString(), this);
  m_session->installMenu(m_fileMenu);
  RunController* run = m_training->controller();
  connect(run, &RunController::runStarted, m_session, [this, run] { m_session->onRunStarted(run->config()); });
  connect(run, &RunController::recordsDrained, m_session, &SessionController::onRecords, Qt::DirectConnection);
  connect(run, &RunController::stateChanged, m_session, [this](RunState state) {
    if (state != RunState::Running) m_session->onRunStopped();
  });
  // Followed runs (ui/follow): File > Follow Run… above Quit; their series share the engine's store.
  QAction* quit = findChild<QAction*>(QStringLiteral("quitAction"));
  m_follow = new FollowWorkspace(this, run->store(), m_fileMenu, quit, m_viewMenu);
  connect(m_follow, &FollowWorkspace::dataAppended, m_training, &TrainingWorkspace::refreshFromStore);
  connect(m_follow, &FollowWorkspace::dataAppended, m_session, &SessionController::onFollowedData);
  // A lesson's layout may have hidden the training plots (the number-format lessons show none): a run
  // the user just chose to follow must be visible.
  const auto showTrainingPlots = [this] {
    for (const char* id : {"loss", "scale", "histogram", "heatmap", "underflow"})
      if (QDockWidget* dock = m_training->dock(QLatin1String(id))) dock->show();
    for (const char* id : {"loss", "histogram", "underflow"})  // the front tab where docks share a place
      if (QDockWidget* dock = m_training->dock(QLatin1String(id))) dock->raise();
  };
  connect(m_follow, &FollowWorkspace::followStarted, this, showTrainingPlots);
  NonFiniteTable* nonFinite = m_follow->nonFiniteTable();
  const QString engineRun = tr("AmpScope run");
  connect(run, &RunController::runStarted, nonFinite, [nonFinite, engineRun] { nonFinite->clearRun(engineRun); });
  connect(run, &RunController::recordsDrained, nonFinite,
          [nonFinite, engineRun](const std::vector<StepRecord>& batch) { nonFinite->addRecords(engineRun, batch); });
  m_session->setFollowedRunsProvider([this] { return m_follow->controller()->followedRuns(); });
  m_session->autosave()->setFollowedSource([this] { return m_follow->controller()->journalViews(); });
  m_session->setLoadHandler([this, nonFinite, engineRun, showTrainingPlots](const Session& session) {
    m_follow->controller()->clear();
    nonFinite->clear();
    m_training->applyConfig(session.config);
    m_training->controller()->showRecords(session.config, session.records);
    nonFinite->addRecords(engineRun, session.records);
    m_follow->controller()->restore(session.followed);
    // Followed runs come back into the plots: where a lesson's layout hides them (after a crash while
    // only following, the first lesson's does), show them as following does.
    if (!session.followed.empty()) showTrainingPlots();
  });

  // A first start (no saved geometry: restoreLayout() replaces this) uses the screen, centred in its
  // available area. Where a window manager draws a frame, fitToScreen() takes it off when shown.
  if (const QScreen* screen = QGuiApplication::primaryScreen()) {
    const QRect available = screen->availableGeometry();
    const QSize size = startSize(available.size());
    setGeometry(QRect(available.topLeft() + QPoint((available.width() - size.width()) / 2,
                                                   (available.height() - size.height()) / 2),
                      size));
  }
}

QSize MainWindow::startSize(const QSize& available) {
  if (available.width() <= kWholeScreenWidth && available.height() <= kWholeScreenHeight) return available;
  const QSize fraction(qRound(available.width() * kLargeScreenFraction), qRound(available.height() * kLargeScreenFraction));
  return fraction.expandedTo(QSize(kWholeScreenWidth, kWholeScreenHeight)).boundedTo(available);
}

MainWindow::~MainWindow() = default;

void MainWindow::createMenus() {
  m_fileMenu = menuBar()->addMenu(tr("&File"));
  QAction* quit = m_fileMenu->addAction(tr("&Quit"), this, &QWidget::close);
  quit->setObjectName(QStringLiteral("quitAction"));
  quit->setShortcut(QKeySequence::Quit);
  quit->setMenuRole(QAction::QuitRole);

  m_viewMenu = menuBar()->addMenu(tr("&View"));
  m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
  m_panelsSeparator = m_viewMenu->addSeparator();
  m_resetLayoutAction = m_viewMenu->addAction(tr("&Reset layout"), this, &MainWindow::resetLayout);
  m_resetLayoutAction->setObjectName(QStringLiteral("resetLayoutAction"));
  m_resetLayoutAction->setToolTip(tr("Show every panel again, in its original place."));
  m_focusAction = m_viewMenu->addAction(tr("&Focus on Panel"), this, [this] { toggleFocus(); });
  m_focusAction->setObjectName(QStringLiteral("focusPanelAction"));
  m_focusAction->setCheckable(true);
  m_focusAction->setShortcut(QKeySequence(Qt::Key_F6));
  m_focusAction->setShortcutContext(Qt::WindowShortcut);
  m_focusAction->setToolTip(
      tr("Show the panel with the keyboard focus (or under the mouse) alone in the window; again to go back (F6)."));
  // Also on the window itself, so F6 works while presenter mode hides the menu bar.
  addAction(m_focusAction);

  m_analysisMenu = menuBar()->addMenu(tr("&Analysis"));
  m_analysisMenu->setObjectName(QStringLiteral("analysisMenu"));
  m_adviceAction = m_analysisMenu->addAction(tr("Precision &Advice…"), this, [this] { showAdvice(); });
  m_adviceAction->setObjectName(QStringLiteral("adviceAction"));
  m_adviceAction->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
  m_adviceAction->setToolTip(tr("Which layers hold FP16, BF16 or FP8 safely and which to keep in higher precision, "
                                "with the evidence, for this run, a followed run or a file (Ctrl+Shift+A)."));
  m_analysisMenu->setToolTipsVisible(true);
  addAction(m_adviceAction);  // also while presenter mode hides the menu bar

  m_helpMenu = menuBar()->addMenu(tr("&Help"));
  m_aboutAction = m_helpMenu->addAction(tr("&About AmpScope"), this, &MainWindow::showAbout);
  m_aboutAction->setObjectName(QStringLiteral("aboutAction"));
  m_aboutAction->setMenuRole(QAction::AboutRole);
  QAction* aboutQt = m_helpMenu->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
  aboutQt->setObjectName(QStringLiteral("aboutQtAction"));
  aboutQt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::addPanel(QDockWidget* dock, Qt::DockWidgetArea area) {
  Q_ASSERT_X(!dock->objectName().isEmpty(), "MainWindow::addPanel", "a dock needs an objectName");
  dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                    QDockWidget::DockWidgetFloatable);
  addDockWidget(area, dock);
  m_viewMenu->insertAction(m_panelsSeparator, dock->toggleViewAction());
}

void MainWindow::restoreLayout() {
  // The number-format panel is what a student sees first: its tab is the raised one by default.
  m_formatsDock->raise();
  m_defaultState = saveState(kLayoutVersion);
  if (!m_persistLayout) return;
  QSettings settings;
  // Both checks: the explicit key says which version wrote it, restoreState() re-checks the blob.
  if (settings.value(QLatin1String(kLayoutVersionKey)).toInt() != kLayoutVersion) return;
  const QByteArray geometry = settings.value(QLatin1String(kGeometryKey)).toByteArray();
  // Saved on a larger screen (or a projector that is gone), it may not fit this one.
  if (!geometry.isEmpty() && restoreGeometry(geometry)) fitToScreen();
  const QByteArray state = settings.value(QLatin1String(kStateKey)).toByteArray();
  if (!state.isEmpty() && !restoreState(state, kLayoutVersion)) restoreState(m_defaultState, kLayoutVersion);
}

void MainWindow::resetLayout() {
  if (m_defaultState.isEmpty()) m_defaultState = saveState(kLayoutVersion);
  m_focusState.clear();
  m_focusedDock = nullptr;
  m_focusAction->setChecked(false);
  restoreState(m_defaultState, kLayoutVersion);
}

void MainWindow::saveLayout() const {
  QSettings settings;
  settings.setValue(QLatin1String(kLayoutVersionKey), kLayoutVersion);
  settings.setValue(QLatin1String(kGeometryKey), saveGeometry());
  settings.setValue(QLatin1String(kStateKey), userLayoutState());
}

QByteArray MainWindow::userLayoutState() const {
  if (!m_userState.isEmpty()) return m_userState;
  if (!m_focusState.isEmpty()) return m_focusState;
  return saveState(kLayoutVersion);
}

void MainWindow::beginManagedLayout() {
  if (!m_userState.isEmpty()) return;
  m_userState = userLayoutState();
  m_focusState.clear();
  m_focusedDock = nullptr;
  m_focusAction->setChecked(false);
}

void MainWindow::endManagedLayout() {
  m_focusState.clear();
  m_focusedDock = nullptr;
  m_focusAction->setChecked(false);
  if (m_userState.isEmpty()) return;
  restoreState(m_userState, kLayoutVersion);
  m_userState.clear();
}

QDockWidget* MainWindow::focusCandidate() const {
  if (QDockWidget* dock = dockOf(QApplication::focusWidget()); dock && dock->isVisible()) return dock;
  if (QDockWidget* dock = dockOf(QApplication::widgetAt(QCursor::pos())); dock && dock->isVisible()) return dock;
  QDockWidget* largest = nullptr;
  qint64 largestArea = 0;
  for (QDockWidget* dock : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    if (!dock->isVisible() || dock->isFloating()) continue;
    const qint64 area = qint64(dock->width()) * dock->height();
    if (area > largestArea) {
      largest = dock;
      largestArea = area;
    }
  }
  return largest;
}

void MainWindow::setFocusedPanel(QDockWidget* dock) {
  if (!dock) return;
  if (m_focusState.isEmpty()) m_focusState = saveState(kLayoutVersion);
  m_focusedDock = dock;
  for (QDockWidget* other : findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    if (other != dock && !other->isFloating()) other->hide();
  }
  dock->show();
  dock->raise();
  m_focusAction->setChecked(true);
}

void MainWindow::toggleFocus() {
  if (m_focusState.isEmpty()) {
    setFocusedPanel(focusCandidate());
    m_focusAction->setChecked(!m_focusState.isEmpty());
    return;
  }
  const QByteArray state = m_focusState;
  m_focusState.clear();
  m_focusedDock = nullptr;
  m_focusAction->setChecked(false);
  restoreState(state, kLayoutVersion);
}

void MainWindow::fitToScreen() {
  if (!m_fitsScreen) return;
  const QScreen* target = screen() ? screen() : QGuiApplication::primaryScreen();
  if (!target) return;
  const QRect available = target->availableGeometry();
  // The frame (title bar, borders) counts too where a window manager draws one.
  const QSize frameExtra = frameGeometry().size() - geometry().size();
  const QSize room = available.size() - frameExtra;
  if (width() > room.width() || height() > room.height()) resize(size().boundedTo(room));
  QRect frame = frameGeometry();
  if (!available.contains(frame)) {
    // A window whose minimum is larger than the screen cannot fit: its top-left corner stays on screen
    // (so its title bar and menus can be reached), and the bound must not fall below the screen's edge.
    const int maxLeft = std::max(available.left(), available.right() - frame.width() + 1);
    const int maxTop = std::max(available.top(), available.bottom() - frame.height() + 1);
    frame.moveLeft(std::clamp(frame.left(), available.left(), maxLeft));
    frame.moveTop(std::clamp(frame.top(), available.top(), maxTop));
    move(frame.topLeft());
  }
}

bool MainWindow::event(QEvent* event) {
  // The tab bars of tabified panels elide their titles ("Un…", "Op…" at 1280x720, where no tab says
  // which panel it is): whole titles, with scroll buttons where the row is too short. QMainWindow makes
  // these bars itself, setting ElideRight, before they are polished.
  if (event->type() == QEvent::ChildPolished) {
    if (auto* bar = qobject_cast<QTabBar*>(static_cast<QChildEvent*>(event)->child())) {
      bar->setElideMode(Qt::ElideNone);
      bar->setUsesScrollButtons(true);
    }
  }
  const bool handled = QMainWindow::event(event);
  // A layout that needs more room (another lesson's panels, presenter scaling's larger fonts) grows the
  // window past the screen; once the layout has settled, it is brought back inside.
  if (event->type() == QEvent::LayoutRequest && isVisible() && !m_fitQueued) {
    m_fitQueued = true;
    QTimer::singleShot(0, this, [this] {
      m_fitQueued = false;
      fitToScreen();
    });
  }
  return handled;
}

void MainWindow::showEvent(QShowEvent* event) {
  QMainWindow::showEvent(event);
  if (!event->spontaneous()) fitToScreen();
}

AboutDialog* MainWindow::showAbout() {
  auto* dialog = findChild<AboutDialog*>();
  if (!dialog) dialog = new AboutDialog(this);
  dialog->open();
  dialog->raise();
  return dialog;
}

AdvicePanel* MainWindow::advicePanel() {
  if (!m_advicePanel) {
    m_advicePanel = new AdvicePanel(this);
    // The engine's run as a session would save it: the full-resolution records (ui/session), the file it
    // was opened from or saved to; and the followed runs as a session keeps them.
    m_advicePanel->setCurrentRunProvider([this]() -> const ui::Session* {
      const SessionRecorder* recorder = m_session->recorder();
      return recorder->isEmpty() ? nullptr : &recorder->session();
    });
    m_advicePanel->setCurrentRunFileProvider([this] { return m_session->currentPath(); });
    m_advicePanel->setFollowedRunsProvider([this] { return m_follow->controller()->followedRuns(); });
    // Train This Plan: the plan's run goes into the Run panel, as a lesson's configuration does (a run
    // training is stopped first; the panel asked the user).
    m_advicePanel->setRunConfigProvider([this] { return m_training->runPanel()->config(); });
    m_advicePanel->setRunActiveProvider([this] { return m_training->controller()->isActive(); });
    connect(m_advicePanel, &AdvicePanel::trainPlanRequested, this, [this](const RunConfig& config) {
      RunController* run = m_training->controller();
      if (run->isActive()) run->stop();
      m_training->applyConfig(config);
      m_training->raisePanel(QStringLiteral("run"));
      m_training->runPanel()->showPlanBox();
    });
  }
  return m_advicePanel;
}

AdvicePanel* MainWindow::showAdvice() {
  AdvicePanel* panel = advicePanel();
  if (panel->isVisible()) panel->refresh();
  panel->show();
  panel->raise();
  panel->activateWindow();
  return panel;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  // Unsaved recorded steps: offer to save (never asks on the offscreen platform).
  if (!m_session->confirmClose()) {
    event->ignore();
    return;
  }
  // Stop live training (ui/training) here, before the window goes.
  m_training->shutdown();
  m_follow->controller()->stopAll();
  m_session->shutdown();  // a clean exit leaves no autosave behind
  if (m_persistLayout) saveLayout();
  QMainWindow::closeEvent(event);
}

}  // namespace ampscope::ui
