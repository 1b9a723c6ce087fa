#include "ui/lessons/lesson_controller.h"

#include <qcustomplot.h>

#include <QHash>
#include <QSettings>

#include "ui/lessons/lesson_host.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/lessons/panel_highlight.h"

namespace ampscope::ui {

namespace {
const QString kLastLessonKey = QStringLiteral("lessons/last");
const QColor kCalloutColor(240, 150, 20);
// Feature anchors have no y of their own: they sit this far down the plot (0 = top edge, 1 = bottom).
constexpr double kFeatureAnchorRatioY = 0.2;
// The label sits this many pixels right of and below the point the arrow touches (below, because
// feature anchors sit near the top of the plot); several labels in one plot are stacked further down.
constexpr double kLabelOffsetX = 24;
constexpr double kLabelOffsetY = 36;
constexpr double kLabelStackStep = 64;
// QCPItemText does not wrap; callouts are broken into lines of about this many Latin-letter widths.
constexpr int kWrapWidth = 34;

// Breaks `text` into lines of at most kWrapWidth columns: at a space where there is one, anywhere in
// Chinese text (which has no spaces; its characters count two columns, as they are about twice as wide).
QString wrapForPlot(const QString& text) {
  QString out;
  int width = 0;
  qsizetype lastSpace = -1;  // in `out`, within the current line
  for (const QChar c : text) {
    const int w = c.unicode() >= 0x2E80 ? 2 : 1;
    if (width + w > kWrapWidth) {
      if (lastSpace >= 0) {
        out[lastSpace] = u'\n';
        width = static_cast<int>(out.size() - lastSpace - 1);
      } else {
        out += u'\n';
        width = 0;
      }
      lastSpace = -1;
    }
    if (c == u' ') lastSpace = out.size();
    out += c;
    width += w;
  }
  return out;
}
}  // namespace

LessonController::LessonController(const LessonLibrary& library, LessonHost& host, LessonPanel& panel,
                                   QObject* parent)
    : QObject(parent), library_(library), host_(host), panel_(panel) {
  connect(&panel_, &LessonPanel::nextRequested, this, &LessonController::next);
  connect(&panel_, &LessonPanel::previousRequested, this, &LessonController::previous);
  connect(&panel_, &LessonPanel::variantChosen, this, &LessonController::selectVariant);
  connect(&panel_, &LessonPanel::calloutActivated, this, &LessonController::activateCallout);
  connect(&panel_, &LessonPanel::injectOverflowRequested, this, [this] { host_.injectOverflow(); });
  connect(&panel_, &LessonPanel::languageChanged, this, [this] {
    clearPlotCallouts();
    addPlotCallouts();
  });
}

LessonController::~LessonController() { clearPlotCallouts(); }

const Lesson* LessonController::currentLesson() const {
  return current_ >= 0 && current_ < library_.size() ? &library_.at(current_) : nullptr;
}

QString LessonController::defaultLessonId(const LessonLibrary& library) {
  return library.isEmpty() ? QString() : library.at(0).id;
}

QString LessonController::rememberedLessonId() { return QSettings().value(kLastLessonKey).toString(); }

bool LessonController::openLesson(const QString& id) { return openIndex(library_.indexOf(id)); }

bool LessonController::openIndex(int index) {
  if (index < 0 || index >= library_.size()) return false;
  current_ = index;
  variant_ = 0;
  panel_.setLesson(&library_.at(index), index, library_.size());
  panel_.setCurrentVariant(0);
  applyCurrent();
  QSettings().setValue(kLastLessonKey, library_.at(index).id);
  emit lessonOpened(library_.at(index).id);
  return true;
}

void LessonController::closeLesson() {
  if (current_ < 0) return;
  clearPlotCallouts();
  current_ = -1;
  variant_ = 0;
  panel_.setLesson(nullptr, -1, library_.size());
  emit lessonClosed();
}

bool LessonController::next() { return current_ + 1 < library_.size() && openIndex(current_ + 1); }

bool LessonController::previous() { return current_ > 0 && openIndex(current_ - 1); }

bool LessonController::selectVariant(int index) {
  const Lesson* lesson = currentLesson();
  if (!lesson || index < 0 || index >= lesson->variants.size()) return false;
  variant_ = index;
  panel_.setCurrentVariant(index);
  host_.stopRun();
  host_.loadRunConfig(*lesson->configFor(index));
  return true;
}

bool LessonController::activateCallout(int index) {
  const Lesson* lesson = currentLesson();
  if (!lesson || index < 0 || index >= lesson->callouts.size()) return false;
  const QString& panelId = lesson->callouts[index].panel;
  if (!host_.raisePanel(panelId)) {
    emit missingPanel(lesson->id, panelId);
    return false;
  }
  PanelHighlight::flash(host_.panelWidget(panelId));
  return true;
}

void LessonController::applyCurrent() {
  const Lesson& lesson = library_.at(current_);
  clearPlotCallouts();
  host_.stopRun();
  if (const std::optional<RunConfig> config = lesson.configFor(variant_)) host_.loadRunConfig(*config);
  host_.applyLayout(lesson);
  // Raise in reverse so that, where panels share a tab group, the first one listed ends up in front.
  for (auto it = lesson.panels.crbegin(); it != lesson.panels.crend(); ++it) {
    if (!host_.raisePanel(*it)) emit missingPanel(lesson.id, *it);
  }
  addPlotCallouts();
}

QCustomPlot* LessonController::plotIn(QWidget* panel) {
  if (!panel) return nullptr;
  if (auto* plot = qobject_cast<QCustomPlot*>(panel)) return plot;
  return panel->findChild<QCustomPlot*>();
}

int LessonController::plotCalloutCount() const {
  int count = 0;
  for (const PlotItem& entry : plotItems_) count += entry.plot ? 1 : 0;
  return count;
}

void LessonController::clearPlotCallouts() {
  for (const PlotItem& entry : plotItems_) {
    // The plot owns its items; if it is gone, so are they.
    if (entry.plot && entry.plot->hasItem(entry.item)) {
      entry.plot->removeItem(entry.item);
      entry.plot->replot(QCustomPlot::rpQueuedReplot);
    }
  }
  plotItems_.clear();
}

void LessonController::addPlotCallouts() {
  const Lesson* lesson = currentLesson();
  if (!lesson) return;
  const QLocale locale;
  QHash<QCustomPlot*, int> labelsPerPlot;
  for (const Lesson::Callout& callout : lesson->callouts) {
    if (callout.anchor.kind == Lesson::Anchor::Kind::None) continue;
    QCustomPlot* plot = plotIn(host_.panelWidget(callout.panel));
    if (!plot || !plot->axisRect()) continue;

    auto* arrow = new QCPItemLine(plot);
    arrow->setObjectName(QStringLiteral("lessonCalloutArrow"));
    arrow->setPen(QPen(kCalloutColor, 2));
    arrow->setHead(QCPLineEnding::esSpikeArrow);
    arrow->setClipToAxisRect(true);
    arrow->end->setTypeX(QCPItemPosition::ptPlotCoords);
    arrow->end->setCoords(callout.anchor.x, callout.anchor.y);
    if (callout.anchor.kind == Lesson::Anchor::Kind::Feature) {
      // x from the feature, y as a fraction of the axis rect, so the arrow stays visible whatever the data.
      arrow->end->setTypeY(QCPItemPosition::ptAxisRectRatio);
      arrow->end->setCoords(callout.anchor.x, kFeatureAnchorRatioY);
    }
    arrow->start->setParentAnchor(arrow->end);
    const int stacked = labelsPerPlot[plot]++;
    arrow->start->setCoords(kLabelOffsetX, kLabelOffsetY + stacked * kLabelStackStep);

    auto* label = new QCPItemText(plot);
    label->setObjectName(QStringLiteral("lessonCalloutText"));
    label->setClipToAxisRect(false);
    label->position->setParentAnchor(arrow->start);
    label->position->setCoords(0, 0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setText(callout.text.text(locale));
    label->setColor(Qt::black);
    QColor fill = kCalloutColor.lighter(170);
    fill.setAlpha(230);  // the data behind stays faintly visible
    label->setBrush(QBrush(fill));
    label->setPen(QPen(kCalloutColor));
    label->setPadding(QMargins(6, 4, 6, 4));
    label->setTextAlignment(Qt::AlignLeft);
    label->setText(wrapForPlot(callout.text.text(locale)));

    plotItems_ << PlotItem{plot, arrow} << PlotItem{plot, label};
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
}

}  // namespace ampscope::ui
