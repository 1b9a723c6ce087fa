// The RunConfig schema: one table row per field (its key, CLI flag, type, unit, bounds, default
// and one-line help). Everything that reads, writes, checks or shows a RunConfig derives from it:
// validate() and its errors, the CLI flags and their --help, the run panel's fields and validators,
// the lesson and session readers, the session writer and the reproduce export's CONFIG dict.
// A new field is one new row (and its RunConfig member); docs/architecture.md tells the steps.
//
// Keys are the file spelling, dotted for nested objects: "scaler.growth-interval" is the member
// "growth-interval" of the object "scaler" in a session or lesson, and every error names that full key.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/run_config.h"

namespace ampscope {

enum class FieldType {
  Choice,    // one of `choices` (model, optimizer, clip.order)
  ModeList,  // a non-empty list of distinct precision modes
  Integer,   // int64 within [min, max]
  Real,      // finite double within the bounds
  Switch,    // bool; on the command line --flag / --no-flag
  LayerModes,  // a plan's layers: "fc1=fp32,fc5=bf16-amp" (run_config.h, parsePlanLayers), a string in JSON
};

// Where a field's value lives in a RunConfig: the pair of functions of its type is set, the others are
// null. Choice fields read and write the value's name; setName returns false for an unknown name.
struct ConfigAccess {
  double (*getReal)(const RunConfig&) = nullptr;
  void (*setReal)(RunConfig&, double) = nullptr;
  int64_t (*getInteger)(const RunConfig&) = nullptr;
  void (*setInteger)(RunConfig&, int64_t) = nullptr;
  bool (*getSwitch)(const RunConfig&) = nullptr;
  void (*setSwitch)(RunConfig&, bool) = nullptr;
  std::string (*getName)(const RunConfig&) = nullptr;
  bool (*setName)(RunConfig&, std::string_view) = nullptr;
  std::vector<std::string> (*names)() = nullptr;  // a Choice's values (and the mode list's)
};

struct ConfigField {
  std::string_view key;          // "scaler.growth-interval"
  std::string_view flag;         // "--growth-interval"
  std::string_view oldFlag;      // a deprecated spelling still accepted, or empty
  std::string_view pythonName;   // the name in the reproduce script's CONFIG dict ("growth_interval"),
                                 // empty when the script has no use for the field
  FieldType type = FieldType::Real;
  std::string_view unit;         // "steps", "elements", "" ...
  double min = 0;                // bounds of Integer and Real fields
  double max = 0;
  bool minExclusive = false;     // (min, ...] instead of [min, ...]
  bool maxExclusive = false;
  std::string_view valueName;    // the placeholder in --help: "X", "N", "NAME", "LIST"
  std::string_view help;         // one line, English; translated under the context "ConfigSchema"
  std::string_view group;        // "model", "training", "scaler", "clip", "run": how panels group them
  ConfigAccess access;
  // Added after sessions and streams without it were written: a reader that requires every field
  // takes its absence as the default.
  bool mayBeAbsent = false;
  // Written only when it differs from its default, even where the other mayBeAbsent fields are written:
  // a config that leaves it at the default keeps the bytes it had before the row existed.
  bool writtenOnlyWhenSet = false;
};

const std::vector<ConfigField>& configFields();
const ConfigField* findConfigField(std::string_view key);
// Looks up "--flag" and its deprecated spelling; *deprecated is set when the old spelling matched.
// A switch also answers to "--no-<flag without -->" (*negated set).
const ConfigField* findConfigFlag(std::string_view flag, bool* deprecated = nullptr, bool* negated = nullptr);
// The values a Choice field or the mode list accepts, in table order: {"tiny-mlp", "deep-mlp", ...}.
std::vector<std::string> fieldChoices(const ConfigField& field);
// "[1, 256]", "(0, 1)", "> 0": the bounds as --help and errors show them.
std::string fieldBoundsText(const ConfigField& field);

// The field's value as text: a number (numberText), a name, "true"/"false", modes joined by ','.
std::string fieldText(const RunConfig& config, const ConfigField& field);
// Parses `text` and, if it is within the field's bounds, stores it. Otherwise returns the error
// (field = the full key) and leaves `config` unchanged. Switches take "true" or "false".
// A ConfigError whose message is `text` (a template with %1, %2 ...) with `args` filled in.
ConfigError configError(std::string field, const char* text, std::vector<std::string> args = {});

std::optional<ConfigError> setFieldText(RunConfig& config, const ConfigField& field, std::string_view text);
// Checks the field's current value against its type and bounds (what validate() does, field by field).
std::optional<ConfigError> checkField(const RunConfig& config, const ConfigField& field);

// What one training step holds in memory, estimated from the model's size and the batch: per mode its
// weights, gradients, optimizer state and a low-precision copy (5 float32 copies of every parameter),
// plus the activations of the mode being stepped (modes step one after another) and their gradients
// (8 bytes per activation element per example), plus the batch itself. An estimate, not a measurement:
// its bytes per example are 1.5-1.9x what the counting allocator measures a step's peak growing by
// (step_memory_estimate_test keeps it between 1x and 2.5x for every model), so it errs on the safe side.
// The schema refuses a batch whose step would need more than kStepMemoryLimitBytes. The limit is a
// constant, not this machine's memory, so that a configuration or session is valid on every machine.
struct StepMemoryEstimate {
  int64_t parameters = 0;     // of the model, as its state_dict counts them
  int64_t exampleBytes = 0;   // one example of the batch as the engine makes it (inputs and targets)
  double bytes = 0;           // one step, every configured mode
  int64_t maxBatch = 0;       // the largest batch within the limit for this model and these modes
};
inline constexpr int64_t kStepMemoryLimitBytes = int64_t{4} << 30;
StepMemoryEstimate stepMemoryEstimate(const RunConfig& config);

// Writes every field, nested by key ("scaler": {...}), in table order: the same config, the same bytes.
// A field added after AmpScope 0.1's sessions (precision-path) is left out while it holds its default,
// and reading a session (requireAll) takes its absence as the default.
void writeConfigJson(JsonWriter& out, const RunConfig& config);

// Reads the members of `object` into `config`. Unknown keys are errors naming the key; a field whose
// JSON type or value is wrong is an error naming its full key. With `requireAll` (sessions) every field
// must be present; without it (lessons, their variants) the present keys refine `config`. Errors are
// prefixed by `pathPrefix` ("config." gives "config.scaler.growth-interval"). Returns every error found;
// `config` holds whatever did read. Cross-field checks are validate()'s, which the caller runs.
std::vector<ConfigError> readConfigJson(const JsonValue& object, RunConfig& config, bool requireAll,
                                        const std::string& pathPrefix = std::string());

// The field's value in the reproduce script's Python ("True", "1e-08", "'adamw'", "['fp32', ...]").
std::string fieldPython(const RunConfig& config, const ConfigField& field);
// The configuration lines of the reproduce script's CONFIG dict, from 'model' to 'threads', each
// "    'name': value,\n" (the GradScaler settings nested in 'scaler'), in the script's own order.
// 'steps' is config.steps: an export of fewer steps passes a copy with those.
std::string pythonConfigDict(const RunConfig& config);


}  // namespace ampscope
