// libFuzzer target: the RunConfig schema. The input is split at the first NUL byte: before it, a JSON
// document read by readConfigJson() (as a lesson, then as a session with every field required); after
// it, "flag\ttext" lines given to setFieldText(), as the CLI does. A config the schema accepted must
// check clean field by field, and write as JSON that reads back (unless its batch is too large for the
// model's memory, the one bound across fields, which validate() then names).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ampscope/engine/config_schema.h"
#include "ampscope/engine/json.h"

namespace {

// The batch's memory bound depends on the model and the modes: setFieldText() judges one field, so a
// batch it accepted can fail validate() once another field says the model is larger. Setting a field
// is order-free; the finished config is what validate() judges.
bool batchTooLarge(const ampscope::RunConfig& config) {
  return ampscope::stepMemoryEstimate(config).bytes > static_cast<double>(ampscope::kStepMemoryLimitBytes);
}

void checkAccepted(const ampscope::RunConfig& config) {
  if (batchTooLarge(config)) {
    const auto errors = ampscope::validate(config);
    if (errors.empty() || errors.front().field != "batch") std::abort();
    return;
  }
  for (const auto& field : ampscope::configFields()) {
    if (ampscope::checkField(config, field)) std::abort();
  }
  std::string text;
  ampscope::JsonWriter out(text);
  ampscope::writeConfigJson(out, config);
  ampscope::JsonParseError parseError;
  const auto written = ampscope::parseJson(text, &parseError);
  if (!written) std::abort();
  ampscope::RunConfig reread;
  if (!ampscope::readConfigJson(*written, reread, true).empty()) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const auto split = input.find('\0');
  const std::string_view json = input.substr(0, split);
  std::string_view flags = split == std::string_view::npos ? std::string_view() : input.substr(split + 1);

  ampscope::JsonParseError parseError;
  if (const auto value = ampscope::parseJson(json, &parseError)) {
    ampscope::RunConfig lesson;
    (void)ampscope::readConfigJson(*value, lesson, false, "config.");
    ampscope::RunConfig session;
    (void)ampscope::readConfigJson(*value, session, true);
  }

  ampscope::RunConfig config;
  while (!flags.empty()) {
    const auto end = flags.find('\n');
    const std::string_view line = flags.substr(0, end);
    flags = end == std::string_view::npos ? std::string_view() : flags.substr(end + 1);
    const auto tab = line.find('\t');
    const std::string_view flag = line.substr(0, tab);
    const std::string_view text = tab == std::string_view::npos ? std::string_view() : line.substr(tab + 1);
    if (const auto* field = ampscope::findConfigFlag(flag)) {
      const ampscope::RunConfig before = config;
      if (ampscope::setFieldText(config, *field, text)) {
        // A refused value leaves the config as it was.
        if (ampscope::fieldText(config, *field) != ampscope::fieldText(before, *field)) std::abort();
      } else if (ampscope::checkField(config, *field) && !(field->key == "batch" && batchTooLarge(config))) {
        std::abort();
      }
    }
  }
  checkAccepted(config);
  return 0;
}
