// Reading typed fields out of a parsed JsonValue with errors that name the field's full path. Shared by
// the record codec and the session codec (internal to ampscope_data).
//
// A Path is a chain of keys and indices on the stack, turned into text ("records[3].modes[0].loss")
// only when an error names it: building the text for every field read made opening a long session
// several times slower.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "ampscope/engine/json.h"
#include "ampscope/engine/run_config.h"

namespace ampscope::data {

class Path {
 public:
  explicit Path(std::string_view root = {}) : root_(root) {}
  Path child(std::string_view key) const { return Path(this, key, -1); }
  Path item(int64_t index) const { return Path(this, {}, index); }
  std::string str() const;

 private:
  Path(const Path* parent, std::string_view key, int64_t index) : parent_(parent), key_(key), index_(index) {}
  const Path* parent_ = nullptr;
  std::string_view root_;
  std::string_view key_;
  int64_t index_ = -1;
};

// Thrown by the readers below and caught at the codec's entry points (never escapes the library).
struct FieldFailure {
  std::string path;
  std::string message;
};

[[noreturn]] void failAt(const Path& path, std::string message);

// The members of one object, checked against the keys it may have: an unknown key is an error naming it.
// `keys` must outlive the reader; get(i) is the member named keys[i] or nullptr.
class ObjectFields {
 public:
  ObjectFields(const JsonValue& value, const Path& path, const std::string_view* keys, std::size_t count);
  const JsonValue* get(std::size_t i) const { return found_[i]; }
  const JsonValue& required(std::size_t i) const;
  Path at(std::size_t i) const { return path_.child(keys_[i]); }

 private:
  const Path& path_;
  const std::string_view* keys_;
  std::vector<const JsonValue*> found_;
};

double readDouble(const JsonValue& v, const Path& path);  // a number or "nan", "inf", "-inf"
int64_t readInt(const JsonValue& v, const Path& path);    // an exact integer
int64_t readCount(const JsonValue& v, const Path& path);  // an exact integer >= 0
bool readBool(const JsonValue& v, const Path& path);
const std::string& readString(const JsonValue& v, const Path& path);
const std::vector<JsonValue>& readArray(const JsonValue& v, const Path& path);
PrecisionMode readMode(const JsonValue& v, const Path& path);

}  // namespace ampscope::data
