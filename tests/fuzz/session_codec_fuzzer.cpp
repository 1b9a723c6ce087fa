// libFuzzer target: the session codec. A document decodeSession() accepts must encode to bytes that
// decode again to the same bytes (the codec's one-schema promise: read what it writes).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ampscope/engine/session_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ampscope::SessionError error;
  const auto session = ampscope::decodeSession(text, &error);
  if (!session) {
    (void)error.text();
    return 0;
  }
  const std::string encoded = ampscope::encodeSession(*session);
  ampscope::SessionError again;
  const auto reread = ampscope::decodeSession(encoded, &again);
  if (!reread || ampscope::encodeSession(*reread) != encoded) std::abort();
  return 0;
}
