#include "ui/lessons/lesson_workspace.h"

#include <QAction>
#include <QDockWidget>
#include <QEvent>
#include <QMenu>
#include <QMenuBar>
#include <QSet>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <QtDebug>

#include "ui/formats/finfo_table_widget.h"
#include "ui/formats/memory_calculator_widget.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/formats/range_strip_widget.h"
#include "ui/formats/underflow_table_widget.h"
#include "ui/lessons/clip_norm_plot.h"
#include "ui/lessons/lesson_browser.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/lessons/step_time_plot.h"
#include "ui/main_window.h"
#include "ui/session/session_controller.h"
#include "ui/session/session_file.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {

namespace {
const QStringList kFormatsPanels = {QStringLiteral("formats"), QStringLiteral("formats-range"),
                                    QStringLiteral("formats-finfo"), QStringLiteral("formats-underflow"),
                                    QStringLiteral("formats-memory")};
const QStringList kTrainingPanels = {QStringLiteral("run"),      QStringLiteral("loss"),
                                     QStringLiteral("scale"),    QStringLiteral("histogram"),
                                     QStringLiteral("heatmap"),  QStringLiteral("underflow"),
                                     QStringLiteral("op-dtype"), QStringLiteral("memory"),
                                     QStringLiteral("fp8-scale")};
const QString kClipNormId = QStringLiteral("grad-norm");
const QString kStepTimeId = QStringLiteral("step-time");
// A lesson's saved layout: per lesson and per layout version (an older window's state would not fit).
QString savedLayoutKey(const QString& lessonId) {
  return QStringLiteral("lessons/layouts/v%1/%2").arg(MainWindow::kLayoutVersion).arg(lessonId);
}
// Set by Leave Lessons: the next start opens no lesson unless one is asked for.
const QString kLeftLessonsKey = QStringLiteral("lessons/left");
// Shares of the window a lesson layout gives: the left column (lesson text, run panel, number formats)
// when a plot is the large panel, and when a number-format tab is; a large plot's share of the height.
constexpr double kLeftShare = 0.3;
constexpr double kLeftShareFormatsLarge = 0.58;
constexpr double kLargeShare = 0.62;
// The lesson dock's share of the left column's height, above it the run panel and the number formats:
// its "what to look for" items and their states are what a class reads during the run.
constexpr double kLessonColumnShare = 0.68;
}  // namespace

