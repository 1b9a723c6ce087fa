// Applies lessons to the window: stops the run in progress, loads the lesson's configuration (variant),
// brings its panels forward, shows the inject-overflow control when asked for, and draws each anchored
// callout as a boxed text with a leader line inside the panel's plot (PlotCallouts places them). It also
// checks the lesson's claims live (LessonClaimChecks): armed afresh when a lesson or variant opens, when the
// configuration is edited and when a run starts, fed with the run's records, shown by the lesson panel. Next /
// Previous / open-by-id move through the library in chapter order; the last lesson opened is remembered
// in QSettings.
#pragma once

#include <QList>
#include <QObject>
#include <QPointF>
#include <QPointer>
#include <QRectF>
#include <QVector>

#include "ampscope/engine/telemetry.h"
#include "ui/lessons/lesson_claim_checks.h"
#include "ui/lessons/lesson_library.h"

class QCustomPlot;

namespace ampscope::ui {

class LessonHost;
class PlotCallouts;
class LessonPanel;

class LessonController : public QObject {
  Q_OBJECT
 public:
  // `library`, `host` and `panel` must outlive the controller.
  LessonController(const LessonLibrary& library, LessonHost& host, LessonPanel& panel,
                   QObject* parent = nullptr);
  ~LessonController() override;

  bool openLesson(const QString& id);
  // No lesson open any more: its callouts go, the lesson panel is empty.
  void closeLesson();
  bool openIndex(int index);
  bool next();
  bool previous();
  bool selectVariant(int index);
  // Brings the callout's panel forward, flashes it, and returns false when the panel is unknown.
  bool activateCallout(int index);
  // Arranges the window for the current lesson (the host's applyLayout: its own layout or the one the
  // teacher saved) and raises its panels. Run when the lesson opens and when its saved layout is reset.
  void arrangeWindow();
  // Raises the current lesson's panels, the first listed in front where they share a tab group; under
  // a layout the teacher saved for the lesson, only those that layout has open (a closed one stays
  // closed). Also run when the window first shows.
  void raiseLessonPanels();

  // Live claim checks. runStarted: a run of `config` begins (fresh checks); configEdited: the configuration
  // on screen changed while no run is active (fresh checks, against it); observeRecords: the run's records,
  // in step order; runFinished: the run reached its last step (a claim still waiting does not hold).
  void runStarted(const RunConfig& config);
  void configEdited(const RunConfig& config);
  void observeRecords(const std::vector<ampscope::StepRecord>& records);
  void runFinished();
  const LessonClaimChecks& claimChecks() const { return claims_; }
  // A recorded run shown again (an opened or crash-restored session): the checks are armed for its
  // configuration (the lesson's variant with that configuration chosen, where one has it) and fed with its
  // records, so they read as they did live; a run that reached its last step is finished.
  void replayRun(const RunConfig& config, const std::vector<ampscope::StepRecord>& records);

  int currentIndex() const { return current_; }
  int currentVariant() const { return variant_; }
  const Lesson* currentLesson() const;
  // Plot items the current lesson added (a leader line and a text per anchored callout), for tests.
  int plotCalloutCount() const;
  // The anchored callouts drawn now, as last placed, in global screen coordinates (like
  // PlotPanel::axisRectOnScreen): each one's box, and the point its leader line ends at, in the same
  // order. A callout's box never covers its anchor, nor another box or anchor where the plot has room.
  QList<QRectF> calloutRects() const;
  QList<QPointF> calloutAnchors() const;

  // The lesson the app opens with when none was remembered: the library's first, in chapter order.
  static QString defaultLessonId(const LessonLibrary& library);
  static QString rememberedLessonId();

 signals:
  void lessonOpened(const QString& id);
  void lessonClosed();
  // A lesson named a panel the window does not have (the lesson file and the window disagree).
  void missingPanel(const QString& lessonId, const QString& panelId);

 private:
  void applyCurrent();
  void armClaims(const std::optional<RunConfig>& config);
  void clearPlotCallouts();
  void addPlotCallouts();
  static QCustomPlot* plotIn(QWidget* panel);

  const LessonLibrary& library_;
  LessonHost& host_;
  LessonPanel& panel_;
  int current_ = -1;
  int variant_ = 0;
  bool teachersLayout_ = false;  // the current lesson opened with the layout saved for it
  QVector<QPointer<PlotCallouts>> plotCallouts_;
  LessonClaimChecks claims_;
};

}  // namespace ampscope::ui
