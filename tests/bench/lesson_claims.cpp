// ampscope_lesson_claims: how long each lesson takes to make its point, and whether it does. Per lesson (and
// variant) it loads the lesson's config exactly as opening the lesson does (LessonLibrary, Lesson::configFor),
// trains it with the engine as pressing Run does (a Comparison, one step after the other, at the config's
// thread count), feeds every record to the claims of the lesson's "what to look for" items that apply to the
// variant (the lesson files' "claim", checked by the engine's LessonClaimEvaluator as the lesson panel checks
// them), and prints per claim its state at the end of the run, the step it holds from, the seconds until it
// first held, and its readings. A measuring tool, not a test: it fails only on bad input, or with --check
// when a claim does not hold at the end of its run.
//
//   ampscope_lesson_claims [--lessons FOLDER] [--only ID] [--max-seconds S] [--check]
//
// FOLDER defaults to the lessons built into the app (:/lessons); pass resources/lessons to measure edited
// files without rebuilding. A run stops after S seconds (its claims then show "stopped"). "wall s" is the time
// since the Comparison was built; "cpu s" is this process's CPU time over the same span, which is what a quiet
// machine's wall time would be (the training runs on one thread), so a busy machine shows as wall > cpu.
#include <QCoreApplication>
#include <QStringList>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/lesson_claim_evaluator.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ui/lessons/claim_text.h"
#include "ui/lessons/lesson_library.h"
#include "ui/lessons/plot_callouts.h"

namespace {

using ampscope::ClaimStatus;
using ampscope::LessonClaimEvaluator;
using ampscope::RunConfig;

double cpuSeconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

struct Row {
  int callout = 0;  // index into the lesson's callouts
  LessonClaimEvaluator evaluator;
  std::optional<double> firstWall, firstCpu;  // when it first held
};

struct Run {
  int64_t steps = 0;
  double wall = 0;
  bool stopped = false;  // --max-seconds ended it before the config's last step
};

// Trains one configuration to its end (or `maxSeconds`), every record to every row's evaluator.
Run measure(const RunConfig& config, std::vector<Row>& rows, double maxSeconds) {
  const auto start = std::chrono::steady_clock::now();
  const double cpuStart = cpuSeconds();
  ampscope::Comparison comparison(config);
  auto wall = [&start] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  while (comparison.stepsDone() < config.steps && !comparison.allDiverged() && wall() < maxSeconds) {
    const ampscope::StepRecord record = comparison.step();
    for (Row& row : rows) {
      row.evaluator.observe(record);
      if (!row.firstWall && row.evaluator.state().status == ClaimStatus::Holds) {
        row.firstWall = wall();
        row.firstCpu = cpuSeconds() - cpuStart;
      }
    }
  }
  Run run{comparison.stepsDone(), wall(), false};
  run.stopped = run.steps < config.steps && !comparison.allDiverged();
  if (!run.stopped)
    for (Row& row : rows) row.evaluator.finish();
  return run;
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  QString folder = ampscope::ui::LessonLibrary::defaultFolder();
  QString only;
  double maxSeconds = 120;
  bool check = false;
  const QStringList args = app.arguments().mid(1);
  for (int i = 0; i < args.size(); ++i) {
    const bool hasValue = i + 1 < args.size();
    if (args[i] == QLatin1String("--lessons") && hasValue) {
      folder = args[++i];
    } else if (args[i] == QLatin1String("--only") && hasValue) {
      only = args[++i];
    } else if (args[i] == QLatin1String("--check")) {
      check = true;
    } else if (args[i] == QLatin1String("--max-seconds") && hasValue) {
      bool ok = false;
      maxSeconds = args[++i].toDouble(&ok);
      if (!ok || !(maxSeconds > 0)) {
        std::fprintf(stderr, "ampscope_lesson_claims: --max-seconds needs a positive number\n");
        return 2;
      }
    } else {
      std::fprintf(stderr, "usage: ampscope_lesson_claims [--lessons FOLDER] [--only ID] [--max-seconds S] [--check]\n");
      return 2;
    }
  }
  ampscope::ui::LessonLibrary library;
  if (!library.load(folder)) {
    for (const QString& error : library.errors()) std::fprintf(stderr, "%s\n", qPrintable(error));
    return 2;
  }
  if (!only.isEmpty() && !library.find(only)) {
    std::fprintf(stderr, "ampscope_lesson_claims: --only: no lesson '%s'\n", qPrintable(only));
    return 2;
  }

  std::printf("%-17s %-15s %-4s %-36s %7s %7s  %s\n", "lesson", "variant", "item", "state at the end", "wall s",
              "cpu s", "readings (run: steps, wall s)");
  bool allHold = true;
  for (const ampscope::ui::Lesson& lesson : library.lessons()) {
    const std::string id = lesson.id.toStdString();
    if (!only.isEmpty() && lesson.id != only) continue;
    if (!lesson.config) {
      std::printf("%-17s %-15s %-4s %-36s\n", id.c_str(), "", "", "no run: the panels show it on opening");
      continue;
    }
    const int variants = std::max<int>(1, static_cast<int>(lesson.variants.size()));
    for (int v = 0; v < variants; ++v) {
      const QString variantId = lesson.variantId(v);
      const std::string variant = variantId.toStdString();
      std::vector<Row> rows;
      for (int c = 0; c < lesson.callouts.size(); ++c) {
        const auto& callout = lesson.callouts[c];
        if (callout.claimAppliesTo(variantId)) rows.push_back(Row{c, LessonClaimEvaluator(*callout.claim), {}, {}});
      }
      if (rows.empty()) {
        std::printf("%-17s %-15s %-4s %-36s\n", id.c_str(), variant.c_str(), "", "(no claim for this variant)");
        continue;
      }
      const RunConfig config = *lesson.configFor(v);
      const Run run = measure(config, rows, maxSeconds);
      for (const Row& row : rows) {
        const ampscope::ClaimState& state = row.evaluator.state();
        QString status = ampscope::ui::ClaimText::status(state);
        if (run.stopped && state.status == ClaimStatus::Waiting) status += QStringLiteral(" (stopped)");
        allHold = allHold && state.status == ClaimStatus::Holds;
        const QString badge = ampscope::ui::PlotCallouts::badgeText(row.callout + 1);
        QStringList readings;
        for (const auto& reading : state.readings) readings << ampscope::ui::ClaimText::reading(reading);
        std::printf("%-17s %-15s %-4s %-36s %7s %7s  %s; run: %lld of %lld, %.1f\n", id.c_str(), variant.c_str(),
                    qPrintable(badge), qPrintable(status),
                    row.firstWall ? qPrintable(QString::number(*row.firstWall, 'f', 1)) : "-",
                    row.firstCpu ? qPrintable(QString::number(*row.firstCpu, 'f', 1)) : "-",
                    qPrintable(readings.join(QStringLiteral("; "))), static_cast<long long>(run.steps),
                    static_cast<long long>(config.steps), run.wall);
      }
      std::fflush(stdout);
    }
  }
  return check && !allHold ? 1 : 0;
}
