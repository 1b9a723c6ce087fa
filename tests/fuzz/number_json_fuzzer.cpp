// libFuzzer target: the number parser and the JSON reader. A number that parses must come back from
// numberText() as the same double (the round trip numberText promises); the JSON reader must answer
// every input with a value or an error, never a crash.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string_view>

#include "ampscope/engine/json.h"
#include "ampscope/engine/number_text.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  if (const auto number = ampscope::parseNumberText(text)) {
    const auto again = ampscope::parseNumberText(ampscope::numberText(*number));
    const bool same = again && (std::isnan(*number) ? std::isnan(*again)
                                                    : std::memcmp(&*again, &*number, sizeof(double)) == 0);
    if (!same) std::abort();
  }

  ampscope::JsonParseError error;
  const auto value = ampscope::parseJson(text, &error);
  if (!value && error.message.empty()) std::abort();  // a refusal always says why
  return 0;
}
