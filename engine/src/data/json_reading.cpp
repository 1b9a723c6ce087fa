#include "data/json_reading.h"

#include <limits>

namespace ampscope::data {

std::string Path::str() const {
  if (!parent_) return std::string(root_);
  std::string head = parent_->str();
  if (index_ >= 0) return head + '[' + std::to_string(index_) + ']';
  if (head.empty()) return std::string(key_);
  head += '.';
  head += key_;
  return head;
}

void failAt(const Path& path, std::string message) { throw FieldFailure{path.str(), std::move(message)}; }

ObjectFields::ObjectFields(const JsonValue& value, const Path& path, const std::string_view* keys,
                           std::size_t count)
    : path_(path), keys_(keys), found_(count, nullptr) {
  if (!value.isObject()) failAt(path, std::string("expected an object, found ") + JsonValue::typeName(value.type()));
  for (const auto& [name, member] : value.members()) {
    std::size_t i = 0;
    while (i < count && keys[i] != name) ++i;
    if (i == count) failAt(path.child(name), "unknown key");
    found_[i] = &member;
  }
}

const JsonValue& ObjectFields::required(std::size_t i) const {
  if (!found_[i]) failAt(at(i), "missing");
  return *found_[i];
}

double readDouble(const JsonValue& v, const Path& path) {
  if (v.isNumber()) return v.number();
  if (v.isString()) {
    const std::string& s = v.string();
    if (s == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (s == "inf") return std::numeric_limits<double>::infinity();
    if (s == "-inf") return -std::numeric_limits<double>::infinity();
  }
  failAt(path, "expected a number or \"nan\", \"inf\", \"-inf\"");
}

int64_t readInt(const JsonValue& v, const Path& path) {
  const auto value = v.integer();
  if (!value) failAt(path, "expected an integer");
  return *value;
}

int64_t readCount(const JsonValue& v, const Path& path) {
  const int64_t value = readInt(v, path);
  if (value < 0) failAt(path, "must not be negative");
  return value;
}

bool readBool(const JsonValue& v, const Path& path) {
  if (!v.isBool()) failAt(path, "expected true or false");
  return v.boolValue();
}

const std::string& readString(const JsonValue& v, const Path& path) {
  if (!v.isString()) failAt(path, "expected a string");
  return v.string();
}

const std::vector<JsonValue>& readArray(const JsonValue& v, const Path& path) {
  if (!v.isArray()) failAt(path, "expected an array");
  return v.items();
}

PrecisionMode readMode(const JsonValue& v, const Path& path) {
  const std::string& name = readString(v, path);
  const auto mode = parseMode(name);
  if (!mode) failAt(path, "unknown precision mode '" + name + "'");
  return *mode;
}

}  // namespace ampscope::data
