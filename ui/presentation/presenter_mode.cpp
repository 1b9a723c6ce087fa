#include "ui/presentation/presenter_mode.h"

#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QEvent>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QStatusBar>
#include <QToolBar>

#include "ui/training/plot_panel.h"

namespace ampscope::ui {

namespace {
// Dynamic properties holding a plot element's size before scaling, so repeated toggles never drift.
const char* const kBaseWidth = "ampscopeBasePenWidth";
const char* const kBaseLabelFont = "ampscopeBaseLabelFont";
const char* const kBaseTickFont = "ampscopeBaseTickFont";
const char* const kBaseFont = "ampscopeBaseFont";

// Widget classes QApplication may hold a theme font for (QApplicationPrivate's font hash).
const char* const kThemedFontClasses[] = {
    "QMenuBar",     "QMenu",       "QMenuItem",         "QToolButton", "QPushButton",      "QCheckBox",
    "QRadioButton", "QLabel",      "QTipLabel",         "QStatusBar",  "QDockWidgetTitle", "QGroupBox",
    "QTabBar",      "QHeaderView", "QAbstractItemView", "QListView",   "QComboMenuItem",   "QComboLineEdit",
    "QLineEdit",    "QTextEdit",   "QMessageBoxLabel",  "QSmallFont",  "QMiniFont"};

double scaledSize(QObject* object, const char* property, double current, double scale) {
  QVariant base = object->property(property);
  if (!base.isValid()) {
    object->setProperty(property, current);
    base = current;
  }
  return base.toDouble() * scale;
}

QFont scaledFont(QObject* object, const char* property, QFont font, double scale) {
  if (font.pointSizeF() > 0) font.setPointSizeF(scaledSize(object, property, font.pointSizeF(), scale));
  return font;
}

// The plot's PlotPanel (ui/training's streaming-plot frame, which scales its own pens), if it has one.
PlotPanel* plotPanelOf(QCustomPlot* plot) {
  for (QObject* o = plot->parent(); o; o = o->parent()) {
    if (auto* panel = qobject_cast<PlotPanel*>(o)) return panel->plot() == plot ? panel : nullptr;
  }
  return nullptr;
}
}  // namespace

PresenterMode::PresenterMode(QMainWindow* window) : QObject(window), window_(window) {
  // The training workspace's run panel (ui/training names its docks "training.<id>").
  controlDocks_ = {QStringLiteral("training.run")};

  fullScreen_ = new QAction(this);
  fullScreen_->setObjectName(QStringLiteral("actionFullScreen"));
  fullScreen_->setCheckable(true);
  fullScreen_->setShortcuts(QKeySequence::FullScreen);
  connect(fullScreen_, &QAction::toggled, this, &PresenterMode::setFullScreen);

  scale_ = new QAction(this);
  scale_->setObjectName(QStringLiteral("actionPresenterScale"));
  scale_->setCheckable(true);
  scale_->setShortcuts({QKeySequence(Qt::Key_F5), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P)});
  connect(scale_, &QAction::toggled, this, &PresenterMode::setScaled);

  hideControls_ = new QAction(this);
  hideControls_->setObjectName(QStringLiteral("actionHideControls"));
  hideControls_->setCheckable(true);
  hideControls_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
  connect(hideControls_, &QAction::toggled, this, &PresenterMode::setControlsHidden);

  // Esc leaves the clean view (and full screen); it is only enabled while there is something to leave,
  // so it does not take Esc away from the window otherwise.
  restore_ = new QAction(this);
  restore_->setShortcut(QKeySequence(Qt::Key_Escape));
  restore_->setEnabled(false);
  connect(restore_, &QAction::triggered, this, [this] {
    setControlsHidden(false);
    setFullScreen(false);
  });

  for (QAction* action : {fullScreen_, scale_, hideControls_, restore_}) {
    action->setShortcutContext(Qt::WindowShortcut);
    window_->addAction(action);
  }
  qApp->installEventFilter(this);
  window_->installEventFilter(this);
  retranslate();
}

PresenterMode::~PresenterMode() {
  if (qApp) qApp->removeEventFilter(this);
}

void PresenterMode::setFullScreen(bool on) {
  if (on) {
    window_->setWindowState(window_->windowState() | Qt::WindowFullScreen);
  } else {
    window_->setWindowState(window_->windowState() & ~Qt::WindowFullScreen);
  }
  const QSignalBlocker block(fullScreen_);
  fullScreen_->setChecked(on);
  restore_->setEnabled(on || controlsHidden_);
}

void PresenterMode::setScaled(bool on) {
  if (on == scaled_) return;
  scaled_ = on;
  {
    const QSignalBlocker block(scale_);
    scale_->setChecked(on);
  }
  if (on) {
    baseFont_ = QApplication::font();
    // The platform theme may give widget classes fonts of their own (labels, menus, tool buttons ...),
    // even ones equal to the application font; those entries do not follow the application font, so
    // every class that may have one is scaled (and restored) one by one.
    baseClassFonts_.clear();
    for (const char* className : kThemedFontClasses)
      baseClassFonts_.append({className, QApplication::font(className)});
    QFont font = baseFont_;
    font.setPointSizeF(baseFont_.pointSizeF() * kScale);
    QApplication::setFont(font);
    for (const auto& [className, classFont] : std::as_const(baseClassFonts_)) {
      QFont scaled = classFont;
      scaled.setPointSizeF(classFont.pointSizeF() * kScale);
      QApplication::setFont(scaled, className);
    }
  } else {
    QApplication::setFont(baseFont_);
    for (const auto& [className, classFont] : std::as_const(baseClassFonts_))
      QApplication::setFont(classFont, className);
    baseClassFonts_.clear();
  }
  scaleAllPlots();
}

