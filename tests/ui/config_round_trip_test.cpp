// Every field of the RunConfig schema survives every reader and writer a config passes through, bit for
// bit: the CLI's flags (RunConfigFlags, the parser `train` and `reproduce` use) -> the record stream's
// header -> a session document -> a lesson's "config" (Lesson::fromJson, which goes through Qt's JSON
// first) -> the run panel's form -> a session again, whose bytes must equal the first session's.
//
// The configs are drawn with a fixed seed, each field within the bounds of its row in the schema's table
// (config_schema.cpp), so the test follows the table when a row is added or its bounds move. The first
// trials go through every edge value of every field in turn (the bounds themselves, the next double
// inside an exclusive bound, the FP16 limits, decimals that have no exact binary value, 17-digit
// numbers), then the draws mix edge values with random ones.
#include <gtest/gtest.h>

#include <QByteArray>
#include <QString>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "run_config_flags.h"
#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"
#include "ampscope/engine/record_codec.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/session_codec.h"
#include "ampscope/engine/telemetry.h"
#include "ui/lessons/lesson.h"
#include "ui/training/run_panel.h"

namespace ampscope::ui {
namespace {

constexpr int kTrials = 300;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The bounds as the table states them, checked here without the schema's own code.
bool withinBounds(const ConfigField& field, double value) {
  if (!std::isfinite(value)) return false;
  const bool aboveMin = field.minExclusive ? value > field.min : value >= field.min;
  const bool belowMax = field.maxExclusive ? value < field.max : value <= field.max;
  return aboveMin && belowMax;
}

// Reals a careless formatter or parser loses: the bounds and the doubles just inside them (5e-324 above
// an exclusive 0 is a subnormal), 0.1 and 1/3 (no exact binary value), 1e-8 (AdamW's eps), 2^-24 and
// 2^-14 (FP16's smallest subnormal and normal), 65504 (FP16's largest), 1 + 2^-52, and numbers whose
// shortest round-trip text has 17 significant digits.
std::vector<double> realEdges(const ConfigField& field) {
  const std::vector<double> all = {field.min,
                                   field.max,
                                   std::nextafter(field.min, kInf),
                                   std::nextafter(field.max, -kInf),
                                   0.1,
                                   1.0 / 3.0,
                                   1e-8,
                                   std::ldexp(1.0, -24),
                                   std::ldexp(1.0, -14),
                                   65504.0,
                                   std::nextafter(1.0, kInf),
                                   std::nextafter(1.0, 0.0),
                                   0.30000000000000004,
                                   1.2345678901234567,
                                   9.8765432109876543e-5,
                                   123.45678901234567,
                                   2.2250738585072014e-308,  // DBL_MIN, the smallest normal double
                                   1e-300,
                                   6.103515625e-05};
  std::vector<double> edges;
  for (double v : all) {
    if (withinBounds(field, v) && std::find(edges.begin(), edges.end(), v) == edges.end()) edges.push_back(v);
  }
  return edges;
}

std::vector<int64_t> integerEdges(const ConfigField& field) {
  const auto lo = static_cast<int64_t>(field.min);
  const auto hi = static_cast<int64_t>(field.max);
  const std::vector<int64_t> all = {lo,   hi,   lo + 1, hi - 1,       2,           1000,          65504,
                                    1 << 24, 2147483647, 4294967296, 9007199254740991};
  std::vector<int64_t> edges;
  for (int64_t v : all) {
    if (v >= lo && v <= hi && std::find(edges.begin(), edges.end(), v) == edges.end()) edges.push_back(v);
  }
  return edges;
}

double drawReal(const ConfigField& field, int trial, std::mt19937_64& rng) {
  const std::vector<double> edges = realEdges(field);
  if (trial < static_cast<int>(edges.size())) return edges[static_cast<std::size_t>(trial)];
  if (std::bernoulli_distribution(0.3)(rng)) {
    return edges[std::uniform_int_distribution<std::size_t>(0, edges.size() - 1)(rng)];
  }
  for (;;) {
    double v = 0;
    if (std::bernoulli_distribution(0.5)(rng)) {
      v = std::uniform_real_distribution<double>(field.min, field.max)(rng);
    } else {  // log-uniform: small values are as likely as large ones
      const double lo = std::log(std::max(field.min, 1e-12));
      v = std::exp(std::uniform_real_distribution<double>(lo, std::log(field.max))(rng));
    }
    if (withinBounds(field, v)) return v;
  }
}

int64_t drawInteger(const ConfigField& field, int trial, std::mt19937_64& rng) {
  const std::vector<int64_t> edges = integerEdges(field);
  if (trial < static_cast<int>(edges.size())) return edges[static_cast<std::size_t>(trial)];
  const auto lo = static_cast<int64_t>(field.min);
  const auto hi = static_cast<int64_t>(field.max);
  const int pick = std::uniform_int_distribution<int>(0, 2)(rng);
  if (pick == 0) return edges[std::uniform_int_distribution<std::size_t>(0, edges.size() - 1)(rng)];
  if (pick == 1) return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  const double logValue = std::uniform_real_distribution<double>(0, std::log(static_cast<double>(hi)))(rng);
  return std::clamp(static_cast<int64_t>(std::exp(logValue)), lo, hi);
}

// Non-empty, distinct, in a random order; the first trials take each mode alone, then all of them in
// reverse table order.
std::vector<PrecisionMode> drawModes(int trial, std::mt19937_64& rng) {
  std::vector<PrecisionMode> modes = allPrecisionModes();
  const int n = static_cast<int>(modes.size());
  if (trial < n) return {modes[static_cast<std::size_t>(trial)]};
  if (trial == n) return {modes.rbegin(), modes.rend()};
  std::shuffle(modes.begin(), modes.end(), rng);
  modes.resize(std::uniform_int_distribution<std::size_t>(1, modes.size())(rng));
  return modes;
}

// A plan's layers for the drawn model: none in the first trials, then each mode of the plan lane in
// turn on one layer, then a random subset of the model's GEMM layers in a random order, each in a
// random mode of the plan lane.
std::vector<std::pair<std::string, PrecisionMode>> drawPlanLayers(ModelKind model, int trial, std::mt19937_64& rng) {
  const std::vector<PrecisionMode>& modes = planLayerModes();
  std::vector<std::string> names = planLayerNames(model);
  if (trial < 2) return {};
  if (trial < 2 + static_cast<int>(modes.size())) return {{names.back(), modes[static_cast<std::size_t>(trial - 2)]}};
  std::shuffle(names.begin(), names.end(), rng);
  names.resize(std::uniform_int_distribution<std::size_t>(0, names.size())(rng));
  std::vector<std::pair<std::string, PrecisionMode>> layers;
  for (const std::string& name : names)
    layers.emplace_back(name, modes[std::uniform_int_distribution<std::size_t>(0, modes.size() - 1)(rng)]);
  return layers;
}

// Every field of the schema, set through its accessors (not through the text the chain parses).
RunConfig drawConfig(int trial, std::mt19937_64& rng) {
  RunConfig config;
  for (const ConfigField& field : configFields()) {
    switch (field.type) {
      case FieldType::Choice: {
        const std::vector<std::string> names = fieldChoices(field);
        const std::size_t index = trial < static_cast<int>(names.size())
                                      ? static_cast<std::size_t>(trial)
                                      : std::uniform_int_distribution<std::size_t>(0, names.size() - 1)(rng);
        EXPECT_TRUE(field.access.setName(config, names[index])) << field.key << " " << names[index];
        break;
      }
      case FieldType::ModeList: config.modes = drawModes(trial, rng); break;
      case FieldType::Integer: field.access.setInteger(config, drawInteger(field, trial, rng)); break;
      case FieldType::Real: field.access.setReal(config, drawReal(field, trial, rng)); break;
      case FieldType::Switch:
        field.access.setSwitch(config, trial < 2 ? trial == 1 : std::bernoulli_distribution(0.5)(rng));
        break;
      case FieldType::LayerModes: config.plan.layers = drawPlanLayers(config.model, trial, rng); break;
    }
  }
  // The one bound across fields: the batch must fit the drawn model's step in memory.
  config.batchSize = std::min(config.batchSize, stepMemoryEstimate(config).maxBatch);
  return config;
}

// The command line for `config`: one flag per field, in a random order (the model's flag anywhere);
// switches as --X / --no-X; a deprecated spelling now and then.
std::vector<std::string> argvFor(const RunConfig& config, std::mt19937_64& rng) {
  std::vector<std::vector<std::string>> pairs;
  for (const ConfigField& field : configFields()) {
    const bool old = !field.oldFlag.empty() && std::bernoulli_distribution(0.25)(rng);
    const std::string flag(old ? field.oldFlag : field.flag);
    if (field.type == FieldType::Switch) {
      pairs.push_back({field.access.getSwitch(config) ? flag : "--no-" + flag.substr(2)});
    } else if (field.type == FieldType::LayerModes && fieldText(config, field).empty()) {
      continue;  // no layers: the default, and no empty argument on the command line
    } else {
      pairs.push_back({flag, fieldText(config, field)});
    }
  }
  std::shuffle(pairs.begin(), pairs.end(), rng);
  std::vector<std::string> args;
  for (const auto& pair : pairs) args.insert(args.end(), pair.begin(), pair.end());
  return args;
}

std::string bitsOf(double v) {
  char text[64];
  std::snprintf(text, sizeof text, "%a", v);
  return text;
}

// Every field compared as text (fieldText) and, for reals, by the bits of the double. Each difference
// is reported with the field's key, the stage and both values; returns whether there was none.
bool sameConfig(const RunConfig& expected, const RunConfig& got, const std::string& stage, int trial) {
  bool same = true;
  for (const ConfigField& field : configFields()) {
    const std::string want = fieldText(expected, field);
    const std::string have = fieldText(got, field);
    bool equal = want == have;
    std::string detail;
    if (field.type == FieldType::Real) {
      const double a = field.access.getReal(expected);
      const double b = field.access.getReal(got);
      equal = equal && std::memcmp(&a, &b, sizeof a) == 0;
      detail = " [" + bitsOf(a) + " vs " + bitsOf(b) + "]";
    }
    if (!equal) {
      ADD_FAILURE() << "trial " << trial << ", stage " << stage << ", field " << field.key << ": expected "
                    << want << ", got " << have << detail;
      same = false;
    }
  }
  return same;
}

std::string lessonDocument(const RunConfig& config) {
  std::string doc;
  JsonWriter out(doc);
  out.beginObject();
  out.key("id").value("x");
  out.key("section").value(1);
  out.key("title").beginObject().key("en").value("x").key("zh_CN").value("x").endObject();
  out.key("narrative").beginObject();
  out.key("en").beginArray().value("x").endArray();
  out.key("zh_CN").beginArray().value("x").endArray();
  out.endObject();
  out.key("config");
  writeConfigJson(out, config);
  out.key("panels").beginArray().value("loss").endArray();
  out.endObject();
  return doc;
}

// One trial of the whole chain; false (with the failures reported) at the first stage that differs.
bool roundTrip(const RunConfig& drawn, int trial, std::mt19937_64& rng, RunPanel& panel) {
  const std::vector<std::string> args = argvFor(drawn, rng);
  std::string command;
  for (const auto& arg : args) command += " " + arg;
  SCOPED_TRACE("trial " + std::to_string(trial) + ", flags:" + command);

  // 1. The CLI's flags.
  RunConfig a;
  try {
    cli::RunConfigFlags flags(args);
    for (std::size_t i = 0; i < args.size(); ++i) {
      if (!flags.consume(args, i)) {
        ADD_FAILURE() << "flag not taken: " << args[i];
        return false;
      }
    }
    a = flags.finish();
  } catch (const cli::CliUsageError& error) {
    ADD_FAILURE() << "stage flags: " << error.message;
    return false;
  }
  if (!sameConfig(drawn, a, "flags", trial)) return false;

  // 2. The record stream: the header and one step.
  ModeStep step;
  step.mode = a.modes.front();
  step.step = 1;
  step.loss = 2.302585092994046;  // ln 10
  step.lossScale = a.scaler.initScale;
  step.lr = a.lr;
  std::string stream = recordStreamHeader(a);
  appendRecordStreamLine(stream, step);
  RecordError recordError;
  const auto records = readRecordStream(stream, &recordError);
  if (!records || !records->config || records->steps.size() != 1) {
    ADD_FAILURE() << "stage record stream: " << recordError.text() << "\n" << stream;
    return false;
  }
  const RunConfig b = *records->config;
  if (!sameConfig(a, b, "record stream", trial)) return false;

  // 3. A session.
  const std::vector<StepRecord> stepRecords = {StepRecord{1, {records->steps.front()}}};
  const std::string s1 = encodeSession(Session{b, "x", stepRecords, {}});
  SessionError sessionError;
  const auto session = decodeSession(s1, &sessionError);
  if (!session) {
    ADD_FAILURE() << "stage session: " << sessionError.text() << "\n" << s1;
    return false;
  }
  EXPECT_EQ(session->lesson, "x");
  EXPECT_EQ(session->records.size(), 1u);
  const RunConfig c = session->config;
  if (!sameConfig(b, c, "session", trial)) return false;

  // 4. A lesson whose config is the session's.
  const std::string lessonJson = lessonDocument(c);
  QString lessonError;
  const auto lesson =
      Lesson::fromJson(QByteArray::fromStdString(lessonJson), QStringLiteral("round-trip.json"), &lessonError);
  if (!lesson || !lesson->config) {
    ADD_FAILURE() << "stage lesson: " << lessonError.toStdString() << "\n" << lessonJson;
    return false;
  }
  const RunConfig d = *lesson->config;
  if (!sameConfig(c, d, "lesson", trial)) return false;

  // 5. The run panel: what setConfig shows, config() reads back from the form.
  panel.setConfig(d);
  if (!panel.isValid()) {
    ADD_FAILURE() << "stage run panel: the form is invalid, fields: "
                  << panel.errorFields().join(QStringLiteral(", ")).toStdString();
    for (const QString& name : panel.errorFields())
      ADD_FAILURE() << name.toStdString() << ": " << panel.fieldError(name).toStdString();
    return false;
  }
  const RunConfig e = panel.config();
  if (!sameConfig(d, e, "run panel", trial)) return false;

  // 6. The session again: the same bytes.
  const std::string s2 = encodeSession(Session{e, "x", stepRecords, {}});
  if (s2 != s1) {
    ADD_FAILURE() << "stage session again: the bytes differ\nfirst:  " << s1 << "\nsecond: " << s2;
    return false;
  }
  return true;
}

TEST(ConfigRoundTrip, EveryFieldSurvivesFlagsRecordsSessionLessonAndPanelBitForBit) {
  std::mt19937_64 rng(20240611);
  RunPanel panel;  // one form for every trial, as the app keeps one: nothing may leak between configs
  int failed = 0;
  for (int trial = 0; trial < kTrials && failed < 5; ++trial) {
    const RunConfig drawn = drawConfig(trial, rng);
    if (!roundTrip(drawn, trial, rng, panel)) ++failed;
  }
  EXPECT_EQ(failed, 0);
}

// The draws reach what the test claims to cover: every edge value of every field, both ends of every
// bound, every choice and both switch states (the first trials take them in turn).
TEST(ConfigRoundTrip, TheDrawsCoverEveryEdgeValueChoiceAndSwitchState) {
  std::mt19937_64 rng(20240611);
  std::vector<RunConfig> configs;
  for (int trial = 0; trial < kTrials; ++trial) {
    configs.push_back(drawConfig(trial, rng));
    argvFor(configs.back(), rng);  // the same draws as the round trip makes
  }
  for (const ConfigField& field : configFields()) {
    std::vector<std::string> wanted;
    switch (field.type) {
      case FieldType::Choice: wanted = fieldChoices(field); break;
      case FieldType::Switch: wanted = {"true", "false"}; break;
      case FieldType::ModeList: wanted = fieldChoices(field); break;  // each mode alone
      case FieldType::LayerModes:  // no layers, and each mode of the plan lane on a layer
        wanted = {""};
        for (PrecisionMode mode : planLayerModes()) {
          const bool seen = std::any_of(configs.begin(), configs.end(), [mode](const RunConfig& c) {
            return std::any_of(c.plan.layers.begin(), c.plan.layers.end(), [mode](const auto& e) { return e.second == mode; });
          });
          EXPECT_TRUE(seen) << field.key << " never gives a layer " << modeName(mode);
        }
        break;
      case FieldType::Integer:
        for (int64_t v : integerEdges(field)) wanted.push_back(std::to_string(v));
        break;
      case FieldType::Real:
        for (double v : realEdges(field)) wanted.push_back(numberText(v));
        // Both ends of the range, whichever side is exclusive.
        EXPECT_NE(std::find(wanted.begin(), wanted.end(),
                            numberText(field.minExclusive ? std::nextafter(field.min, kInf) : field.min)),
                  wanted.end())
            << field.key;
        EXPECT_NE(std::find(wanted.begin(), wanted.end(),
                            numberText(field.maxExclusive ? std::nextafter(field.max, -kInf) : field.max)),
                  wanted.end())
            << field.key;
        break;
    }
    for (const std::string& value : wanted) {
      const bool seen = std::any_of(configs.begin(), configs.end(),
                                    [&](const RunConfig& c) { return fieldText(c, field) == value; });
      EXPECT_TRUE(seen) << field.key << " never drawn as " << value;
    }
  }
  // More than one mode, in an order other than the table's.
  const bool shuffled = std::any_of(configs.begin(), configs.end(), [](const RunConfig& c) {
    return c.modes.size() > 2 && !std::is_sorted(c.modes.begin(), c.modes.end());
  });
  EXPECT_TRUE(shuffled);
  // Plans of several layers, in an order other than the model's, for every model.
  for (ModelKind model : {ModelKind::TinyMLP, ModelKind::DeepMLP, ModelKind::TinyTransformer}) {
    const std::vector<std::string> names = planLayerNames(model);
    const bool reordered = std::any_of(configs.begin(), configs.end(), [&](const RunConfig& c) {
      if (c.model != model || c.plan.layers.size() < 2) return false;
      const auto at = [&](const std::string& layer) { return std::find(names.begin(), names.end(), layer) - names.begin(); };
      return at(c.plan.layers[0].first) > at(c.plan.layers[1].first);
    });
    EXPECT_TRUE(reordered) << modelName(model);
  }
}

}  // namespace
}  // namespace ampscope::ui
