#include "run_config_flags.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/precision_plan.h"

namespace ampscope::cli {

int64_t parseIntFlag(const std::string& flag, const std::string& text) {
  char* end = nullptr;
  errno = 0;
  const long long value = std::strtoll(text.c_str(), &end, 10);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE) {
    throw CliUsageError{"invalid " + flag + ": not an integer (got '" + text + "')"};
  }
  return value;
}

void refuseRepeatedFlag(std::set<std::string>& seen, const std::string& key, const std::string& flag) {
  if (!seen.insert(key).second) {
    throw CliUsageError{"option " + flag + " is given more than once (" + key + "); give it once"};
  }
}

void refuseEmptyPath(const std::string& flag, const std::string& value) {
  if (value.empty()) throw CliUsageError{"option " + flag + " needs a file name, not an empty string"};
}

namespace {

CliUsageError fieldError(const ConfigField& field, const std::string& message) {
  return CliUsageError{"invalid " + std::string(field.flag) + " (" + std::string(field.key) + "): " + message};
}

}  // namespace

RunConfigFlags::RunConfigFlags(const std::vector<std::string>& args) {
  const ConfigField& modelField = *findConfigField("model");
  RunConfig chosen;
  for (std::size_t i = 0; i + 1 < args.size(); ++i) {
    if (args[i] != modelField.flag) continue;
    if (auto error = setFieldText(chosen, modelField, args[i + 1])) throw fieldError(modelField, error->message);
  }
  config_ = presetFor(chosen.model);
}

bool RunConfigFlags::consume(const std::vector<std::string>& args, std::size_t& i) {
  const std::string& flag = args[i];
  if (flag == "--plan-file") {
    refuseRepeatedFlag(seen_, flag, flag);
    if (i + 1 >= args.size()) throw CliUsageError{"option " + flag + " needs a value"};
    planFile_ = args[++i];
    refuseEmptyPath(flag, planFile_);
    return true;
  }
  bool negated = false;
  bool deprecated = false;
  const ConfigField* field = findConfigFlag(flag, &deprecated, &negated);
  if (!field) return false;
  if (deprecated) {
    warnings_.push_back(flag + " is deprecated; use " + std::string(field->flag) + " (it still works)");
  }
  refuseRepeatedFlag(seen_, std::string(field->key), flag);
  if (field->type == FieldType::Switch) {
    field->access.setSwitch(config_, !negated);
    return true;
  }
  if (i + 1 >= args.size()) throw CliUsageError{"option " + flag + " needs a value"};
  const std::string& value = args[++i];
  if (field->key == "model") return true;  // already applied as the preset
  // "fp32," or "fp32,,bf16": an empty item is a typo, not a shorter list.
  if (field->type == FieldType::ModeList &&
      (value.empty() || value.front() == ',' || value.back() == ',' || value.find(",,") != std::string::npos)) {
    throw fieldError(*field, "an empty item in the list '" + value + "'");
  }
  if (auto error = setFieldText(config_, *field, value)) throw fieldError(*field, error->message);
  if (field->key == "clip.max-norm") clipGiven_ = true;
  if (field->key == "clip.order") clipOrderGiven_ = true;
  return true;
}

RunConfig RunConfigFlags::finish() {
  if (clipGiven_ && !clipOrderGiven_) config_.clipOrder = ClipOrder::AfterUnscale;
  if (!planFile_.empty()) {
    for (const char* key : {"plan.default", "plan.layers"}) {
      if (seen_.count(key)) {
        throw CliUsageError{"--plan-file and " + std::string(findConfigField(key)->flag) +
                            " both set the plan: give one"};
      }
    }
    std::vector<std::string> notes;
    std::string error;
    const auto plan = readPlanConfigFile(planFile_, config_.model, &notes, &error);
    if (!plan) throw CliUsageError{"--plan-file: " + error};
    for (const auto& note : notes) warnings_.push_back("--plan-file: " + note);
    config_.plan = *plan;
    if (std::find(config_.modes.begin(), config_.modes.end(), PrecisionMode::Plan) == config_.modes.end()) {
      config_.modes.push_back(PrecisionMode::Plan);
    }
  }
  const auto errors = validate(config_);
  if (!errors.empty()) {
    const ConfigError& first = errors.front();
    const ConfigField* field = findConfigField(first.field);
    if (!field) throw CliUsageError{"invalid configuration (" + first.field + "): " + first.message};
    throw fieldError(*field, first.message);
  }
  return config_;
}

namespace {

constexpr std::size_t kHelpColumn = 26;
constexpr std::size_t kHelpWidth = 100;

// "  --flag VALUE" then `text` from column kHelpColumn, wrapped at kHelpWidth.
void appendEntry(std::string& out, const std::string& left, const std::string& text) {
  std::string line = left;
  if (line.size() + 1 >= kHelpColumn) {
    out += line + "\n";
    line.clear();
  }
  line.resize(kHelpColumn, ' ');
  std::size_t start = 0;
  bool firstWord = true;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!firstWord && line.size() + 1 + word.size() > kHelpWidth) {
      out += line + "\n";
      line = std::string(kHelpColumn, ' ');
      firstWord = true;
    }
    line += (firstWord ? "" : " ") + word;
    firstWord = false;
    start = end + 1;
  }
  out += line + "\n";
}

std::string joined(const std::vector<std::string>& names, const char* separator) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : separator) + name;
  return text;
}

}  // namespace

std::string configFlagsHelp() {
  const RunConfig defaults = presetFor(ModelKind::TinyMLP);
  std::string out =
      "Configuration (defaults: the tiny-mlp preset; --model loads its own preset first, the other flags\n"
      "refine it):\n";
  for (const ConfigField& field : configFields()) {
    const bool isSwitch = field.type == FieldType::Switch;
    std::string left = "  ";
    if (isSwitch) {
      left += "--[no-]" + std::string(field.flag.substr(2));
    } else {
      left += std::string(field.flag) + " " + std::string(field.valueName);
    }
    std::string text(field.help);
    if (field.type == FieldType::Choice) text += ": " + joined(fieldChoices(field), " | ");
    if (field.type == FieldType::ModeList) text += ", comma-separated: " + joined(fieldChoices(field), ", ");
    if (field.key == "clip.max-norm") text += "; alone, it implies --clip-order after-unscale";
    const std::string bounds = fieldBoundsText(field);
    if (!bounds.empty()) text += ", in " + bounds + (field.unit.empty() ? "" : " " + std::string(field.unit));
    std::string value = fieldText(defaults, field);
    if (isSwitch) value = value == "true" ? "on" : "off";
    text += " (default " + value + ")";
    appendEntry(out, left, text);
    if (!field.oldFlag.empty()) {
      appendEntry(out, "  " + std::string(field.oldFlag), "deprecated spelling of " + std::string(field.flag));
    }
  }
  appendEntry(out, "  --plan-file FILE",
              "A precision plan (advise --plan FILE) as the plan lane: its target becomes --plan-default (auto: "
              "fp32), its layers --plan-layers; adds the plan mode to --modes");
  return out;
}

}  // namespace ampscope::cli