void PresenterMode::setControlsHidden(bool on) {
  if (on == controlsHidden_) return;
  controlsHidden_ = on;
  {
    const QSignalBlocker block(hideControls_);
    hideControls_->setChecked(on);
  }
  if (on) {
    hiddenByUs_.clear();
    QList<QWidget*> candidates;
    if (window_->menuBar()) candidates << window_->menuBar();
    if (QStatusBar* status = window_->findChild<QStatusBar*>(QString(), Qt::FindDirectChildrenOnly))
      candidates << status;
    for (QToolBar* bar : window_->findChildren<QToolBar*>(QString(), Qt::FindDirectChildrenOnly))
      candidates << bar;
    for (QDockWidget* dock : window_->findChildren<QDockWidget*>()) {
      if (controlDocks_.contains(dock->objectName())) candidates << dock;
    }
    for (QWidget* widget : candidates) {
      if (widget->isVisible()) {
        hiddenByUs_ << widget;
        widget->hide();
      }
    }
  } else {
    // Only what was hidden here comes back: a dock the user had closed stays closed.
    for (const QPointer<QWidget>& widget : std::as_const(hiddenByUs_)) {
      if (widget) widget->show();
    }
    hiddenByUs_.clear();
  }
  restore_->setEnabled(on || window_->isFullScreen());
}

void PresenterMode::scaleAllPlots() const {
  for (QCustomPlot* plot : window_->findChildren<QCustomPlot*>()) scalePlot(plot);
  // Plots in floating docks and other top-level windows of the app.
  for (QWidget* top : QApplication::topLevelWidgets()) {
    if (top == window_ || top->parentWidget() == window_) continue;
    for (QCustomPlot* plot : top->findChildren<QCustomPlot*>()) scalePlot(plot);
  }
}

void PresenterMode::scalePlot(QCustomPlot* plot) const {
  if (!plot) return;
  const double scale = currentScale();
  if (PlotPanel* panel = plotPanelOf(plot)) {
    panel->setLineScale(scale);
  } else {
    for (int i = 0; i < plot->plottableCount(); ++i) {
      QCPAbstractPlottable* plottable = plot->plottable(i);
      QPen pen = plottable->pen();
      // A cosmetic pen of width 0 draws one pixel wide: scale from 1.
      pen.setWidthF(scaledSize(plottable, kBaseWidth, pen.widthF() > 0 ? pen.widthF() : 1.0, scale));
      plottable->setPen(pen);
    }
  }
  for (QCPAxisRect* rect : plot->axisRects()) {
    for (QCPAxis* axis : rect->axes()) {
      axis->setLabelFont(scaledFont(axis, kBaseLabelFont, axis->labelFont(), scale));
      axis->setTickLabelFont(scaledFont(axis, kBaseTickFont, axis->tickLabelFont(), scale));
    }
  }
  if (plot->legend) plot->legend->setFont(scaledFont(plot->legend, kBaseFont, plot->legend->font(), scale));
  for (QCPLayoutElement* element : plot->plotLayout()->elements(true)) {
    if (auto* text = qobject_cast<QCPTextElement*>(element)) {
      text->setFont(scaledFont(text, kBaseFont, text->font(), scale));
    }
  }
  for (int i = 0; i < plot->itemCount(); ++i) {
    if (auto* text = qobject_cast<QCPItemText*>(plot->item(i))) {
      text->setFont(scaledFont(text, kBaseFont, text->font(), scale));
    }
  }
  plot->replot(QCustomPlot::rpQueuedReplot);
}

QMenu* PresenterMode::addMenuTo(QMenu* parent) {
  if (menu_) return menu_;
  menu_ = parent->addMenu(QString());
  menu_->setObjectName(QStringLiteral("presenterMenu"));
  menu_->addAction(fullScreen_);
  menu_->addAction(scale_);
  menu_->addAction(hideControls_);
  menu_->installEventFilter(this);
  retranslate();
  return menu_;
}

bool PresenterMode::eventFilter(QObject* watched, QEvent* event) {
  switch (event->type()) {
    case QEvent::Polish:
      // A plot created while scaled (a reopened dock, a new comparison) gets the presenter sizes too.
      if (scaled_) {
        if (auto* plot = qobject_cast<QCustomPlot*>(watched)) scalePlot(plot);
      }
      break;
    case QEvent::LanguageChange:
      if (watched == window_) retranslate();
      break;
    case QEvent::WindowStateChange:
      if (watched == window_) {
        const QSignalBlocker block(fullScreen_);
        fullScreen_->setChecked(window_->isFullScreen());
        restore_->setEnabled(window_->isFullScreen() || controlsHidden_);
      }
      break;
    default:
      break;
  }
  return QObject::eventFilter(watched, event);
}

void PresenterMode::retranslate() {
  fullScreen_->setText(tr("&Full Screen"));
  scale_->setText(tr("&Presenter Scaling (Larger Text and Lines)"));
  hideControls_->setText(tr("&Hide Controls"));
  restore_->setText(tr("Leave Presenter View"));
  if (menu_) menu_->setTitle(tr("&Presenter"));
}

}  // namespace ampscope::ui
