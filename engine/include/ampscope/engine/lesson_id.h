// What a lesson's id may be: the lesson file's base name, and what sessions and `--lesson` refer to it by.
// One rule for the lesson parser and the session codec, so a session names only what a lesson can be.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ampscope {

inline constexpr std::size_t kMaxLessonIdLength = 64;

// Empty when `id` is 1..kMaxLessonIdLength lower-case ASCII letters, digits and '-'; else why not.
std::optional<std::string> lessonIdProblem(std::string_view id);

}  // namespace ampscope
