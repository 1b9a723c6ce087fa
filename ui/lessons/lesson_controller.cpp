#include "ui/lessons/lesson_controller.h"

#include <qcustomplot.h>

#include <QHash>
#include <QSettings>

#include "ampscope/engine/session_codec.h"

#include "ui/lessons/lesson_host.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/lessons/panel_highlight.h"
#include "ui/lessons/plot_callouts.h"

namespace ampscope::ui {

namespace {
const QString kLastLessonKey = QStringLiteral("lessons/last");
}  // namespace

LessonController::LessonController(const LessonLibrary& library, LessonHost& host, LessonPanel& panel,
                                   QObject* parent)
    : QObject(parent), library_(library), host_(host), panel_(panel) {
  panel_.setClaimChecks(&claims_);
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

LessonController::~LessonController() {
  clearPlotCallouts();
  panel_.setClaimChecks(nullptr);
}

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
  claims_.clear();  // the previous lesson's checks are not this one's
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
  claims_.clear();
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
  armClaims(lesson->configFor(index));
  clearPlotCallouts();  // a variant's own anchors
  addPlotCallouts();
  return true;
}

void LessonController::arrangeWindow() {
  const Lesson* lesson = currentLesson();
  if (!lesson) return;
  teachersLayout_ = host_.applyLayout(*lesson);
  raiseLessonPanels();
}

void LessonController::raiseLessonPanels() {
  const Lesson* lesson = currentLesson();
  if (!lesson) return;
  // In reverse, so that the first one listed ends up in front of its tab group.
  for (auto it = lesson->panels.crbegin(); it != lesson->panels.crend(); ++it) {
    if (teachersLayout_ && !host_.panelOpen(*it)) continue;  // a callout still opens it
    if (!host_.raisePanel(*it)) emit missingPanel(lesson->id, *it);
  }
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
  armClaims(lesson.configFor(variant_));
  arrangeWindow();
  addPlotCallouts();
}

void LessonController::armClaims(const std::optional<RunConfig>& config) {
  const Lesson* lesson = currentLesson();
  claims_.arm(lesson, lesson ? lesson->variantId(variant_) : QString(), lesson && lesson->config ? config : std::nullopt);
  panel_.refreshClaims();
}

void LessonController::runStarted(const RunConfig& config) { armClaims(config); }

void LessonController::configEdited(const RunConfig& config) { armClaims(config); }

void LessonController::observeRecords(const std::vector<ampscope::StepRecord>& records) {
  if (!claims_.hasClaims() || records.empty()) return;
  claims_.observe(records);
  panel_.refreshClaims();
}

void LessonController::replayRun(const RunConfig& config, const std::vector<ampscope::StepRecord>& records) {
  const Lesson* lesson = currentLesson();
  if (!lesson) return;
  // A session keeps the configuration, not the variant: the variant whose configuration it is, as the
  // session codec writes both (an edited configuration matches none and keeps the variant chosen).
  const std::string recorded = sessionHeaderJson(config, {});
  for (int i = 0; i < lesson->variants.size(); ++i) {
    const std::optional<RunConfig> variant = lesson->configFor(i);
    if (!variant || sessionHeaderJson(*variant, {}) != recorded) continue;
    if (i != variant_) {
      variant_ = i;
      panel_.setCurrentVariant(i);
      clearPlotCallouts();
      addPlotCallouts();
    }
    break;
  }
  claims_.arm(lesson, lesson->variantId(variant_), lesson->config ? std::optional<RunConfig>(config) : std::nullopt);
  if (claims_.hasClaims()) {
    claims_.observe(records);
    if (!records.empty() && records.back().step >= config.steps) claims_.finish();
  }
  panel_.refreshClaims();
}

void LessonController::runFinished() {
  if (!claims_.hasClaims()) return;
  claims_.finish();
  panel_.refreshClaims();
}

QCustomPlot* LessonController::plotIn(QWidget* panel) {
  if (!panel) return nullptr;
  if (auto* plot = qobject_cast<QCustomPlot*>(panel)) return plot;
  return panel->findChild<QCustomPlot*>();
}

int LessonController::plotCalloutCount() const {
  int count = 0;
  for (const QPointer<PlotCallouts>& callouts : plotCallouts_) count += callouts ? 2 * callouts->count() : 0;
  return count;
}

QList<QRectF> LessonController::calloutRects() const {
  QList<QRectF> out;
  for (const QPointer<PlotCallouts>& callouts : plotCallouts_) {
    if (!callouts) continue;
    const QPointF origin = callouts->plot()->mapToGlobal(QPoint(0, 0));
    for (const QRectF& r : callouts->rects()) out << r.translated(origin);
  }
  return out;
}

QList<QPointF> LessonController::calloutAnchors() const {
  QList<QPointF> out;
  for (const QPointer<PlotCallouts>& callouts : plotCallouts_) {
    if (!callouts) continue;
    const QPointF origin = callouts->plot()->mapToGlobal(QPoint(0, 0));
    for (const QPointF& p : callouts->anchors()) out << p + origin;
  }
  return out;
}

void LessonController::clearPlotCallouts() {
  for (const QPointer<PlotCallouts>& callouts : plotCallouts_)
    if (callouts) callouts->clear();
  plotCallouts_.clear();
}

void LessonController::addPlotCallouts() {
  const Lesson* lesson = currentLesson();
  if (!lesson) return;
  const QLocale locale;
  int number = 0;
  for (const Lesson::Callout& callout : lesson->callouts) {
    ++number;  // as the lesson panel numbers the list
    if (callout.anchor.kind == Lesson::Anchor::Kind::None) continue;
    if (!callout.drawnFor(lesson->variantId(variant_))) continue;
    QCustomPlot* plot = plotIn(host_.panelWidget(callout.panel));
    if (!plot || !plot->axisRect()) continue;
    PlotCallouts* callouts = PlotCallouts::of(plot);
    callouts->add(callout.anchor, callout.text.text(locale), number);
    if (!plotCallouts_.contains(callouts)) plotCallouts_ << callouts;
  }
}

}  // namespace ampscope::ui
