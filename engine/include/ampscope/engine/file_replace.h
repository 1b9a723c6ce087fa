// Writing a user's output file whole or not at all: the text goes to `path`.tmp, which is renamed over
// `path` once complete (an existing file is replaced: whoever calls asks first). False when any part of
// the write failed; the temporary file is then removed and `path` is left as it was.
#pragma once

#include <string>

namespace ampscope {

bool replaceFileWithText(const std::string& path, const std::string& text);

}  // namespace ampscope
