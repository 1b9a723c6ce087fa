// `ampscope-cli plan`: the smallest set of an engine model's GEMM layers to keep in higher precision so
// that a low-precision target still trains like FP32, found by training (docs/precision-plans.md,
// "Proof by bisection"), with the precision advice of the FP32 run beside it: where the advice was right
// and where not.
//
// 1. FP32 and the uniform target train side by side (one comparison: the same weights and batches); the
//    FP32 lane's records, with their rounding costs (RunConfig::roundingCost), give the advice for the
//    target (advice_run.h, the judged mode fp32).
// 2. A candidate is a plan lane: default the target, the kept layers in `higher`. It passes when its
//    deviation from FP32 stays within the tolerance at every step (deviation(s) = |mean of the candidate's
//    losses over steps s-w+1..s - the same mean of FP32's|, w = the window) and it does not diverge. A
//    candidate stops at the first step over the tolerance: the maximum can only grow.
// 3. The uniform target passing keeps nothing. Otherwise the layers are ordered: those the advice keeps
//    higher first, then the others, each group in forward order; every layer
//    kept must pass (else no plan of this kind exists: the ops outside the GEMMs, which run as the target,
//    already cost more than the tolerance); a bisection finds the shortest passing prefix of that order,
//    then each kept layer is dropped in turn where the rest still passes (no single layer of the result
//    can go: a 1-minimal set; the smallest of all sets would take 2^layers runs).
// Every candidate trains on the same seed, so all of them and FP32 see the same initial weights and
// batches.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/precision_advice.h"
#include "ampscope/engine/run_config.h"

namespace ampscope {

struct PlanSearchOptions {
  RunConfig base;                               // model, steps, optimizer, seed ...; its modes are not used
  PrecisionMode target = PrecisionMode::Fp8Current;  // a mode of planLayerModes() other than fp32
  PrecisionMode higher = PrecisionMode::FP32;   // the mode a kept layer runs in
  double tolerance = 0.05;                      // loss units
  int64_t window = 10;                          // steps in each trailing mean
  AdviceThresholds thresholds;
};

// What is wrong with the options, naming the option ("tolerance: must be > 0 (got -1)"), or nothing.
std::optional<std::string> planSearchProblem(const PlanSearchOptions& options);

// The trailing-mean deviation of `losses` from `reference` (same steps), step by step; a non-finite
// loss gives +inf from its step on.
std::vector<double> lossDeviation(const std::vector<double>& losses, const std::vector<double>& reference,
                                  int64_t window);

struct PlanTrial {
  std::vector<std::string> kept;  // the layers in `higher`, in forward order
  std::string why;                // "uniform fp8-current", "bisection: 3 of 13", "without block1.mlp.fc2"
  std::vector<double> losses;     // per step, until it stopped
  double deviation = 0;           // the largest deviation over the steps it ran (+inf: diverged)
  int64_t worstStep = 0;
  bool diverged = false;
  bool passed = false;
  double seconds = 0;
};

struct PlanLayerVerdict {
  std::string layer;
  std::string advisedMode;  // the advice plan's mode for it ("" where the advice did not judge it)
  bool adviceKeeps = false; // the advice keeps it higher than the target
  bool trainingKeeps = false;
  // The failing trial that showed training needs it kept: the result without it (the drop pass), or the
  // uniform target when it is the only layer kept; -1 for a layer not kept.
  int64_t neededByTrial = -1;
  std::string agreement;    // "both keep", "both lower", "advice keeps, training did not need it", ...
};

struct PlanSearchResult {
  PlanSearchOptions options;
  std::vector<double> fp32Losses;
  std::vector<double> uniformLosses;  // the target, trained beside FP32
  std::vector<std::string> order;     // the layers in the order the search tries them
  std::vector<PlanTrial> trials;      // in the order they ran; trials[0] is the uniform target
  bool found = false;                 // some plan passes (the empty one when the uniform target does)
  std::vector<std::string> kept;      // the result
  std::vector<double> planLosses;     // the result's losses over the whole run
  PlanConfig plan;                    // the result as a plan lane
  std::optional<PrecisionAdvice> advice;  // of the FP32 run, for the target (nullopt: too short)
  std::vector<PlanLayerVerdict> layers;   // every GEMM layer, forward order
  double seconds = 0;
  bool cancelled = false;
};

// Runs the search. `progress` (optional) is called after every trial; `cancel` (optional) stops it
// between steps (the result then says cancelled and holds what ran). Throws std::invalid_argument for
// options planSearchProblem refuses.
PlanSearchResult searchPlan(const PlanSearchOptions& options,
                            const std::function<void(const PlanTrial&)>& progress = {},
                            const std::atomic<bool>* cancel = nullptr);

}  // namespace ampscope
