// `ampscope-cli plan`: finds by training the smallest set of an engine model's layers to keep in higher
// precision so that a low-precision target trains within a tolerance of FP32 (plan_search.h), prints the
// trials and the advice beside what training proved, and writes the plan (--plan, the file `advise
// --plan` writes and `train --plan-file` reads) and the loss curves (--csv).
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "ampscope/engine/file_replace.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/plan_search.h"
#include "ampscope/engine/precision_plan.h"
#include "commands.h"
#include "run_config_flags.h"

namespace ampscope::cli {
namespace {

constexpr const char* kPrefix = "ampscope-cli plan: ";

void printPlanUsage(std::ostream& out) {
  out << "Usage: ampscope-cli plan --model M --target MODE [--tolerance T] [OPTIONS]\n"
         "\n"
         "Finds, by training, the smallest set of the model's GEMM layers to keep in higher precision so\n"
         "that the target still trains like FP32: FP32 and the uniform target train side by side, then\n"
         "plan lanes (the target with some layers kept higher) train on the same weights and batches; a\n"
         "bisection over the layers (ordered by the advice of the FP32 run) finds the shortest passing\n"
         "prefix, and each kept layer is dropped in turn where the rest still passes. A candidate passes\n"
         "when the trailing mean of its loss stays within the tolerance of FP32's at every step and it does\n"
         "not diverge. Prints every trial, the plan, and the advice (ampscope-cli advise) beside what\n"
         "training proved. docs/precision-plans.md explains it.\n"
         "\n"
         "Options:\n"
         "  --target MODE       the low-precision mode: fp16-amp, fp16-amp-scaled, bf16-amp, fp8-delayed,\n"
         "                      fp8-current, mxfp8, nvfp4 (required)\n"
         "  --tolerance T       the largest allowed deviation from FP32, in loss units (default 0.05)\n"
         "  --higher MODE       what a kept layer runs in (default fp32; bf16-amp, ... for a cheaper one)\n"
         "  --window N          steps in each trailing mean (default 10)\n"
         "  --plan FILE         write the plan (JSON, as advise --plan writes it; train --plan-file reads it)\n"
         "  --csv FILE          the loss per step of fp32, the uniform target and the plan\n"
         "  --force             overwrite existing --plan / --csv files\n"
         "  --json              print the result as JSON instead of the tables\n"
         "\n"
         "The run is configured by train's flags (--model, --steps, --seed, --lr, --fp8-scaling, ...);\n"
         "--modes and the plan flags are the search's own and are refused.\n"
         "\n"
      << configFlagsHelp()
      << "\n"
         "Exit status: 0 a plan was found, 1 none passed (or a file could not be written), 2 bad\n"
         "arguments.\n";
}

struct PlanOptions {
  PlanSearchOptions search;
  std::string planPath;
  std::string csvPath;
  bool force = false;
  bool json = false;
};

PrecisionMode parsePlanMode(const std::string& flag, const std::string& value) {
  const auto mode = parseMode(value);
  std::string known;
  for (PrecisionMode m : planLayerModes()) known += (known.empty() ? "" : ", ") + modeName(m);
  for (PrecisionMode m : planLayerModes()) {
    if (mode && *mode == m) return m;
  }
  throw CliUsageError{"option " + flag + ": '" + value + "' is not a mode a plan can use (" + known + ")"};
}

PlanOptions parse(const std::vector<std::string>& args) {
  PlanOptions o;
  RunConfigFlags flags(args);
  std::set<std::string> seen;
  bool target = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--modes" || arg == "--plan-file" || arg == "--plan-layers" || arg == "--plan-default") {
      throw CliUsageError{"option " + arg + ": plan chooses the modes and plans it trains itself"};
    }
    if (flags.consume(args, i)) continue;
    if (arg.rfind("--", 0) == 0) refuseRepeatedFlag(seen, arg, arg);
    if (arg == "--force") {
      o.force = true;
    } else if (arg == "--json") {
      o.json = true;
    } else if (arg == "--target" || arg == "--tolerance" || arg == "--higher" || arg == "--window" ||
               arg == "--plan" || arg == "--csv") {
      if (i + 1 >= args.size()) throw CliUsageError{"option " + arg + " needs a value"};
      const std::string& value = args[++i];
      if (arg == "--target") {
        o.search.target = parsePlanMode(arg, value);
        target = true;
      } else if (arg == "--higher") {
        o.search.higher = parsePlanMode(arg, value);
      } else if (arg == "--tolerance") {
        const auto number = parseNumberText(value);
        if (!number || !(*number > 0) || !std::isfinite(*number))
          throw CliUsageError{"option --tolerance: expected a loss difference > 0, got '" + value + "'"};
        o.search.tolerance = *number;
      } else if (arg == "--window") {
        o.search.window = parseIntFlag(arg, value);
      } else if (arg == "--plan") {
        refuseEmptyPath(arg, value);
        o.planPath = value;
      } else {
        refuseEmptyPath(arg, value);
        o.csvPath = value;
      }
    } else {
      throw CliUsageError{"unknown option '" + arg + "' (see ampscope-cli plan --help)"};
    }
  }
  if (!target) throw CliUsageError{"option --target is required (see ampscope-cli plan --help)"};
  o.search.base = flags.finish();
  for (const auto& warning : flags.warnings()) std::cerr << kPrefix << warning << "\n";
  if (auto problem = planSearchProblem(o.search)) throw CliUsageError{"option --" + *problem};
  namespace fs = std::filesystem;
  std::error_code ignored;
  for (const std::string* path : {&o.planPath, &o.csvPath}) {
    if (!path->empty() && !o.force && fs::exists(*path, ignored)) {
      throw CliUsageError{"option " + std::string(path == &o.planPath ? "--plan" : "--csv") + ": '" + *path +
                          "' exists (add --force to overwrite it)"};
    }
  }
  if (!o.planPath.empty() && o.planPath == o.csvPath) throw CliUsageError{"--plan and --csv name the same file"};
  return o;
}

