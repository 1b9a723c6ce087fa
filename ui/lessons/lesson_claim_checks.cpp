#include "ui/lessons/lesson_claim_checks.h"

#include <algorithm>

#include "ui/lessons/lesson.h"

namespace ampscope::ui {

void LessonClaimChecks::arm(const Lesson* lesson, const QString& variantId, const std::optional<RunConfig>& config) {
  items_.clear();
  if (!lesson) return;
  items_.resize(static_cast<std::size_t>(lesson->callouts.size()));
  for (int i = 0; i < lesson->callouts.size(); ++i) {
    const Lesson::Callout& callout = lesson->callouts[i];
    if (!callout.claimAppliesTo(variantId)) continue;
    Item& item = items_[static_cast<std::size_t>(i)];
    if (config) {
      for (PrecisionMode mode : claimModes(*callout.claim)) {
        if (std::find(config->modes.begin(), config->modes.end(), mode) == config->modes.end()) {
          item.untrainedMode = QString::fromStdString(modeName(mode));
          break;
        }
      }
    }
    if (item.untrainedMode.isEmpty()) item.evaluator = std::make_unique<LessonClaimEvaluator>(*callout.claim);
  }
}

void LessonClaimChecks::observe(const std::vector<StepRecord>& records) {
  for (Item& item : items_)
    if (item.evaluator)
      for (const StepRecord& record : records) item.evaluator->observe(record);
}

void LessonClaimChecks::finish() {
  for (Item& item : items_)
    if (item.evaluator) item.evaluator->finish();
}

const ClaimState* LessonClaimChecks::state(int index) const {
  if (index < 0 || index >= count()) return nullptr;
  const Item& item = items_[static_cast<std::size_t>(index)];
  return item.evaluator ? &item.evaluator->state() : nullptr;
}

QString LessonClaimChecks::untrainedMode(int index) const {
  return index >= 0 && index < count() ? items_[static_cast<std::size_t>(index)].untrainedMode : QString();
}

bool LessonClaimChecks::hasClaims() const {
  return std::any_of(items_.begin(), items_.end(),
                     [](const Item& item) { return item.evaluator || !item.untrainedMode.isEmpty(); });
}

int LessonClaimChecks::holding() const {
  return static_cast<int>(std::count_if(items_.begin(), items_.end(), [](const Item& item) {
    return item.evaluator && item.evaluator->state().status == ClaimStatus::Holds;
  }));
}

int LessonClaimChecks::checked() const {
  return static_cast<int>(
      std::count_if(items_.begin(), items_.end(), [](const Item& item) { return item.evaluator != nullptr; }));
}

LessonClaimChecks::Answer LessonClaimChecks::answer() const {
  Answer answer;
  bool allHold = true, notAnswered = false;
  for (int i = 0; i < count(); ++i) {
    const Item& item = items_[static_cast<std::size_t>(i)];
    if (!item.evaluator && item.untrainedMode.isEmpty()) continue;
    answer.items << i;
    if (!item.evaluator) {
      notAnswered = true;
      allHold = false;
      continue;
    }
    const ClaimState& state = item.evaluator->state();
    if (state.status == ClaimStatus::Holds) {
      answer.step = std::max(answer.step, state.since);
      continue;
    }
    allHold = false;
    // A claim that held and stopped may hold again while the run goes; not once it has ended.
    if (state.status == ClaimStatus::Fails || (state.finished && state.status == ClaimStatus::HeldBefore))
      notAnswered = true;
  }
  if (answer.items.isEmpty()) return answer;
  answer.verdict = notAnswered ? Answer::Verdict::NotAnswered
                   : allHold   ? Answer::Verdict::Answered
                               : Answer::Verdict::Pending;
  if (answer.verdict != Answer::Verdict::Answered) answer.step = 0;
  return answer;
}

}  // namespace ampscope::ui
