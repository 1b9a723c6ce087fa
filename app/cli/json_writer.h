// JsonWriter: a small streaming JSON writer for the CLI's `--json` / `--jsonl` output.
//
// Calls nest like the document: beginObject() / key() / value() / endObject(), beginArray() /
// value() / endArray(). Commas, colons and string escaping are handled here; a misuse (a value where
// a key is required, an unbalanced end) throws std::logic_error, since it is a programming error.
//
// Numbers: finite doubles are written in the shortest form that reads back to the same double
// (std::to_chars), so "1e-08" or "65504". JSON has no NaN or infinity; this writer writes them as the
// strings "nan", "inf" and "-inf" by default (NonFinite::AsString), or as null (NonFinite::AsNull) for
// consumers that want a pure number column. Either way a non-finite value is never dropped: in this
// app it is the lesson.
//
// Layout: Compact puts the whole document on one line (one record per line for JSON Lines; the
// caller writes the '\n'); Pretty indents by two spaces.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace ampscope::cli {

class JsonWriter {
 public:
  enum class NonFinite { AsString, AsNull };
  enum class Layout { Compact, Pretty };

  explicit JsonWriter(std::ostream& out, Layout layout = Layout::Compact,
                      NonFinite nonFinite = NonFinite::AsString)
      : out_(out), layout_(layout), nonFinite_(nonFinite) {}

  JsonWriter& beginObject() {
    beforeValue();
    out_ << '{';
    stack_.push_back({Scope::Object, true, false});
    return *this;
  }
  JsonWriter& endObject() { return endScope(Scope::Object, '}'); }

  JsonWriter& beginArray() {
    beforeValue();
    out_ << '[';
    stack_.push_back({Scope::Array, true, false});
    return *this;
  }
  JsonWriter& endArray() { return endScope(Scope::Array, ']'); }

  // The member name of the next value; only inside an object.
  JsonWriter& key(std::string_view name) {
    if (stack_.empty() || stack_.back().scope != Scope::Object || stack_.back().haveKey) {
      throw std::logic_error("JsonWriter: key() outside an object or twice in a row");
    }
    Level& level = stack_.back();
    if (!level.first) out_ << ',';
    level.first = false;
    newlineAndIndent();
    writeString(name);
    out_ << (layout_ == Layout::Pretty ? ": " : ":");
    level.haveKey = true;
    return *this;
  }

  JsonWriter& value(std::string_view text) {
    beforeValue();
    writeString(text);
    return *this;
  }
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag) {
    beforeValue();
    out_ << (flag ? "true" : "false");
    return *this;
  }
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(long number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(long long number) {
    beforeValue();
    out_ << number;
    return *this;
  }
  JsonWriter& value(unsigned number) { return value(static_cast<unsigned long long>(number)); }
  JsonWriter& value(unsigned long number) { return value(static_cast<unsigned long long>(number)); }
  JsonWriter& value(unsigned long long number) {
    beforeValue();
    out_ << number;
    return *this;
  }
  JsonWriter& value(float number) { return value(static_cast<double>(number)); }
  JsonWriter& value(double number) {
    beforeValue();
    if (std::isnan(number) || std::isinf(number)) {
      if (nonFinite_ == NonFinite::AsNull) {
        out_ << "null";
      } else {
        out_ << (std::isnan(number) ? "\"nan\"" : (number > 0 ? "\"inf\"" : "\"-inf\""));
      }
      return *this;
    }
    char buffer[64];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
    if (result.ec != std::errc()) throw std::logic_error("JsonWriter: cannot format a double");
    out_.write(buffer, result.ptr - buffer);
    return *this;
  }
  JsonWriter& null() {
    beforeValue();
    out_ << "null";
    return *this;
  }

  // Shorthands for one member.
  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }
  JsonWriter& nullField(std::string_view name) {
    key(name);
    return null();
  }

  // True once every object and array begun has been ended (and something was written).
  bool complete() const { return stack_.empty() && wroteTopLevel_; }

  // JSON string escaping: quotes, backslash and control characters; other bytes (UTF-8) pass through.
  static std::string escape(std::string_view text) {
    std::string result;
    result.reserve(text.size() + 2);
    for (const char c : text) {
      switch (c) {
        case '"': result += "\\\""; break;
        case '\\': result += "\\\\"; break;
        case '\b': result += "\\b"; break;
        case '\f': result += "\\f"; break;
        case '\n': result += "\\n"; break;
        case '\r': result += "\\r"; break;
        case '\t': result += "\\t"; break;
        default:
          if (static_cast<unsigned char>(c) < 0x20) {
            static const char kHex[] = "0123456789abcdef";
            const auto byte = static_cast<unsigned char>(c);
            result += "\\u00";
            result += kHex[byte >> 4];
            result += kHex[byte & 0xF];
          } else {
            result += c;
          }
      }
    }
    return result;
  }

 private:
  enum class Scope { Object, Array };
  struct Level {
    Scope scope;
    bool first;    // nothing written in this scope yet
    bool haveKey;  // objects: a key awaits its value
  };

  void beforeValue() {
    if (stack_.empty()) {
      if (wroteTopLevel_) throw std::logic_error("JsonWriter: a second top-level value");
      wroteTopLevel_ = true;
      return;
    }
    Level& level = stack_.back();
    if (level.scope == Scope::Object) {
      if (!level.haveKey) throw std::logic_error("JsonWriter: a value inside an object needs key()");
      level.haveKey = false;
      return;
    }
    if (!level.first) out_ << ',';
    level.first = false;
    newlineAndIndent();
  }

  JsonWriter& endScope(Scope scope, char closer) {
    if (stack_.empty() || stack_.back().scope != scope || stack_.back().haveKey) {
      throw std::logic_error("JsonWriter: unbalanced end of object/array");
    }
    const bool wasEmpty = stack_.back().first;
    stack_.pop_back();
    if (!wasEmpty) newlineAndIndent();
    out_ << closer;
    return *this;
  }

  void newlineAndIndent() {
    if (layout_ != Layout::Pretty) return;
    out_ << '\n';
    for (std::size_t i = 0; i < stack_.size(); ++i) out_ << "  ";
  }

  void writeString(std::string_view text) { out_ << '"' << escape(text) << '"'; }

  std::ostream& out_;
  Layout layout_;
  NonFinite nonFinite_;
  std::vector<Level> stack_;
  bool wroteTopLevel_ = false;
};

}  // namespace ampscope::cli
