// Reading and replacing AmpScope's small cache files (precision-paths.json, kernel-checks.json). A cache
// only saves time at the next start, so nothing here is an error for the run: a problem comes back as
// text for the caller to show.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "ampscope/engine/json.h"

namespace ampscope::detail {

// The file's text; nullopt when it is absent (problem empty) or cannot be used (problem says why: larger
// than maxBytes, unreadable).
std::optional<std::string> readCacheFile(const std::string& file, std::uintmax_t maxBytes, std::string* problem);

// The "machines" array of a cache file {"format":<format>,"version":<version>,"machines":[...]}; nullopt
// when the file is absent (problem empty) or is not such a file (problem says why: its size, a JSON
// error with its place, another format or version).
std::optional<JsonValue> readCacheMachines(const std::string& file, std::uintmax_t maxBytes, const char* format,
                                           int64_t version, std::string* problem);

// Writes `text` beside `file` and renames it over it, creating the folder, so a reader never sees half a
// file. Empty on success, else why not.
std::string replaceCacheFile(const std::string& file, const std::string& text);

}  // namespace ampscope::detail
