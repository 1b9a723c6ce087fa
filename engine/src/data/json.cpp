#include "ampscope/engine/json.h"

#include <charconv>
#include <cmath>
#include <system_error>

#include "ampscope/engine/number_text.h"

namespace ampscope {

// ---- JsonWriter ----

JsonWriter& JsonWriter::beginObject() {
  beforeValue();
  out_ += '{';
  stack_.push_back({Scope::Object, true, false});
  return *this;
}

JsonWriter& JsonWriter::endObject() { return endScope(Scope::Object, '}'); }

JsonWriter& JsonWriter::beginArray() {
  beforeValue();
  out_ += '[';
  stack_.push_back({Scope::Array, true, false});
  return *this;
}

JsonWriter& JsonWriter::endArray() { return endScope(Scope::Array, ']'); }

JsonWriter& JsonWriter::key(std::string_view name) {
  if (stack_.empty() || stack_.back().scope != Scope::Object || stack_.back().haveKey) {
    throw std::logic_error("JsonWriter: key() outside an object or twice in a row");
  }
  Level& level = stack_.back();
  if (!level.first) out_ += ',';
  level.first = false;
  newlineAndIndent();
  appendEscaped(out_, name);
  out_ += layout_ == Layout::Pretty ? ": " : ":";
  level.haveKey = true;
  return *this;
}

JsonWriter& JsonWriter::value(std::string_view text) {
  beforeValue();
  appendEscaped(out_, text);
  return *this;
}

JsonWriter& JsonWriter::value(bool flag) {
  beforeValue();
  out_ += flag ? "true" : "false";
  return *this;
}

JsonWriter& JsonWriter::value(long long number) {
  beforeValue();
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
  out_.append(buffer, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(unsigned long long number) {
  beforeValue();
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, number);
  out_.append(buffer, result.ptr);
  return *this;
}

JsonWriter& JsonWriter::value(double number) {
  beforeValue();
  if (!std::isfinite(number) && nonFinite_ == NonFinite::AsNull) {
    out_ += "null";
  } else if (!std::isfinite(number)) {
    out_ += '"';
    appendNumberText(out_, number);
    out_ += '"';
  } else {
    appendNumberText(out_, number);
  }
  return *this;
}

JsonWriter& JsonWriter::null() {
  beforeValue();
  out_ += "null";
  return *this;
}

JsonWriter& JsonWriter::raw(std::string_view json) {
  beforeValue();
  out_ += json;
  return *this;
}

void JsonWriter::appendEscaped(std::string& out, std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          const auto byte = static_cast<unsigned char>(c);
          out += "\\u00";
          out += kHex[byte >> 4];
          out += kHex[byte & 0xF];
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

std::string JsonWriter::escape(std::string_view text) {
  std::string quoted;
  appendEscaped(quoted, text);
  return quoted.substr(1, quoted.size() - 2);
}

void JsonWriter::beforeValue() {
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
  if (!level.first) out_ += ',';
  level.first = false;
  newlineAndIndent();
}

JsonWriter& JsonWriter::endScope(Scope scope, char closer) {
  if (stack_.empty() || stack_.back().scope != scope || stack_.back().haveKey) {
    throw std::logic_error("JsonWriter: unbalanced end of object/array");
  }
  const bool wasEmpty = stack_.back().first;
  stack_.pop_back();
  if (!wasEmpty) newlineAndIndent();
  out_ += closer;
  return *this;
}

void JsonWriter::newlineAndIndent() {
  if (layout_ != Layout::Pretty) return;
  out_ += '\n';
  out_.append(2 * stack_.size(), ' ');
}

// ---- JsonValue ----

JsonValue JsonValue::makeBool(bool b) {
  JsonValue v;
  v.type_ = Type::Bool;
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::makeNumber(double number, std::string_view literal) {
  JsonValue v;
  v.type_ = Type::Number;
  v.number_ = number;
  v.text_ = std::string(literal);
  return v;
}

JsonValue JsonValue::makeString(std::string text) {
  JsonValue v;
  v.type_ = Type::String;
  v.text_ = std::move(text);
  return v;
}

JsonValue JsonValue::makeArray(std::vector<JsonValue> items) {
  JsonValue v;
  v.type_ = Type::Array;
  v.items_ = std::move(items);
  return v;
}

JsonValue JsonValue::makeObject(std::vector<Member> members) {
  JsonValue v;
  v.type_ = Type::Object;
  v.members_ = std::move(members);
  return v;
}

std::optional<int64_t> JsonValue::integer() const {
  if (type_ != Type::Number) return std::nullopt;
  int64_t value = 0;
  const char* begin = text_.data();
  const char* end = begin + text_.size();
  const auto result = std::from_chars(begin, end, value);
  if (result.ec != std::errc() || result.ptr != end) return std::nullopt;  // fraction, exponent, range
  return value;
}

const JsonValue* JsonValue::find(std::string_view key) const {
  for (const auto& member : members_) {
    if (member.first == key) return &member.second;
  }
  return nullptr;
}

const char* JsonValue::typeName(Type type) {
  switch (type) {
    case Type::Null: return "null";
    case Type::Bool: return "true or false";
    case Type::Number: return "a number";
    case Type::String: return "a string";
    case Type::Array: return "an array";
    case Type::Object: return "an object";
  }
  return "a value";
}

std::string JsonParseError::where() const {
  return "line " + std::to_string(line) + ", column " + std::to_string(column);
}

// ---- parser ----

namespace {

struct ParseFailure {
  std::size_t offset;
  std::string message;
};

// The sink asked to stop; not a failure of the text.
struct ParseStopped {
  std::size_t offset;
};

class Parser {
 public:
  Parser(std::string_view text, JsonLimits limits) : text_(text), limits_(limits) {}
  Parser(std::string_view text, JsonLimits limits, const std::vector<std::string_view>* streamMembers,
         const JsonMemberItemSink* sink)
      : text_(text), limits_(limits), streamMembers_(streamMembers), sink_(sink) {}

  JsonValue document() {
    skipBlanks();
    JsonValue v = value(0);
    skipBlanks();
    if (pos_ != text_.size()) fail("unexpected text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(std::string message) const { throw ParseFailure{pos_, std::move(message)}; }

  void skipBlanks() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
      ++pos_;
    }
  }

  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  JsonValue value(int depth) {
    if (depth > limits_.maxDepth) fail("nested deeper than " + std::to_string(limits_.maxDepth) + " levels");
    if (pos_ >= text_.size()) fail("unexpected end of text (the file may be cut short)");
    const char c = text_[pos_];
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return JsonValue::makeString(string());
    if (c == '-' || (c >= '0' && c <= '9')) return number();
    if (literal("true")) return JsonValue::makeBool(true);
    if (literal("false")) return JsonValue::makeBool(false);
    if (literal("null")) return JsonValue();
    fail("unexpected character");
  }

  JsonValue object(int depth) {
    ++pos_;
    std::vector<JsonValue::Member> members;
    skipBlanks();
    if (pos_ < text_.size() && text_[pos_] == '}') {
      ++pos_;
      return JsonValue::makeObject(std::move(members));
    }
    for (;;) {
      skipBlanks();
      if (pos_ >= text_.size() || text_[pos_] != '"') fail("expected a member name in quotes");
      const std::size_t keyAt = pos_;
      std::string key = string();
      for (const auto& m : members) {
        if (m.first == key) {
          pos_ = keyAt;
          fail("member \"" + key + "\" appears twice");
        }
      }
      skipBlanks();
      if (pos_ >= text_.size() || text_[pos_] != ':') fail("expected ':' after a member name");
      ++pos_;
      skipBlanks();
      const std::size_t streamed = depth == 0 && sink_ && pos_ < text_.size() && text_[pos_] == '['
                                       ? streamedMember(key)
                                       : kNotStreamed;
      JsonValue v = streamed != kNotStreamed ? streamedArray(depth + 1, streamed) : value(depth + 1);
      members.emplace_back(std::move(key), std::move(v));
      skipBlanks();
      if (pos_ >= text_.size()) fail("unexpected end of text inside an object (the file may be cut short)");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == '}') {
        ++pos_;
        return JsonValue::makeObject(std::move(members));
      }
      fail("expected ',' or '}' in an object");
    }
  }

  JsonValue array(int depth) {
    ++pos_;
    std::vector<JsonValue> items;
    skipBlanks();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return JsonValue::makeArray(std::move(items));
    }
    for (;;) {
      skipBlanks();
      items.push_back(value(depth + 1));
      skipBlanks();
      if (pos_ >= text_.size()) fail("unexpected end of text inside an array (the file may be cut short)");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        return JsonValue::makeArray(std::move(items));
      }
      fail("expected ',' or ']' in an array");
    }
  }

  static constexpr std::size_t kNotStreamed = static_cast<std::size_t>(-1);

  // Which of the streamed members `key` is (kNotStreamed: none).
  std::size_t streamedMember(const std::string& key) const {
    for (std::size_t i = 0; i < streamMembers_->size(); ++i)
      if (!(*streamMembers_)[i].empty() && (*streamMembers_)[i] == key) return i;
    return kNotStreamed;
  }

  // array(), with each item handed to the sink instead of kept.
  JsonValue streamedArray(int depth, std::size_t member) {
    if (depth > limits_.maxDepth) fail("nested deeper than " + std::to_string(limits_.maxDepth) + " levels");
    ++pos_;
    skipBlanks();
    if (pos_ < text_.size() && text_[pos_] == ']') {
      ++pos_;
      return JsonValue::makeArray({});
    }
    bool delivering = true;
    for (std::size_t index = 0;; ++index) {
      skipBlanks();
      JsonValue item = value(depth + 1);
      if (delivering) {
        switch ((*sink_)(member, std::move(item), index, pos_)) {
          case JsonSinkAnswer::Next: break;
          case JsonSinkAnswer::Ignore: delivering = false; break;
          case JsonSinkAnswer::Stop: throw ParseStopped{pos_};
        }
      }
      skipBlanks();
      if (pos_ >= text_.size()) fail("unexpected end of text inside an array (the file may be cut short)");
      if (text_[pos_] == ',') {
        ++pos_;
        continue;
      }
      if (text_[pos_] == ']') {
        ++pos_;
        return JsonValue::makeArray({});
      }
      fail("expected ',' or ']' in an array");
    }
  }

  static int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }

  unsigned hex4() {
    if (pos_ + 4 > text_.size()) fail("a \\u escape needs four hex digits");
    unsigned code = 0;
    for (int i = 0; i < 4; ++i) {
      const int d = hexDigit(text_[pos_ + static_cast<std::size_t>(i)]);
      if (d < 0) fail("a \\u escape needs four hex digits");
      code = code * 16 + static_cast<unsigned>(d);
    }
    pos_ += 4;
    return code;
  }

  static void appendUtf8(std::string& out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::string string() {
    ++pos_;  // the opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) fail("unexpected end of text inside a string (the file may be cut short)");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character inside a string");
      if (c != '\\') {
        out += c;
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) fail("unexpected end of text inside a string");
      const char e = text_[pos_++];
      switch (e) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          unsigned code = hex4();
          if (code >= 0xD800 && code <= 0xDBFF) {
            if (!literal("\\u")) fail("an unpaired UTF-16 surrogate");
            const unsigned low = hex4();
            if (low < 0xDC00 || low > 0xDFFF) fail("an unpaired UTF-16 surrogate");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            fail("an unpaired UTF-16 surrogate");
          }
          appendUtf8(out, code);
          break;
        }
        default: --pos_; fail("an unknown escape in a string");
      }
    }
  }

  JsonValue number() {
    const std::size_t start = pos_;
    auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    if (text_[pos_] == '-') ++pos_;
    if (pos_ < text_.size() && text_[pos_] == '0') {
      ++pos_;
    } else if (digits() == 0) {
      fail("a number needs digits");
    }
    if (pos_ < text_.size() && text_[pos_] == '.') {
      ++pos_;
      if (digits() == 0) fail("a number needs digits after '.'");
    }
    if (pos_ < text_.size() && (text_[pos_] == 'e' || text_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < text_.size() && (text_[pos_] == '+' || text_[pos_] == '-')) ++pos_;
      if (digits() == 0) fail("a number needs digits in its exponent");
    }
    const std::string_view literal = text_.substr(start, pos_ - start);
    const std::optional<double> value = parseNumberText(literal);
    if (!value) {
      pos_ = start;
      fail("not a number");
    }
    return JsonValue::makeNumber(*value, literal);
  }

  std::string_view text_;
  JsonLimits limits_;
  const std::vector<std::string_view>* streamMembers_ = nullptr;
  const JsonMemberItemSink* sink_ = nullptr;
  std::size_t pos_ = 0;
};