LessonWorkspace::LessonWorkspace(MainWindow& window, const QString& folder)
    : QObject(&window), window_(window), workspace_(*window.trainingWorkspace()) {
  if (!library_.load(folder)) {
    // A broken lesson file must not take the app down: report it and keep the lessons that loaded.
    for (const QString& error : library_.errors()) qWarning("lesson: %s", qPrintable(error));
  }

  panel_ = new LessonPanel(&window_);
  lessonDock_ = addLessonDock(QStringLiteral("panel"), panel_, Qt::LeftDockWidgetArea);

  clipNorm_ = new ClipNormPlot(workspace_.store(), &window_);
  stepTime_ = new StepTimePlot(workspace_.store(), &window_);
  ownDocks_.insert(kClipNormId, addLessonDock(kClipNormId, clipNorm_, Qt::RightDockWidgetArea));
  ownDocks_.insert(kStepTimeId, addLessonDock(kStepTimeId, stepTime_, Qt::RightDockWidgetArea));
  RunController* run = workspace_.controller();
  for (PlotPanel* plot : {static_cast<PlotPanel*>(clipNorm_), static_cast<PlotPanel*>(stepTime_)}) {
    connect(run, &RunController::dataAppended, plot, &PlotPanel::onDataAppended);
    connect(run, &RunController::storeCleared, plot, &PlotPanel::refresh);
    connect(run, &RunController::runStarted, plot, &PlotPanel::refresh);
  }
  // They share the gradient-histogram dock's tab group (the two lessons that use them do not need the
  // histogram), so raising one gives it a full-size plot. Only those lessons show them; they start closed.
  if (QDockWidget* histogram = workspace_.dock(QStringLiteral("histogram"))) {
    for (QDockWidget* dock : ownDocks_) window_.tabifyDockWidget(histogram, dock);
    histogram->raise();
  }
  for (QDockWidget* dock : ownDocks_) dock->hide();

  controller_ = new LessonController(library_, *this, *panel_, this);
  connect(controller_, &LessonController::missingPanel, this,
          [](const QString& lesson, const QString& panel) {
            qWarning("lesson %s: the window has no panel '%s'", qPrintable(lesson), qPrintable(panel));
          });
  connect(panel_, &LessonPanel::browseRequested, this, &LessonWorkspace::browse);
  // The lesson's claims are checked against whatever runs: a run re-arms them with its own configuration,
  // an edit of the run panel (no run active) or a reset with the configuration on screen.
  connect(run, &RunController::runStarted, this, [this, run] { controller_->runStarted(run->config()); });
  connect(run, &RunController::recordsDrained, controller_, &LessonController::observeRecords);
  connect(run, &RunController::stateChanged, this, [this](RunState state) {
    if (state == RunState::Finished) controller_->runFinished();
  });
  RunPanel* runPanel = workspace_.runPanel();
  auto configOnScreen = [this, run, runPanel] {
    if (!run->isActive() && runPanel->isValid()) controller_->configEdited(runPanel->config());
  };
  connect(runPanel, &RunPanel::configChanged, this, configOnScreen);
  connect(run, &RunController::storeCleared, this, configOnScreen);
  // An opened or crash-restored session is shown without training: after the window has shown it, its
  // records feed the checks, so its items read as they did in the live run.
  SessionController* sessions = window_.sessionController();
  sessions->setLoadHandler([this, shown = sessions->loadHandler()](const Session& session) {
    if (shown) shown(session);
    controller_->replayRun(session.config, session.records);
  });

  menu_ = new QMenu(&window_);
  menu_->setObjectName(QStringLiteral("lessonsMenu"));
  browseAction_ = menu_->addAction(QString(), this, &LessonWorkspace::browse);
  browseAction_->setObjectName(QStringLiteral("browseLessonsAction"));
  browseAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_L));
  menu_->addSeparator();
  menu_->addAction(panel_->previousAction());
  menu_->addAction(panel_->nextAction());
  menu_->addSeparator();
  saveLayoutAction_ = menu_->addAction(QString(), this, &LessonWorkspace::saveLessonLayout);
  saveLayoutAction_->setObjectName(QStringLiteral("saveLessonLayoutAction"));
  resetLayoutAction_ = menu_->addAction(QString(), this, &LessonWorkspace::resetLessonLayout);
  resetLayoutAction_->setObjectName(QStringLiteral("resetLessonLayoutAction"));
  leaveAction_ = menu_->addAction(QString(), this, &LessonWorkspace::leaveLessons);
  leaveAction_->setObjectName(QStringLiteral("leaveLessonsAction"));
  connect(controller_, &LessonController::lessonOpened, this, [this] {
    QSettings().remove(kLeftLessonsKey);
    updateLayoutActions();
  });
  connect(controller_, &LessonController::lessonClosed, this, &LessonWorkspace::updateLayoutActions);
  // Before Help, where a reader expects the app's own menus to end.
  QMenuBar* bar = window_.menuBar();
  QAction* help = window_.helpMenu() ? window_.helpMenu()->menuAction() : nullptr;
  bar->insertMenu(help, menu_);
  menu_->installEventFilter(this);
  // A lesson opened before the window is first shown raised its docks while the tab bars did not exist
  // yet; raise them again once the window is on screen.
  window_.installEventFilter(this);
  baseState_ = window_.saveState(MainWindow::kLayoutVersion);
  retranslate();
  updateLayoutActions();
}

LessonWorkspace::~LessonWorkspace() = default;

QDockWidget* LessonWorkspace::addLessonDock(const QString& id, QWidget* content, Qt::DockWidgetArea area) {
  auto* dock = new QDockWidget(&window_);
  dock->setObjectName(QStringLiteral("lessons.") + id);
  dock->setWidget(content);
  window_.addPanel(dock, area);
  return dock;
}

QStringList LessonWorkspace::panelIds() const {
  return kFormatsPanels + kTrainingPanels + QStringList{kClipNormId, kStepTimeId};
}

bool LessonWorkspace::openStartLesson(const QString& requested) {
  if (!requested.isEmpty()) return controller_->openLesson(requested);
  if (QSettings().value(kLeftLessonsKey).toBool()) return true;
  const QString remembered = LessonController::rememberedLessonId();
  if (library_.find(remembered)) return controller_->openLesson(remembered);
  return controller_->openLesson(LessonController::defaultLessonId(library_));
}

void LessonWorkspace::browse() {
  LessonBrowser browser(library_, &window_);
  if (const Lesson* current = controller_->currentLesson()) browser.setCurrentId(current->id);
  if (browser.exec() == QDialog::Accepted) controller_->openLesson(browser.chosenId());
}

void LessonWorkspace::stopRun() {
  RunController* run = workspace_.controller();
  if (run->isActive()) run->stop();
}

void LessonWorkspace::loadRunConfig(const RunConfig& config) { workspace_.applyConfig(config); }

QDockWidget* LessonWorkspace::dockFor(const QString& panelId) const {
  if (kFormatsPanels.contains(panelId)) return window_.numberFormatsDock();
  if (QDockWidget* dock = ownDocks_.value(panelId)) return dock;
  return workspace_.dock(panelId);
}

