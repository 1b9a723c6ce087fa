#include "ampscope/engine/lesson_claim_evaluator.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace ampscope {

namespace {

// What an atom remembers of one mode: enough for every measure, bounded by the window.
struct Track {
  PrecisionMode mode = PrecisionMode::FP32;
  int64_t steps = 0;
  std::vector<double> recent;  // ring of the last `window` losses
  std::size_t next = 0;
  double firstSum = 0;         // sum of the first `window` losses
  int64_t firstCount = 0;
  int64_t skipped = 0;
  int64_t regrowths = 0;
  bool backedOff = false;      // a step was skipped and the scale has not grown since
  double previousScale = 0;
  int64_t peakBytes = 0;        // the latest step's
  std::optional<double> value;  // the latest reading
  int64_t valueStep = 0;

  std::optional<double> recentMean(int window) const {
    if (recent.size() < static_cast<std::size_t>(window)) return std::nullopt;
    double sum = 0;
    for (double loss : recent) sum += loss;  // summed afresh: a running sum would drift over a long run
    return sum / window;
  }
  std::optional<double> drop(int window) const {
    const auto last = recentMean(window);
    if (!last || steps < 2 * static_cast<int64_t>(window)) return std::nullopt;
    return firstSum / window - *last;
  }
};

// The measured quantised operands of `step` that `tensor` selects (a name, "forward-operands", "gradients").
template <typename F>
void forSelected(const ModeStep& step, const std::string& tensor, bool measuredOnly, F&& f) {
  for (const QuantTensorStats& q : step.quantized) {
    if (measuredOnly && (!q.measured || q.numel <= 0)) continue;
    const bool selected = tensor == kClaimTensorsForward    ? !q.backward
                          : tensor == kClaimTensorsBackward ? q.backward
                                                            : q.name == tensor;
    if (selected) f(q);
  }
}

}  // namespace

const char* claimStatusKey(ClaimStatus status) {
  switch (status) {
    case ClaimStatus::Waiting: return "waiting";
    case ClaimStatus::Holds: return "holds";
    case ClaimStatus::HeldBefore: return "held-before";
    case ClaimStatus::Fails: return "fails";
  }
  return "unknown";
}

struct LessonClaimEvaluator::Node {
  const ClaimSpec* spec = nullptr;
  std::vector<Node> children;
  std::vector<Track> tracks;  // atoms: one per mode seen
  std::optional<bool> known;  // the verdict so far (sticky between evaluations)
  bool final = false;         // the verdict cannot change any more
  int64_t heldInRange = 0;    // ranged atoms: evaluations in range that held
  std::size_t reading = 0;    // atoms: index into ClaimState::readings

  Track& track(PrecisionMode mode) {
    for (Track& t : tracks)
      if (t.mode == mode) return t;
    Track t;
    t.mode = mode;
    tracks.push_back(std::move(t));
    return tracks.back();
  }
  Track* find(PrecisionMode mode) {
    for (Track& t : tracks)
      if (t.mode == mode) return &t;
    return nullptr;
  }

  void remember(Track& t, const ModeStep& m) {
    ++t.steps;
    const auto window = static_cast<std::size_t>(spec->window);
    if (t.recent.size() < window) {
      t.recent.push_back(m.loss);
    } else {
      t.recent[t.next] = m.loss;
      t.next = (t.next + 1) % window;
    }
    if (t.firstCount < spec->window) {
      t.firstSum += m.loss;
      ++t.firstCount;
    }
    if (t.backedOff && t.previousScale > 0 && m.lossScale > t.previousScale) {
      ++t.regrowths;
      t.backedOff = false;
    }
    t.previousScale = m.lossScale;
    t.peakBytes = m.peakBytes;
    if (m.skipped) {
      ++t.skipped;
      t.backedOff = true;
    }
  }

