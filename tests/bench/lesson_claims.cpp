// ampscope_lesson_claims: how long each lesson takes to make its point. Per lesson (and variant) it loads
// the lesson's config exactly as opening the lesson does (LessonLibrary, Lesson::configFor), trains it with
// the engine as pressing Run does (a Comparison, one step after the other, at the config's thread count),
// and prints the step and the seconds at which each claim the lesson's text makes first holds in the
// records. A measuring tool, not a test: it prints a table and fails only on bad input.
//
//   ampscope_lesson_claims [--lessons FOLDER] [--only ID] [--max-seconds S]
//
// FOLDER defaults to the lessons built into the app (:/lessons); pass resources/lessons to measure edited
// files without rebuilding. "wall s" is the time since the Comparison was built; "cpu s" is this process's
// CPU time over the same span, which is what a quiet machine's wall time would be (the training runs on one
// thread), so a busy machine shows as wall > cpu.
#include <QCoreApplication>
#include <QStringList>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ui/lessons/lesson_library.h"

namespace {

using ampscope::ModeStep;
using ampscope::PrecisionMode;
using ampscope::RunConfig;

// A loss gap is read from the mean of the last kWindow steps of each mode (one step's loss is noisy).
constexpr int kWindow = 20;
// The gap the lesson's reader must be able to see between two curves.
constexpr double kLossGap = 0.20;

struct History {
  const RunConfig* config = nullptr;
  std::map<PrecisionMode, std::vector<ModeStep>> modes;  // tensors and rounding points dropped

