// Checks one lesson claim (lesson_claim.h) against a run as its records arrive, one StepRecord at a time.
// Memory is bounded by the claim, not by the run: each atom keeps, per mode, its last `window` losses, the
// sum of its first `window`, a few counters and its latest reading (a GUI run can be long).
//
// States: waiting (not held yet); holds since step N (held at every evaluation since N); held N..M but not
// now; does not hold (the run ended, its deadline passed, or a fixed-step atom was read false). Each atom's
// latest reading (the observed number and the mode it came from) goes with the state, for the
// "fp16-pure 31 % above fp32, claim >= 20 %" line.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "ampscope/engine/lesson_claim.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

enum class ClaimStatus { Waiting, Holds, HeldBefore, Fails };
const char* claimStatusKey(ClaimStatus status);  // "waiting", "holds", "held-before", "fails"

struct ClaimReading {
  const ClaimSpec* atom = nullptr;    // the atom (inside the evaluator's spec)
  std::optional<double> value;        // nullopt: nothing measured yet
  std::optional<PrecisionMode> mode;  // the mode the value is of (for "every": the first failing one)
  int64_t step = 0;                   // the step it was read at
  std::optional<bool> holds;          // the atom's verdict so far (nullopt: undecided)
};

struct ClaimState {
  ClaimStatus status = ClaimStatus::Waiting;
  int64_t since = 0;     // Holds, HeldBefore: the first step of the latest stretch it held
  int64_t until = 0;     // HeldBefore: the last step of that stretch
  int64_t lastStep = 0;  // the latest record seen
  bool finished = false; // finish() was called
  std::vector<ClaimReading> readings;  // one per atom, in claimAtoms() order
};

class LessonClaimEvaluator {
 public:
  explicit LessonClaimEvaluator(ClaimSpec spec);
  ~LessonClaimEvaluator();
  LessonClaimEvaluator(LessonClaimEvaluator&&) noexcept;
  LessonClaimEvaluator& operator=(LessonClaimEvaluator&&) noexcept;

  // Records must come in step order (a record with a step not after the last one is ignored).
  void observe(const StepRecord& record);
  // The run ended (or stopped): a claim still waiting does not hold.
  void finish();
  const ClaimState& state() const { return state_; }
  const ClaimSpec& spec() const;

 private:
  struct Node;
  std::unique_ptr<const ClaimSpec> spec_;  // heap: the nodes and readings point into it
  std::unique_ptr<Node> root_;
  ClaimState state_;
};

}  // namespace ampscope