bool LessonWorkspace::hasSavedLayout(const QString& lessonId) const {
  return QSettings().contains(savedLayoutKey(lessonId));
}

bool LessonWorkspace::panelOpen(const QString& panelId) {
  QDockWidget* dock = dockFor(panelId);
  // The view toggle is checked for a shown panel and for one behind another's tab.
  return dock && dock->toggleViewAction()->isChecked();
}

bool LessonWorkspace::applyLayout(const Lesson& lesson) {
  window_.beginManagedLayout();
  sizedWhileShown_ = window_.isVisible();
  const QByteArray saved = QSettings().value(savedLayoutKey(lesson.id)).toByteArray();
  if (!saved.isEmpty() && window_.restoreState(saved, MainWindow::kLayoutVersion)) {
    lessonDock_->show();
    return true;
  }
  window_.restoreState(baseState_, MainWindow::kLayoutVersion);
  QSet<QDockWidget*> shown = {lessonDock_};
  for (const QString& id : lesson.layout.visible) {
    if (QDockWidget* dock = dockFor(id)) shown.insert(dock);
  }
  bool anyRight = false;
  for (QDockWidget* dock : window_.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    if (dock->isFloating()) continue;  // a torn-off panel is the teacher's own choice
    dock->setVisible(shown.contains(dock));
    anyRight = anyRight || (shown.contains(dock) && window_.dockWidgetArea(dock) == Qt::RightDockWidgetArea);
  }
  // A lesson about the number formats alone: its text goes beside the panel rather than under it, where
  // the two stacked would be taller than a projector's screen.
  if (!anyRight) window_.addDockWidget(Qt::RightDockWidgetArea, lessonDock_);
  sizeLayout(lesson);
  return false;
}

void LessonWorkspace::sizeLayout(const Lesson& lesson) {
  const QSize size = window_.size();
  bool formatsLarge = false;
  QList<QDockWidget*> largePlots;
  for (const QString& id : lesson.layout.large) {
    QDockWidget* dock = dockFor(id);
    if (!dock) continue;
    if (window_.dockWidgetArea(dock) == Qt::LeftDockWidgetArea) {
      formatsLarge = formatsLarge || dock == window_.numberFormatsDock();
    } else if (!largePlots.contains(dock)) {
      largePlots << dock;
    }
  }
  bool anyRight = false;
  for (QDockWidget* dock : window_.findChildren<QDockWidget*>(Qt::FindDirectChildrenOnly)) {
    anyRight = anyRight || (!dock->isHidden() && !dock->isFloating() &&
                            window_.dockWidgetArea(dock) == Qt::RightDockWidgetArea);
  }
  if (anyRight && window_.dockWidgetArea(lessonDock_) == Qt::LeftDockWidgetArea) {
    const double share = formatsLarge ? kLeftShareFormatsLarge : kLeftShare;
    window_.resizeDocks({lessonDock_}, {static_cast<int>(size.width() * share)}, Qt::Horizontal);
  }
  if (formatsLarge && window_.dockWidgetArea(lessonDock_) == Qt::RightDockWidgetArea) {
    window_.resizeDocks({window_.numberFormatsDock()}, {static_cast<int>(size.width() * kLeftShareFormatsLarge)},
                        Qt::Horizontal);
  } else if (formatsLarge) {
    window_.resizeDocks({window_.numberFormatsDock()}, {static_cast<int>(size.height() * kLargeShare)},
                        Qt::Vertical);
  } else if (window_.dockWidgetArea(lessonDock_) == Qt::LeftDockWidgetArea) {
    window_.resizeDocks({lessonDock_}, {static_cast<int>(size.height() * kLessonColumnShare)}, Qt::Vertical);
  }
  for (QDockWidget* dock : largePlots) {
    window_.resizeDocks({dock}, {static_cast<int>(size.height() * kLargeShare)}, Qt::Vertical);
  }
}

void LessonWorkspace::saveLessonLayout() {
  const Lesson* lesson = controller_->currentLesson();
  if (!lesson) return;
  if (window_.isFocused()) window_.toggleFocus();  // save the arrangement, not the one panel
  QSettings().setValue(savedLayoutKey(lesson->id), window_.saveState(MainWindow::kLayoutVersion));
  updateLayoutActions();
}

void LessonWorkspace::resetLessonLayout() {
  const Lesson* lesson = controller_->currentLesson();
  if (!lesson) return;
  QSettings().remove(savedLayoutKey(lesson->id));
  controller_->arrangeWindow();
  updateLayoutActions();
}

void LessonWorkspace::leaveLessons() {
  controller_->closeLesson();
  window_.endManagedLayout();
  QSettings().setValue(kLeftLessonsKey, true);
}