std::string keptText(const std::vector<std::string>& kept) {
  if (kept.empty()) return "-";
  std::string text;
  for (const auto& layer : kept) text += (text.empty() ? "" : ",") + layer;
  return text;
}

std::string number(double value, int digits = 4) {
  if (std::isinf(value)) return "diverged";
  std::ostringstream out;
  out << std::setprecision(digits) << value;
  return out.str();
}

double tailMean(const std::vector<double>& losses, int64_t window) {
  const size_t w = std::min<size_t>(static_cast<size_t>(window), losses.size());
  double sum = 0;
  for (size_t i = losses.size() - w; i < losses.size(); ++i) sum += losses[i];
  return w ? sum / static_cast<double>(w) : NAN;
}

// Why each layer of the plan is where it is, from the trials that decided it.
std::string layerReason(const PlanSearchResult& r, const std::string& layer, bool kept) {
  const std::string tolerance = numberText(r.options.tolerance);
  if (!kept) {
    return "trains in " + modeName(r.options.target) + ": the plan stays within " + tolerance + " of FP32";
  }
  for (const PlanLayerVerdict& v : r.layers) {
    if (v.layer != layer || v.neededByTrial < 0) continue;
    const PlanTrial& t = r.trials[static_cast<size_t>(v.neededByTrial)];
    const std::string which = v.neededByTrial == 0 ? "the uniform " + modeName(r.options.target)
                                                   : "the plan keeping " + keptText(t.kept) + " but not it";
    return "kept: " + which + " left FP32 by " + number(t.deviation) + " at step " + std::to_string(t.worstStep) +
           " (tolerance " + tolerance + ")";
  }
  return "kept: the search stopped before it could drop it";
}

PrecisionPlan filePlan(const PlanSearchResult& r) {
  PrecisionPlan plan;
  plan.source.kind = "plan-search";
  plan.source.run = modelName(r.options.base.model);
  plan.source.mode = "fp32";
  plan.source.firstStep = 1;
  plan.source.lastStep = static_cast<int64_t>(r.fp32Losses.size());
  plan.target = modeName(r.options.target);
  plan.thresholds = r.options.thresholds;
  for (const auto& layer : planLayerNames(r.options.base.model)) {
    LayerPlan p;
    p.layer = layer;
    p.keptHigher = std::find(r.kept.begin(), r.kept.end(), layer) != r.kept.end();
    p.mode = modeName(p.keptHigher ? r.options.higher : r.options.target);
    p.reason = layerReason(r, layer, p.keptHigher);
    plan.layers.push_back(std::move(p));
  }
  return plan;
}

