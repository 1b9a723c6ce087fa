// HeadlessTrainer: trains a fixed number of steps through the training workspace, as a user pressing Run
// would, and waits for them (for `ampscope --steps N --screenshot FILE`). The run panel's configuration
// is used (a lesson puts its own there first) with its step count set to N, so the run stops by itself
// at step N. Waiting runs the event loop, so the plots receive the data as they do on screen.
//
// Fails with a readable message when the run panel's form is invalid, the engine refuses the
// configuration, training fails, a dialog pops up (nobody could answer it), or the steps do not arrive
// within the timeout.
#pragma once

#include <QString>
#include <cstdint>

namespace ampscope::ui {

class TrainingWorkspace;

struct HeadlessTrainingResult {
  bool ok = false;
  QString error;
  int64_t stepsDone = 0;
};

class HeadlessTrainer {
 public:
  // The time `ampscope --steps` allows: minutes, since a lesson's deep model in six modes is slow.
  static constexpr int kDefaultTimeoutMs = 10 * 60 * 1000;
  static HeadlessTrainingResult trainSteps(TrainingWorkspace& workspace, int64_t steps, int timeoutMs);
};

}  // namespace ampscope::ui