  // The atom's reading of mode `t` at step `m` (nullopt: not measured at this step).
  std::optional<double> read(const Track& t, const ModeStep& m) {
    const ClaimSpec& s = *spec;
    switch (s.measure) {
      case ClaimMeasure::Steps: return static_cast<double>(t.steps);
      case ClaimMeasure::Loss: return t.recentMean(s.window);
      case ClaimMeasure::LossDrop: return t.drop(s.window);
      case ClaimMeasure::LossGap: {
        const Track* other = find(*s.over);
        const auto a = t.recentMean(s.window);
        const auto b = other ? other->recentMean(s.window) : std::nullopt;
        if (!a || !b || !(*b > 0)) return std::nullopt;
        return (*a - *b) / *b;
      }
      case ClaimMeasure::DropRatio: {
        const Track* other = find(*s.over);
        const auto a = t.drop(s.window);
        const auto b = other ? other->drop(s.window) : std::nullopt;
        if (!a || !b || !(*b > 0)) return std::nullopt;
        return *a / *b;
      }
      case ClaimMeasure::LossScale: return m.lossScale;
      case ClaimMeasure::SkippedSteps: return static_cast<double>(t.skipped);
      case ClaimMeasure::ScaleRegrowths: return static_cast<double>(t.regrowths);
      case ClaimMeasure::ClipNormSeen: return m.clipNormSeen;
      case ClaimMeasure::GradNormBeforeClip: return m.gradNormBeforeClip;
      case ClaimMeasure::GradNormAfterClip: return m.gradNormAfterClip;
      case ClaimMeasure::ClipNormRatio:
        if (!(m.gradNormBeforeClip > 0)) return std::nullopt;
        return m.clipNormSeen / m.gradNormBeforeClip;
      case ClaimMeasure::PeakBytes: return static_cast<double>(m.peakBytes);
      case ClaimMeasure::PeakRatio: {
        const Track* other = find(*s.over);
        if (!other || other->peakBytes <= 0) return std::nullopt;
        return static_cast<double>(m.peakBytes) / static_cast<double>(other->peakBytes);
      }
      case ClaimMeasure::FlushedToZero:
        if (!m.instrumented) return std::nullopt;
        return static_cast<double>(m.rounding.flushedToZero);
      case ClaimMeasure::ZeroGradientShare: {
        if (!m.instrumented) return std::nullopt;
        int64_t zero = 0, numel = 0;
        for (const TensorStats& tensor : m.tensors) {
          if (tensorRole(tensor) != TensorRole::Gradient) continue;
          zero += tensor.unscaled.zero;
          numel += tensor.numel;
        }
        if (numel == 0) return std::nullopt;
        return static_cast<double>(zero) / static_cast<double>(numel);
      }
      case ClaimMeasure::SaturatedShare:
      case ClaimMeasure::FlushedShare: {
        int64_t hit = 0, numel = 0;
        const bool saturated = s.measure == ClaimMeasure::SaturatedShare;
        forSelected(m, s.tensor, true, [&](const QuantTensorStats& q) {
          hit += saturated ? q.saturated : q.flushed;
          numel += q.numel;
        });
        if (numel == 0) return std::nullopt;
        return static_cast<double>(hit) / static_cast<double>(numel);
      }
      case ClaimMeasure::ScaleLog2: {
        std::optional<double> scale;
        forSelected(m, s.tensor, false, [&](const QuantTensorStats& q) { scale = q.scale; });
        if (!scale || !(*scale > 0)) return std::nullopt;
        return std::log2(*scale);
      }
      case ClaimMeasure::BlockScaleSpan: {
        std::optional<double> span;
        forSelected(m, s.tensor, true, [&](const QuantTensorStats& q) {
          const double binades = q.blockScaleExpMax - q.blockScaleExpMin;
          span = span ? std::max(*span, binades) : binades;
        });
        return span;
      }
    }
    return std::nullopt;
  }

  // This record's verdict of an atom, before the step range is applied (nullopt: nothing read now).
  std::optional<bool> readAtom(const StepRecord& record, ClaimReading& out) {
    for (const ModeStep& m : record.modes) remember(track(m.mode), m);
    bool fresh = false;
    for (const ModeStep& m : record.modes) {
      if (spec->mode && m.mode != *spec->mode) continue;
      Track& t = track(m.mode);
      if (auto v = read(t, m)) {
        t.value = v;
        t.valueStep = record.step;
        fresh = true;
      }
    }
    if (!fresh) return std::nullopt;
    // One mode, or every mode seen: each needs a reading, and each must be within the bounds.
    const Track* shown = nullptr;
    bool holds = true;
    for (const Track& t : tracks) {
      if (spec->mode && t.mode != *spec->mode) continue;
      if (spec->mode == std::nullopt && !t.value) continue;  // "every": a mode not yet measurable waits
      const bool ok = t.value && spec->bounds.admits(*t.value);
      if (!shown || (!ok && holds)) shown = &t;
      holds = holds && ok;
    }
    if (!shown) return std::nullopt;
    out.value = shown->value;
    out.mode = shown->mode;
    out.step = shown->valueStep;
    return holds;
  }