  const std::vector<ModeStep>* of(PrecisionMode mode) const {
    const auto it = modes.find(mode);
    return it == modes.end() ? nullptr : &it->second;
  }
  std::optional<double> recentLoss(PrecisionMode mode) const {
    const auto* steps = of(mode);
    if (!steps || steps->size() < static_cast<size_t>(kWindow)) return std::nullopt;
    double sum = 0;
    for (auto it = steps->end() - kWindow; it != steps->end(); ++it) sum += it->loss;
    return sum / kWindow;
  }
  // |L(a) - L(b)| relative to the lower of the two, on the recent means; `slower` must be the higher one.
  bool lossGap(PrecisionMode slower, PrecisionMode faster) const {
    const auto a = recentLoss(slower);
    const auto b = recentLoss(faster);
    return a && b && std::isfinite(*a) && *b > 0 && (*a - *b) / *b >= kLossGap;
  }
  // How far the recent mean has fallen below the mean of the first kWindow steps.
  std::optional<double> drop(PrecisionMode mode) const {
    const auto* steps = of(mode);
    const auto recent = recentLoss(mode);
    if (!recent || steps->size() < static_cast<size_t>(2 * kWindow)) return std::nullopt;
    double first = 0;
    for (int i = 0; i < kWindow; ++i) first += (*steps)[static_cast<size_t>(i)].loss;
    return first / kWindow - *recent;
  }
  // `stalled` fell less than `fraction` as far as `learning`, which fell by at least `least`.
  bool stalls(PrecisionMode stalled, PrecisionMode learning, double least, double fraction) const {
    const auto a = drop(stalled);
    const auto b = drop(learning);
    return a && b && *b >= least && *a < *b * fraction;
  }
  // Flushed-to-zero count of the mode's latest instrumented step.
  std::optional<int64_t> lastFlushed(PrecisionMode mode) const {
    const auto* steps = of(mode);
    if (!steps) return std::nullopt;
    for (auto it = steps->rbegin(); it != steps->rend(); ++it)
      if (it->instrumented) return it->rounding.flushedToZero;
    return std::nullopt;
  }
  // The measured stats of quantised tensor `name` in the mode's record of `step` (nullptr if none).
  const ampscope::QuantTensorStats* quantAt(PrecisionMode mode, int64_t step, const std::string& name) const {
    const auto* steps = of(mode);
    if (!steps) return nullptr;
    for (const ModeStep& s : *steps)
      if (s.step == step)
        for (const auto& q : s.quantized)
          if (q.name == name && q.measured && q.numel > 0) return &q;
    return nullptr;
  }
  int64_t stepsOf(PrecisionMode mode) const {
    const auto* steps = of(mode);
    return steps ? static_cast<int64_t>(steps->size()) : 0;
  }
};

struct Claim {
  const char* lesson;
  const char* variant;  // "" for a lesson without variants
  const char* text;
  std::function<bool(const History&)> holds;
};

// The claims, one row each, as the lessons' texts make them.
const std::vector<Claim>& claims() {
  using M = PrecisionMode;
  static const std::vector<Claim> table = {
      {"autocast-ops", "", "op-dtype table filled (bf16 linear, fp32 loss): after step 1",
       [](const History& h) { return h.stepsOf(M::BF16Amp) >= 1; }},
      {"amp-memory", "", "memory ledger of every mode: after step 1",
       [](const History& h) {
         for (const auto& [mode, steps] : h.modes)
           if (steps.empty() || steps.back().peakBytes <= 0) return false;
         return !h.modes.empty();
       }},
      {"half-vs-autocast", "", "fp16-pure loss >= 20% above fp32's",
       [](const History& h) { return h.lossGap(M::FP16Pure, M::FP32); }},
      {"half-vs-autocast", "", "fp16-pure loss >= 20% above fp16-amp-scaled's",
       [](const History& h) { return h.lossGap(M::FP16Pure, M::FP16AmpScaled); }},
      {"half-vs-autocast", "", "fp16-pure fell < 2/3 as far as fp32 (fp32 fell >= 5)",
       [](const History& h) { return h.stalls(M::FP16Pure, M::FP32, 5.0, 2.0 / 3.0); }},
      {"underflow", "", "fp16-amp flushes gradients to zero, bf16-amp none",
       [](const History& h) {
         const auto fp16 = h.lastFlushed(M::FP16Amp);
         const auto bf16 = h.lastFlushed(M::BF16Amp);
         return fp16 && bf16 && *fp16 > 0 && *bf16 == 0;
       }},
      {"underflow", "", "fp16-amp loss >= 20% above fp32's",
       [](const History& h) { return h.lossGap(M::FP16Amp, M::FP32); }},
      {"loss-scaling", "", "first skipped step (scale backs off)",
       [](const History& h) {
         const auto* s = h.of(M::FP16AmpScaled);
         return s && std::any_of(s->begin(), s->end(), [](const ModeStep& m) { return m.skipped; });
       }},
      {"loss-scaling", "", "saw-tooth: the scale grows again after a backoff",
       [](const History& h) {
         const auto* s = h.of(M::FP16AmpScaled);
         if (!s) return false;
         const auto skip = std::find_if(s->begin(), s->end(), [](const ModeStep& m) { return m.skipped; });
         if (skip == s->end()) return false;
         const double after = skip + 1 == s->end() ? skip->lossScale : (skip + 1)->lossScale;
         return std::any_of(skip + 1, s->end(), [after](const ModeStep& m) { return m.lossScale > after; });
       }},
      {"bf16", "", "fp16-amp flushes gradients to zero, bf16-amp none",
       [](const History& h) {
         const auto fp16 = h.lastFlushed(M::FP16Amp);
         const auto bf16 = h.lastFlushed(M::BF16Amp);
         return fp16 && bf16 && *fp16 > 0 && *bf16 == 0;
       }},
      {"bf16", "", "fp16-amp loss >= 20% above bf16-amp's",
       [](const History& h) { return h.lossGap(M::FP16Amp, M::BF16Amp); }},
      {"clipping", "after-unscale", "clip sees the true norm above max-norm and cuts it",
       [](const History& h) {
         const auto* s = h.of(M::FP16AmpScaled);
         return s && !s->empty() && s->front().clipNormSeen > h.config->clipMaxNorm &&
                s->front().gradNormAfterClip <= h.config->clipMaxNorm * 1.001;
       }},
      {"clipping", "before-unscale", "clip sees the scaled norm (>= 1000x the true one)",
       [](const History& h) {
         const auto* s = h.of(M::FP16AmpScaled);
         for (const ModeStep& m : s ? *s : std::vector<ModeStep>{})
           if (m.gradNormBeforeClip > 0 && m.clipNormSeen >= 1000 * m.gradNormBeforeClip) return true;
         return false;
       }},
      {"clipping", "before-unscale", "fp16-amp-scaled loss >= 20% above fp32's",
       [](const History& h) { return h.lossGap(M::FP16AmpScaled, M::FP32); }},
      {"fp8-scaling", "no-scaling", "fp8-delayed loss >= 20% above fp32's (every scale 1)",
       [](const History& h) { return h.lossGap(M::Fp8Delayed, M::FP32); }},
      {"fp8-scaling", "delayed", "fp8-delayed trains: fell >= 80% as far as fp32 (fp32 fell >= 1)",
       [](const History& h) {
         const auto delayed = h.drop(M::Fp8Delayed);
         const auto fp32 = h.drop(M::FP32);
         return delayed && fp32 && *fp32 >= 1.0 && *delayed >= 0.8 * *fp32;
       }},
      {"fp8-scaling", "spike", "spike step: fp8-delayed saturates > 90% of fc1.input, fp8-current 0",
       [](const History& h) {
         const int64_t spike = h.config->fp8.spikeStep;
         const auto* delayed = h.quantAt(M::Fp8Delayed, spike, "fc1.input");
         const auto* current = h.quantAt(M::Fp8Current, spike, "fc1.input");
         return delayed && current && delayed->saturated > 0.9 * static_cast<double>(delayed->numel) &&
                current->saturated == 0;
       }},
      {"fp8-scaling", "spike", "the history holds the spike: fp8-delayed flushes fc1.input until it forgets",
       [](const History& h) {
         // Every instrumented step within the history after the spike flushes some of fc1.input (its
         // scale is the spike's), the first one past it none; fp8-current flushes none throughout.
         const int64_t spike = h.config->fp8.spikeStep, forget = spike + h.config->fp8.amaxHistoryLen;
         int within = 0;
         bool after = false;
         for (int64_t step = spike + 1; step <= forget + h.config->instrumentEvery; ++step) {
           const auto* delayed = h.quantAt(M::Fp8Delayed, step, "fc1.input");
           const auto* current = h.quantAt(M::Fp8Current, step, "fc1.input");
           if (!delayed || !current) continue;
           if (current->flushed != 0) return false;
           if (step <= forget) {
             if (delayed->flushed == 0) return false;
             ++within;
           } else {
             if (delayed->flushed != 0) return false;
             after = true;
           }
         }
         return within > 0 && after;
       }},
      {"fp8-scaling", "blocks", "mxfp8's block scales span >= 10 binades in one gradient tensor",
       [](const History& h) {
         const auto* steps = h.of(M::MXFP8);
         if (!steps) return false;
         for (auto it = steps->rbegin(); it != steps->rend(); ++it)
           for (const auto& q : it->quantized)
             if (q.backward && q.measured && q.blockScaleExpMax - q.blockScaleExpMin >= 10) return true;
         return false;
       }},
      {"fp8-scaling", "outlier", "fc1.input flushed: fp8-current > 90%, mxfp8 < 25%",
       [](const History& h) {
         // The latest instrumented step's flushed share of fc1.input (QuantTensorStats), per mode.
         auto share = [&h](PrecisionMode mode) -> std::optional<double> {
           const auto* steps = h.of(mode);
           if (!steps) return std::nullopt;
           for (auto it = steps->rbegin(); it != steps->rend(); ++it)
             for (const auto& q : it->quantized)
               if (q.name == "fc1.input" && q.measured && q.numel > 0)
                 return static_cast<double>(q.flushed) / static_cast<double>(q.numel);
           return std::nullopt;
         };
         const auto current = share(M::Fp8Current);
         const auto mx = share(M::MXFP8);
         return current && mx && *current > 0.90 && *mx < 0.25;
       }},
      {"fp8-scaling", "outlier", "fp8-current loss >= 20% above mxfp8's",
       [](const History& h) { return h.lossGap(M::Fp8Current, M::MXFP8); }},
      {"measuring", "", "step-time means over steps 6-25 (every mode at step 25)",
       [](const History& h) {
         for (const auto& [mode, steps] : h.modes)
           if (steps.size() < 25) return false;
         return !h.modes.empty();
       }},
  };
  return table;
}

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Result {
  int64_t step = 0;
  double wall = 0;
  double cpu = 0;
};

// Trains one configuration until every claim holds, the run ends or `maxSeconds` pass.
std::vector<std::optional<Result>> measure(const RunConfig& config, const std::vector<const Claim*>& rows,
                                           double maxSeconds, int64_t* stepsRun, double* wallRun) {
  std::vector<std::optional<Result>> found(rows.size());
  const auto start = std::chrono::steady_clock::now();
  const double cpuStart = cpuSeconds();
  ampscope::Comparison comparison(config);
  History history;
  history.config = &config;
  auto wall = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (comparison.stepsDone() < config.steps && !comparison.allDiverged() && wall() < maxSeconds) {
    ampscope::StepRecord record = comparison.step();
    for (ModeStep& m : record.modes) {
      m.tensors.clear();
      m.roundingPoints.clear();
      history.modes[m.mode].push_back(std::move(m));
    }
    bool all = true;
    for (size_t i = 0; i < rows.size(); ++i) {
      if (!found[i] && rows[i]->holds(history)) found[i] = Result{record.step, wall(), cpuSeconds() - cpuStart};
      all = all && found[i].has_value();
    }
    if (all) break;
  }
  *stepsRun = comparison.stepsDone();
  *wallRun = wall();
  return found;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QString folder = ampscope::ui::LessonLibrary::defaultFolder();
  QString only;
  double maxSeconds = 120;
  const QStringList args = app.arguments().mid(1);
  for (int i = 0; i < args.size(); ++i) {
    const bool hasValue = i + 1 < args.size();
    if (args[i] == QLatin1String("--lessons") && hasValue) {
      folder = args[++i];
    } else if (args[i] == QLatin1String("--only") && hasValue) {
      only = args[++i];
    } else if (args[i] == QLatin1String("--max-seconds") && hasValue) {
      bool ok = false;
      maxSeconds = args[++i].toDouble(&ok);
      if (!ok || !(maxSeconds > 0)) {
        std::fprintf(stderr, "ampscope_lesson_claims: --max-seconds needs a positive number\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: ampscope_lesson_claims [--lessons FOLDER] [--only ID] [--max-seconds S]\n");
      return 2;
    }
  }
  ampscope::ui::LessonLibrary library;
  if (!library.load(folder)) {
    for (const QString& error : library.errors()) std::fprintf(stderr, "%s\n", qPrintable(error));
    return 2;
  }

  std::printf("%-17s %-15s %-55s %7s %7s %7s  %s\n", "lesson", "variant", "claim", "step", "wall s", "cpu s",
              "run (steps, wall s)");
  for (const ampscope::ui::Lesson& lesson : library.lessons()) {
    const std::string id = lesson.id.toStdString();
    if (!only.isEmpty() && lesson.id != only) continue;
    if (!lesson.config) {
      std::printf("%-17s %-15s %-55s %7s %7s %7s\n", id.c_str(), "", "no run: the panels show it on opening", "-",
                  "0", "0");
      continue;
    }
    const int variants = std::max<int>(1, static_cast<int>(lesson.variants.size()));
    for (int v = 0; v < variants; ++v) {
      const std::string variant = lesson.variants.isEmpty() ? std::string() : lesson.variants[v].id.toStdString();
      std::vector<const Claim*> rows;
      for (const Claim& claim : claims())
        if (claim.lesson == id && claim.variant == variant) rows.push_back(&claim);
      if (rows.empty()) {
        std::printf("%-17s %-15s %-55s\n", id.c_str(), variant.c_str(), "(no claim in the table)");
        continue;
      }
      const RunConfig config = *lesson.configFor(v);
      int64_t steps = 0;
      double wall = 0;
      const auto found = measure(config, rows, maxSeconds, &steps, &wall);
      for (size_t i = 0; i < rows.size(); ++i) {
        const char* text = rows[i]->text;
        if (found[i]) {
          std::printf("%-17s %-15s %-55s %7lld %7.1f %7.1f  %lld of %lld, %.1f\n", id.c_str(), variant.c_str(), text,
                      static_cast<long long>(found[i]->step), found[i]->wall, found[i]->cpu,
                      static_cast<long long>(steps), static_cast<long long>(config.steps), wall);
        } else {
          std::printf("%-17s %-15s %-55s %7s %7s %7s  %lld of %lld, %.1f\n", id.c_str(), variant.c_str(), text, "never",
                      "-", "-", static_cast<long long>(steps), static_cast<long long>(config.steps), wall);
        }
      }
      std::fflush(stdout);
    }
  }
  return 0;
}
