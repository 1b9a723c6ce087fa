#include "ampscope/engine/lesson_id.h"

namespace ampscope {

std::optional<std::string> lessonIdProblem(std::string_view id) {
  if (id.empty()) return std::string("a lesson id cannot be empty");
  if (id.size() > kMaxLessonIdLength) {
    return "a lesson id has at most " + std::to_string(kMaxLessonIdLength) + " characters (got " +
           std::to_string(id.size()) + ")";
  }
  for (const char c : id) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
      return std::string("a lesson id uses lower-case ASCII letters, digits and '-' only");
    }
  }
  return std::nullopt;
}

}  // namespace ampscope