void printText(const PlanSearchResult& r) {
  const PlanSearchOptions& o = r.options;
  std::cout << "plan search: " << modelName(o.base.model) << ", target " << modeName(o.target)
            << ", kept layers in " << modeName(o.higher) << ", tolerance " << numberText(o.tolerance)
            << " (trailing mean over " << o.window << " steps), " << o.base.steps << " steps, seed "
            << o.base.seed << "\n";
  std::cout << "order tried (the advice's kept layers first): " << keptText(r.order) << "\n\n";
  // The kept layers last: a transformer's list is longer than any column.
  std::cout << std::left << std::setw(6) << "trial" << std::setw(40) << "why" << std::right << std::setw(10)
            << "deviation" << std::setw(8) << "step" << std::setw(8) << "result" << std::setw(9) << "seconds"
            << "  kept higher\n";
  for (size_t i = 0; i < r.trials.size(); ++i) {
    const PlanTrial& t = r.trials[i];
    std::cout << std::left << std::setw(6) << (i + 1) << std::setw(40) << t.why << std::right << std::setw(10)
              << number(t.deviation) << std::setw(8) << t.worstStep << std::setw(8) << (t.passed ? "passes" : "fails")
              << std::setw(9) << number(t.seconds, 3) << "  " << keptText(t.kept) << "\n";
  }
  std::cout << "\n";
  if (r.cancelled) std::cout << "cancelled: the result is what ran\n";
  if (!r.found) {
    std::cout << "no plan found: even with every GEMM layer in " << modeName(o.higher)
              << " the loss leaves FP32 by more than " << numberText(o.tolerance)
              << " (the ops around the GEMMs run as " << modeName(o.target)
              << "); raise --tolerance or choose another target\n";
  } else if (r.kept.empty()) {
    std::cout << "result: the uniform " << modeName(o.target) << " already trains within " << numberText(o.tolerance)
              << " of FP32: nothing to keep higher\n";
  } else {
    std::cout << "result: keep " << keptText(r.kept) << " in " << modeName(o.higher) << " (" << r.kept.size()
              << " of " << planLayerNames(o.base.model).size() << " layers), the rest in " << modeName(o.target)
              << "\n";
  }
  if (r.found) {
    std::cout << "loss, mean of the last " << o.window << " steps: fp32 " << number(tailMean(r.fp32Losses, o.window))
              << ", uniform " << modeName(o.target) << " "
              << (r.uniformLosses.size() < r.fp32Losses.size() ? std::string("diverged at step ") +
                                                                     std::to_string(r.uniformLosses.size())
                                                               : number(tailMean(r.uniformLosses, o.window)))
              << ", plan " << number(tailMean(r.planLosses, o.window)) << "\n";
  }
  std::cout << "\nthe advice (FP32 run's records, target " << modeName(o.target) << ") beside training:\n";
  if (!r.advice) std::cout << "  (the FP32 run is too short to judge: no advice)\n";
  std::cout << std::left << std::setw(22) << "layer" << std::setw(18) << "advice" << std::setw(12) << "training"
            << "agreement\n";
  for (const PlanLayerVerdict& v : r.layers) {
    const std::string advice = v.advisedMode.empty() ? "-" : (v.adviceKeeps ? "keep: " : "") + v.advisedMode;
    std::cout << std::left << std::setw(22) << v.layer << std::setw(18) << advice << std::setw(12)
              << (v.trainingKeeps ? "keep" : "lower") << v.agreement << "\n";
  }
  std::cout << std::right << "\ntime: " << number(r.seconds, 3) << " s in " << r.trials.size()
            << " trainings (the first with FP32 beside it)\n";
}

void writeLosses(JsonWriter& w, const std::vector<double>& losses) {
  w.beginArray();
  for (double loss : losses) w.value(loss);
  w.endArray();
}