std::optional<JsonValue> parseWith(Parser parser, std::string_view text, JsonParseError* error) {
  try {
    return parser.document();
  } catch (const ParseStopped& stopped) {
    if (error) {
      *error = JsonParseError{};
      error->offset = stopped.offset;
      error->stopped = true;
      error->message = "stopped before the end of the text";
    }
    return std::nullopt;
  } catch (const ParseFailure& failure) {
    if (error) {
      error->stopped = false;
      error->offset = failure.offset;
      error->line = 1;
      error->column = 1;
      for (std::size_t i = 0; i < failure.offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
          ++error->line;
          error->column = 1;
        } else {
          ++error->column;
        }
      }
      error->message = failure.message;
    }
    return std::nullopt;
  }
}

}  // namespace

std::optional<JsonValue> parseJson(std::string_view text, JsonParseError* error, JsonLimits limits) {
  return parseWith(Parser(text, limits), text, error);
}

std::optional<JsonValue> parseJsonStreamingMember(std::string_view text, JsonParseError* error,
                                                  std::string_view member, const JsonItemSink& sink,
                                                  JsonLimits limits) {
  const std::vector<std::string_view> members{member};
  const JsonMemberItemSink each = [&sink](std::size_t, JsonValue&& item, std::size_t index, std::size_t end) {
    return sink(std::move(item), index, end);
  };
  return parseWith(Parser(text, limits, &members, &each), text, error);
}

std::optional<JsonValue> parseJsonStreamingMembers(std::string_view text, JsonParseError* error,
                                                   const std::vector<std::string_view>& members,
                                                   const JsonMemberItemSink& sink, JsonLimits limits) {
  return parseWith(Parser(text, limits, &members, &sink), text, error);
}

}  // namespace ampscope
