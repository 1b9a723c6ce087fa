// The claims of the lesson open now, checked live: one LessonClaimEvaluator (engine) per "what to look
// for" item whose claim applies to the chosen variant, fed with the records the window already receives.
// Arming starts every check afresh (waiting) for a run of a given configuration: opening a lesson,
// choosing a variant, editing the run panel and starting a run all re-arm, so a claim always speaks of
// the run on screen. A claim naming a mode the configuration does not train is not checked at all.
#pragma once

#include <QString>
#include <QVector>
#include <memory>
#include <optional>
#include <vector>

#include "ampscope/engine/lesson_claim_evaluator.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope::ui {

class Lesson;

class LessonClaimChecks {
 public:
  // Fresh checks of `lesson`'s claims for variant `variantId` against a run of `config` (nullptr / nullopt:
  // none). Items without a claim for the variant get none.
  void arm(const Lesson* lesson, const QString& variantId, const std::optional<RunConfig>& config);
  void clear() { arm(nullptr, QString(), std::nullopt); }
  void observe(const std::vector<StepRecord>& records);
  // The run ended by itself: a claim still waiting does not hold.
  void finish();

  int count() const { return static_cast<int>(items_.size()); }  // the lesson's callouts
  // Callout `index`'s check; nullptr when the item has no claim for this variant or is not checked.
  const ClaimState* state(int index) const;
  // The mode a callout's claim names that the run does not train ("" when none): why it is not checked.
  QString untrainedMode(int index) const;
  bool hasClaims() const;
  // How many checked claims hold now, and how many are checked.
  int holding() const;
  int checked() const;

  // The lesson's question, answered by every claim that applies to this variant, together: answered at
  // the step from which all of them hold; not answered in this configuration when one does not hold (or
  // held and stopped by the end of the run) or names a mode the run does not train; pending until then.
  struct Answer {
    enum class Verdict { NoClaims, Pending, Answered, NotAnswered };
    Verdict verdict = Verdict::NoClaims;
    int64_t step = 0;     // Answered: the step from which every claim holds
    QVector<int> items;   // the callouts whose claims answer it, in order
  };
  Answer answer() const;

 private:
  struct Item {
    std::unique_ptr<LessonClaimEvaluator> evaluator;
    QString untrainedMode;
  };
  std::vector<Item> items_;
};

}  // namespace ampscope::ui