void printJson(const PlanSearchResult& r) {
  std::string text;
  JsonWriter w(text, JsonWriter::Layout::Pretty);
  const PlanSearchOptions& o = r.options;
  w.beginObject();
  w.key("format").value("ampscope-plan-search");
  w.key("version").value(1LL);
  w.key("model").value(modelName(o.base.model));
  w.key("target").value(modeName(o.target));
  w.key("higher").value(modeName(o.higher));
  w.key("tolerance").value(o.tolerance);
  w.key("window").value(static_cast<long long>(o.window));
  w.key("steps").value(static_cast<long long>(o.base.steps));
  w.key("found").value(r.found);
  w.key("cancelled").value(r.cancelled);
  w.key("kept").beginArray();
  for (const auto& layer : r.kept) w.value(layer);
  w.endArray();
  w.key("order").beginArray();
  for (const auto& layer : r.order) w.value(layer);
  w.endArray();
  w.key("trials").beginArray();
  for (const PlanTrial& t : r.trials) {
    w.beginObject();
    w.key("kept").beginArray();
    for (const auto& layer : t.kept) w.value(layer);
    w.endArray();
    w.key("why").value(t.why);
    w.key("deviation").value(t.deviation);
    w.key("worst-step").value(static_cast<long long>(t.worstStep));
    w.key("steps-run").value(static_cast<long long>(t.losses.size()));
    w.key("diverged").value(t.diverged);
    w.key("passed").value(t.passed);
    w.key("seconds").value(t.seconds);
    w.endObject();
  }
  w.endArray();
  w.key("layers").beginArray();
  for (const PlanLayerVerdict& v : r.layers) {
    w.beginObject();
    w.key("layer").value(v.layer);
    w.key("advised-mode").value(v.advisedMode);
    w.key("advice-keeps").value(v.adviceKeeps);
    w.key("training-keeps").value(v.trainingKeeps);
    w.key("agreement").value(v.agreement);
    w.endObject();
  }
  w.endArray();
  w.key("losses").beginObject();
  w.key("fp32");
  writeLosses(w, r.fp32Losses);
  w.key(modeName(o.target));
  writeLosses(w, r.uniformLosses);
  w.key("plan");
  writeLosses(w, r.planLosses);
  w.endObject();
  w.key("seconds").value(r.seconds);
  w.endObject();
  std::cout << text << "\n";
}

bool writeCsv(const std::string& path, const PlanSearchResult& r) {
  std::ostringstream out;
  out << "step,fp32," << modeName(r.options.target) << ",plan\n";
  auto cell = [](const std::vector<double>& v, size_t i) { return i < v.size() ? numberText(v[i]) : std::string(); };
  for (size_t i = 0; i < r.fp32Losses.size(); ++i) {
    out << (i + 1) << "," << cell(r.fp32Losses, i) << "," << cell(r.uniformLosses, i) << "," << cell(r.planLosses, i)
        << "\n";
  }
  return replaceFileWithText(path, out.str());
}

}  // namespace

int runPlanCommand(const std::vector<std::string>& args) {
  for (const auto& arg : args) {
    if (arg == "--help" || arg == "-h") {
      printPlanUsage(std::cout);
      return kExitOk;
    }
  }
  PlanOptions options;
  try {
    options = parse(args);
  } catch (const CliUsageError& error) {
    std::cerr << kPrefix << error.message << "\n";
    return kExitUsage;
  }
  const PlanSearchResult result = searchPlan(options.search, [&](const PlanTrial& t) {
    std::cerr << kPrefix << "trial " << (t.kept.empty() ? "-" : keptText(t.kept)) << " (" << t.why
              << "): " << (t.passed ? "passes" : "fails") << ", deviation " << number(t.deviation) << " at step "
              << t.worstStep << ", " << number(t.seconds, 3) << " s\n";
  });
  if (options.json) {
    printJson(result);
  } else {
    printText(result);
  }
  int code = result.found && !result.cancelled ? kExitOk : kExitFailure;
  if (!options.planPath.empty()) {
    if (!result.found) {
      std::cerr << kPrefix << "no plan passed; no plan written to " << options.planPath << "\n";
    } else if (!writePrecisionPlanFile(options.planPath, filePlan(result))) {
      std::cerr << kPrefix << "writing --plan file '" << options.planPath << "' failed\n";
      code = kExitFailure;
    } else if (!options.json) {
      std::cout << "plan written to " << options.planPath << "\n";
    }
  }
  if (!options.csvPath.empty()) {
    if (!writeCsv(options.csvPath, result)) {
      std::cerr << kPrefix << "writing --csv file '" << options.csvPath << "' failed\n";
      code = kExitFailure;
    } else if (!options.json) {
      std::cout << "loss curves written to " << options.csvPath << "\n";
    }
  }
  return code;
}

}  // namespace ampscope::cli