void LessonWorkspace::updateLayoutActions() {
  const Lesson* lesson = controller_->currentLesson();
  saveLayoutAction_->setEnabled(lesson != nullptr);
  resetLayoutAction_->setEnabled(lesson && hasSavedLayout(lesson->id));
  leaveAction_->setEnabled(lesson != nullptr);
}

QWidget* LessonWorkspace::formatsPage(const QString& panelId) const {
  formats::NumberFormatsPanel* formats = window_.numberFormatsPanel();
  if (!formats) return nullptr;
  if (panelId == QLatin1String("formats")) return formats->tabs()->widget(0);
  if (panelId == QLatin1String("formats-finfo")) return formats->finfoTable();
  if (panelId == QLatin1String("formats-underflow")) return formats->underflowTable();
  if (panelId == QLatin1String("formats-memory")) return formats->memoryCalculator();
  if (panelId == QLatin1String("formats-range")) return formats->rangeStrip();
  return nullptr;
}

bool LessonWorkspace::raisePanel(const QString& panelId) {
  if (kFormatsPanels.contains(panelId)) {
    QWidget* page = formatsPage(panelId);
    QDockWidget* dock = window_.numberFormatsDock();
    if (!page || !dock) return false;
    dock->show();
    dock->raise();
    // The page may sit inside a scroll area or a layout of the tab: select the tab that contains it.
    QTabWidget* tabs = window_.numberFormatsPanel()->tabs();
    for (int i = 0; i < tabs->count(); ++i) {
      if (tabs->widget(i) == page || tabs->widget(i)->isAncestorOf(page)) {
        tabs->setCurrentIndex(i);
        break;
      }
    }
    return true;
  }
  if (QDockWidget* dock = ownDocks_.value(panelId)) {
    dock->show();
    dock->raise();
    return true;
  }
  if (!workspace_.dock(panelId)) return false;
  workspace_.raisePanel(panelId);
  return true;
}

QWidget* LessonWorkspace::panelWidget(const QString& panelId) {
  if (kFormatsPanels.contains(panelId)) return formatsPage(panelId);
  if (QDockWidget* dock = ownDocks_.value(panelId)) return dock->widget();
  QDockWidget* dock = workspace_.dock(panelId);
  return dock ? dock->widget() : nullptr;
}

void LessonWorkspace::injectOverflow() { workspace_.controller()->injectOverflowNextStep(); }

bool LessonWorkspace::eventFilter(QObject* watched, QEvent* event) {
  if (event->type() == QEvent::LanguageChange && watched == menu_) retranslate();
  if (event->type() == QEvent::Show && watched == &window_) {
    QTimer::singleShot(0, this, [this] {
      if (const Lesson* lesson = controller_->currentLesson()) {
        // Shares set before the window had its size are shares of the wrong size.
        if (!sizedWhileShown_ && !hasSavedLayout(lesson->id)) sizeLayout(*lesson);
        sizedWhileShown_ = true;
        controller_->raiseLessonPanels();
      }
    });
  }
  if (event->type() == QEvent::FontChange && watched == &window_ && window_.isVisible() && !fontResizePending_) {
    // Presenter scaling toggled with a lesson open: the lesson's shares again, for the new text size (the
    // docks kept their pixel heights, which left the lesson panel below its minimum). Once, after the
    // font has reached every widget.
    fontResizePending_ = true;
    QTimer::singleShot(0, this, [this] {
      fontResizePending_ = false;
      const Lesson* lesson = controller_->currentLesson();
      if (!lesson || hasSavedLayout(lesson->id)) return;
      sizeLayout(*lesson);
      // Again once the lesson panel has fitted its items to the new size (its minimum may have fallen).
      QTimer::singleShot(0, this, [this] {
        if (const Lesson* current = controller_->currentLesson(); current && !hasSavedLayout(current->id)) sizeLayout(*current);
      });
    });
  }
  return QObject::eventFilter(watched, event);
}

void LessonWorkspace::retranslate() {
  menu_->setTitle(tr("&Lessons"));
  browseAction_->setText(tr("&Browse Lessons…"));
  saveLayoutAction_->setText(tr("&Save Lesson Layout"));
  saveLayoutAction_->setToolTip(tr("This lesson opens with the panels arranged as they are now."));
  resetLayoutAction_->setText(tr("&Reset Lesson Layout"));
  resetLayoutAction_->setToolTip(tr("Forget the saved arrangement: the lesson opens with its own layout again."));
  leaveAction_->setText(tr("L&eave Lessons"));
  leaveAction_->setToolTip(tr("Close the lesson and bring back your own arrangement of the panels."));
  lessonDock_->setWindowTitle(tr("Lesson"));
  ownDocks_.value(kClipNormId)->setWindowTitle(tr("Gradient norm and clipping"));
  ownDocks_.value(kStepTimeId)->setWindowTitle(tr("Step time"));
}

}  // namespace ampscope::ui