  void evaluate(const StepRecord& record, std::vector<ClaimReading>& readings) {
    if (!spec->isAllOf()) {
      ClaimReading& out = readings[reading];
      ClaimReading fresh = out;
      const std::optional<bool> now = readAtom(record, fresh);
      // A ranged atom shows what it read within its range (the first reading that failed, if one did).
      const bool inRange = spec->fromStep == 0 || (record.step >= spec->fromStep && record.step <= spec->toStep);
      if (now && inRange && !final) out = fresh;
      if (!final) {
        if (spec->fromStep == 0) {
          if (now) known = now;
        } else if (record.step >= spec->fromStep) {
          if (now && record.step <= spec->toStep) {
            if (!*now) {
              known = false;
              final = true;
            } else {
              ++heldInRange;
            }
          }
          if (!final && record.step >= spec->toStep) {
            known = heldInRange > 0;
            final = true;
          }
        }
      }
      out.holds = known;
      return;
    }
    bool allTrue = true, anyFalse = false, allFinal = true, anyFinalFalse = false;
    for (Node& child : children) {
      child.evaluate(record, readings);
      allTrue = allTrue && child.known == true;
      anyFalse = anyFalse || child.known == false;
      allFinal = allFinal && child.final;
      anyFinalFalse = anyFinalFalse || (child.final && child.known == false);
    }
    if (anyFalse) known = false;
    else if (allTrue) known = true;
    else known = std::nullopt;
    final = allFinal || anyFinalFalse;
  }
};

LessonClaimEvaluator::LessonClaimEvaluator(ClaimSpec spec)
    : spec_(std::make_unique<const ClaimSpec>(std::move(spec))), root_(std::make_unique<Node>()) {
  // Depth first, as claimAtoms() lists the atoms.
  struct Builder {
    static void run(Node& node, const ClaimSpec& spec, std::vector<ClaimReading>& readings) {
      node.spec = &spec;
      if (!spec.isAllOf()) {
        node.reading = readings.size();
        ClaimReading reading;
        reading.atom = &spec;
        readings.push_back(reading);
        return;
      }
      node.children.resize(spec.allOf.size());
      for (std::size_t i = 0; i < spec.allOf.size(); ++i) run(node.children[i], spec.allOf[i], readings);
    }
  };
  Builder::run(*root_, *spec_, state_.readings);
}

LessonClaimEvaluator::~LessonClaimEvaluator() = default;
LessonClaimEvaluator::LessonClaimEvaluator(LessonClaimEvaluator&&) noexcept = default;
LessonClaimEvaluator& LessonClaimEvaluator::operator=(LessonClaimEvaluator&&) noexcept = default;

const ClaimSpec& LessonClaimEvaluator::spec() const { return *spec_; }

void LessonClaimEvaluator::observe(const StepRecord& record) {
  if (state_.finished || record.step <= state_.lastStep) return;
  state_.lastStep = record.step;
  root_->evaluate(record, state_.readings);
  if (state_.status == ClaimStatus::Fails) return;
  if (root_->known == true) {
    if (state_.status != ClaimStatus::Holds) {
      state_.status = ClaimStatus::Holds;
      state_.since = record.step;
    }
    state_.until = record.step;
  } else if (root_->known == false) {
    if (state_.status == ClaimStatus::Holds) state_.status = ClaimStatus::HeldBefore;
    else if (state_.status == ClaimStatus::Waiting && root_->final) state_.status = ClaimStatus::Fails;
  }
  if (state_.status == ClaimStatus::Waiting && spec_->byStep > 0 && record.step >= spec_->byStep)
    state_.status = ClaimStatus::Fails;
}

void LessonClaimEvaluator::finish() {
  state_.finished = true;
  if (state_.status == ClaimStatus::Waiting) state_.status = ClaimStatus::Fails;
}

}  // namespace ampscope
