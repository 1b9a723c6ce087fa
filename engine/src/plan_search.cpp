#include "ampscope/engine/plan_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "ampscope/engine/advice_run.h"
#include "ampscope/engine/comparison.h"
#include "ampscope/engine/number_text.h"

namespace ampscope {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The deviation at step s (1-based) of `losses`: its trailing window against the reference's.
double deviationAt(const std::vector<double>& losses, const std::vector<double>& reference, size_t s,
                   int64_t window) {
  const size_t w = std::min<size_t>(static_cast<size_t>(window), s);
  double a = 0, b = 0;
  for (size_t i = s - w; i < s; ++i) {
    if (!std::isfinite(losses[i])) return kInf;
    a += losses[i];
    b += reference[i];
  }
  return std::fabs(a - b) / static_cast<double>(w);
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

// `kept` in the model's forward order.
std::vector<std::string> forwardOrder(const std::vector<std::string>& kept, ModelKind model) {
  std::vector<std::string> ordered;
  for (const auto& layer : planLayerNames(model)) {
    if (contains(kept, layer)) ordered.push_back(layer);
  }
  return ordered;
}

class Search {
 public:
  Search(const PlanSearchOptions& options, const std::function<void(const PlanTrial&)>& progress,
         const std::atomic<bool>* cancel)
      : options_(options), progress_(progress), cancel_(cancel) {}

  PlanSearchResult run();

 private:
  bool cancelled() const { return cancel_ && cancel_->load(); }
  // Trains the plan keeping `kept` higher (cached by set); its trial is appended.
  const PlanTrial& trial(std::vector<std::string> kept, const std::string& why);
  void reference();

  PlanSearchOptions options_;
  std::function<void(const PlanTrial&)> progress_;
  const std::atomic<bool>* cancel_;
  PlanSearchResult result_;
  std::map<std::vector<std::string>, size_t> tried_;  // kept set (forward order) -> trial index
  std::map<std::string, size_t> neededBy_;            // kept layer -> the failing trial without it
};

void Search::reference() {
  RunConfig config = options_.base;
  config.modes = {PrecisionMode::FP32, options_.target};
  config.roundingCost = true;  // the advice's SQNR and FP8 what-if columns
  const auto start = std::chrono::steady_clock::now();
  Comparison comparison(config);
  std::vector<StepRecord> records;
  PlanTrial uniform;
  uniform.why = "uniform " + modeName(options_.target);
  bool uniformRunning = true;
  for (int64_t s = 1; s <= config.steps && !cancelled(); ++s) {
    StepRecord record = comparison.step();
    for (const ModeStep& step : record.modes) {
      if (step.mode == PrecisionMode::FP32) result_.fp32Losses.push_back(step.diverged ? kInf : step.loss);
    }
    if (result_.fp32Losses.size() < static_cast<size_t>(s)) result_.fp32Losses.push_back(kInf);
    if (uniformRunning) {
      double loss = kInf;
      for (const ModeStep& step : record.modes) {
        if (step.mode == options_.target && !step.diverged) loss = step.loss;
      }
      uniform.losses.push_back(loss);
      if (!std::isfinite(loss)) {
        uniform.diverged = true;
        uniformRunning = false;
      }
    }
    records.push_back(std::move(record));
  }
  result_.uniformLosses = uniform.losses;
  const std::vector<double> deviation =
      lossDeviation(uniform.losses, result_.fp32Losses, options_.window);
  for (size_t i = 0; i < deviation.size(); ++i) {
    if (i == 0 || deviation[i] > uniform.deviation) {
      uniform.deviation = deviation[i];
      uniform.worstStep = static_cast<int64_t>(i) + 1;
    }
  }
  uniform.passed = !uniform.diverged && uniform.deviation <= options_.tolerance &&
                   uniform.losses.size() == static_cast<size_t>(config.steps);
  uniform.seconds = secondsSince(start);
  tried_[{}] = 0;
  result_.trials.push_back(uniform);
  if (progress_) progress_(result_.trials.back());

  AdviceRequest request;
  request.target = modeName(options_.target);
  request.mode = PrecisionMode::FP32;
  request.thresholds = options_.thresholds;
  AdviceInputError error;
  auto advice = adviseEngineRecords(config, std::string(), records, std::string(), request, &error);
  if (advice && !advice->tooShort) result_.advice = std::move(advice);
}

const PlanTrial& Search::trial(std::vector<std::string> kept, const std::string& why) {
  kept = forwardOrder(kept, options_.base.model);
  if (auto it = tried_.find(kept); it != tried_.end()) return result_.trials[it->second];
  RunConfig config = options_.base;
  config.modes = {PrecisionMode::Plan};
  config.plan.defaultMode = options_.target;
  config.plan.layers.clear();
  for (const auto& layer : kept) config.plan.layers.emplace_back(layer, options_.higher);
  // Only step 1 is instrumented (the bounds' largest interval): candidates need their losses alone.
  config.instrumentEvery = 1000000;
  const auto start = std::chrono::steady_clock::now();
  Comparison comparison(config);
  PlanTrial t;
  t.kept = kept;
  t.why = why;
  for (int64_t s = 1; s <= config.steps && !cancelled(); ++s) {
    const StepRecord record = comparison.step();
    const bool lost = record.modes.empty() || record.modes[0].diverged;
    t.losses.push_back(lost ? kInf : record.modes[0].loss);
    const double deviation = deviationAt(t.losses, result_.fp32Losses, t.losses.size(), options_.window);
    if (s == 1 || deviation > t.deviation) {
      t.deviation = deviation;
      t.worstStep = s;
    }
    if (lost) t.diverged = true;
    if (lost || deviation > options_.tolerance) break;  // the maximum only grows
  }
  t.passed = !t.diverged && t.deviation <= options_.tolerance &&
             t.losses.size() == static_cast<size_t>(config.steps);
  t.seconds = secondsSince(start);
  tried_[kept] = result_.trials.size();
  result_.trials.push_back(std::move(t));
  if (progress_) progress_(result_.trials.back());
  return result_.trials.back();
}

PlanSearchResult Search::run() {
  const auto start = std::chrono::steady_clock::now();
  result_.options = options_;
  const ModelKind model = options_.base.model;
  const std::vector<std::string> layers = planLayerNames(model);
  reference();
  // The order: what the advice keeps higher first (forward order), then the rest (forward order).
  for (const auto& layer : layers) {
    bool keeps = false;
    if (result_.advice) {
      for (const LayerPlan& p : result_.advice->plan) keeps = keeps || (p.layer == layer && p.keptHigher);
    }
    if (keeps) result_.order.push_back(layer);
  }
  for (const auto& layer : layers) {
    if (!contains(result_.order, layer)) result_.order.push_back(layer);
  }
  auto prefix = [&](size_t k) { return std::vector<std::string>(result_.order.begin(), result_.order.begin() + k); };
  std::vector<std::string> kept;
  size_t keptTrial = 0;
  if (result_.trials[0].passed) {
    result_.found = true;
  } else if (!cancelled()) {
    const size_t n = result_.order.size();
    const PlanTrial& all = trial(prefix(n), "every layer " + modeName(options_.higher));
    if (all.passed) {
      result_.found = true;
      size_t lo = 0, hi = n;  // prefix lo fails, prefix hi passes
      while (hi - lo > 1 && !cancelled()) {
        const size_t mid = (lo + hi) / 2;
        const PlanTrial& t = trial(prefix(mid), "bisection: the first " + std::to_string(mid) + " of " +
                                                    std::to_string(n));
        (t.passed ? hi : lo) = mid;
      }
      kept = prefix(hi);
      keptTrial = tried_[forwardOrder(kept, model)];
      // Each kept layer dropped in turn, last tried first: keep the drop where the rest still passes.
      for (size_t i = kept.size(); i-- > 0 && !cancelled();) {
        if (kept.size() == 1) {  // the empty set is the uniform target, which failed
          neededBy_[kept[0]] = 0;
          break;
        }
        std::vector<std::string> without = kept;
        without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
        const PlanTrial& t = trial(without, "without " + kept[i]);
        if (t.passed) {
          kept = without;
          keptTrial = tried_[forwardOrder(kept, model)];
        } else {
          neededBy_[kept[i]] = tried_[forwardOrder(without, model)];
        }
      }
    }
  }
  result_.cancelled = cancelled();
  result_.kept = forwardOrder(kept, model);
  if (result_.found) result_.planLosses = result_.trials[keptTrial].losses;
  result_.plan.defaultMode = options_.target;
  for (const auto& layer : result_.kept) result_.plan.layers.emplace_back(layer, options_.higher);
  for (const auto& layer : layers) {
    PlanLayerVerdict v;
    v.layer = layer;
    if (result_.advice) {
      for (const LayerPlan& p : result_.advice->plan) {
        if (p.layer == layer) {
          v.advisedMode = p.mode;
          v.adviceKeeps = p.keptHigher;
        }
      }
    }
    v.trainingKeeps = contains(result_.kept, layer);
    if (auto it = neededBy_.find(layer); v.trainingKeeps && it != neededBy_.end()) {
      v.neededByTrial = static_cast<int64_t>(it->second);
    }
    if (!result_.found) {
      v.agreement = "no plan passed";
    } else if (v.advisedMode.empty()) {
      v.agreement = v.trainingKeeps ? "training keeps it; the advice did not judge it"
                                    : "training lowers it; the advice did not judge it";
    } else if (v.adviceKeeps == v.trainingKeeps) {
      v.agreement = v.trainingKeeps ? "both keep it higher" : "both lower it";
    } else {
      v.agreement = v.adviceKeeps ? "the advice keeps it; training did not need it"
                                  : "the advice lowers it; training needed it higher";
    }
    result_.layers.push_back(std::move(v));
  }
  result_.seconds = secondsSince(start);
  return result_;
}

}  // namespace

std::optional<std::string> planSearchProblem(const PlanSearchOptions& options) {
  if (!(options.tolerance > 0) || !std::isfinite(options.tolerance)) {
    return "tolerance: must be a finite number > 0 (got " + numberText(options.tolerance) + ")";
  }
  if (options.window < 1 || options.window > options.base.steps) {
    return "window: must be in [1, steps] = [1, " + std::to_string(options.base.steps) + "] (got " +
           std::to_string(options.window) + ")";
  }
  const auto& allowed = planLayerModes();
  if (options.target == PrecisionMode::FP32 ||
      std::find(allowed.begin(), allowed.end(), options.target) == allowed.end()) {
    return "target: must be a low-precision mode a plan can use (got " + modeName(options.target) + ")";
  }
  if (std::find(allowed.begin(), allowed.end(), options.higher) == allowed.end() ||
      options.higher == options.target) {
    return "higher: must be a mode a plan can use, other than the target (got " + modeName(options.higher) + ")";
  }
  RunConfig config = options.base;
  config.modes = {PrecisionMode::FP32, options.target, PrecisionMode::Plan};
  const auto errors = validate(config);
  if (!errors.empty()) return errors.front().field + ": " + errors.front().message;
  return std::nullopt;
}

std::vector<double> lossDeviation(const std::vector<double>& losses, const std::vector<double>& reference,
                                  int64_t window) {
  std::vector<double> deviation;
  for (size_t s = 1; s <= losses.size() && s <= reference.size(); ++s) {
    deviation.push_back(deviationAt(losses, reference, s, window));
  }
  return deviation;
}

PlanSearchResult searchPlan(const PlanSearchOptions& options, const std::function<void(const PlanTrial&)>& progress,
                            const std::atomic<bool>* cancel) {
  if (auto problem = planSearchProblem(options)) throw std::invalid_argument(*problem);
  return Search(options, progress, cancel).run();
}

}  // namespace ampscope
