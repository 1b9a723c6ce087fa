// libFuzzer target: the record codec's two readers, the JSON Lines record stream and the CSV. Each must
// answer every input with steps or an error naming where, never a crash. CSV rows it accepts must
// write back as rows it accepts again.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "ampscope/engine/record_codec.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  ampscope::RecordError streamError;
  if (!ampscope::readRecordStream(text, &streamError)) (void)streamError.text();

  ampscope::RecordError csvError;
  if (const auto steps = ampscope::readCsv(text, &csvError)) {
    std::string csv = ampscope::csvHeader();
    for (const auto& step : *steps) ampscope::appendCsvRow(csv, step);
    ampscope::RecordError again;
    const auto reread = ampscope::readCsv(csv, &again);
    if (!reread || reread->size() != steps->size()) std::abort();
  } else {
    (void)csvError.text();
  }
  return 0;
}
