// The one JSON writer and the one JSON reader of AmpScope (no Qt, no torch): sessions, lessons, the
// record stream and the CLI's --json output all go through them.
//
// JsonWriter appends to a std::string (the autosave and the record stream write many small records;
// an ostream per value cost several times more). Calls nest like the document: beginObject() / key() /
// value() / endObject(), beginArray() / value() / endArray(); commas, colons and escaping are handled
// here, and a misuse (a value where a key is needed, an unbalanced end) throws std::logic_error.
// Doubles go through numberText(); NaN and +-Inf become the strings "nan", "inf", "-inf" (JSON has no
// such numbers), or null with NonFinite::AsNull for consumers that want a pure number column.
//
// parseJson() reads a whole document into a JsonValue tree with hard limits (nesting depth, and the
// input size the caller already bounded), and reports the 1-based line and column of the first error.
// Object members keep their file order; a repeated key is an error (it would be silently ambiguous).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ampscope {

class JsonWriter {
 public:
  enum class NonFinite { AsString, AsNull };
  enum class Layout { Compact, Pretty };

  explicit JsonWriter(std::string& out, Layout layout = Layout::Compact,
                      NonFinite nonFinite = NonFinite::AsString)
      : out_(out), layout_(layout), nonFinite_(nonFinite) {}

  JsonWriter& beginObject();
  JsonWriter& endObject();
  JsonWriter& beginArray();
  JsonWriter& endArray();
  JsonWriter& key(std::string_view name);

  JsonWriter& value(std::string_view text);
  JsonWriter& value(const char* text) { return value(std::string_view(text)); }
  JsonWriter& value(const std::string& text) { return value(std::string_view(text)); }
  JsonWriter& value(bool flag);
  JsonWriter& value(int number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(long number) { return value(static_cast<long long>(number)); }
  JsonWriter& value(long long number);
  JsonWriter& value(unsigned number) { return value(static_cast<unsigned long long>(number)); }
  JsonWriter& value(unsigned long number) { return value(static_cast<unsigned long long>(number)); }
  JsonWriter& value(unsigned long long number);
  JsonWriter& value(float number) { return value(static_cast<double>(number)); }
  JsonWriter& value(double number);
  JsonWriter& null();
  // Text that is already a complete JSON value (a record encoded earlier); inserted as it is.
  JsonWriter& raw(std::string_view json);

  template <typename T>
  JsonWriter& field(std::string_view name, const T& v) {
    key(name);
    return value(v);
  }

  // True once every object and array begun has been ended (and something was written).
  bool complete() const { return stack_.empty() && wroteTopLevel_; }

  static void appendEscaped(std::string& out, std::string_view text);  // with the quotes
  static std::string escape(std::string_view text);                   // without the quotes

 private:
  enum class Scope { Object, Array };
  struct Level {
    Scope scope;
    bool first;
    bool haveKey;
  };
  void beforeValue();
  JsonWriter& endScope(Scope scope, char closer);
  void newlineAndIndent();

  std::string& out_;
  Layout layout_;
  NonFinite nonFinite_;
  std::vector<Level> stack_;
  bool wroteTopLevel_ = false;
};

class JsonValue {
 public:
  enum class Type { Null, Bool, Number, String, Array, Object };
  using Member = std::pair<std::string, JsonValue>;

  JsonValue() = default;
  static JsonValue makeBool(bool b);
  static JsonValue makeNumber(double number, std::string_view literal);
  static JsonValue makeString(std::string text);
  static JsonValue makeArray(std::vector<JsonValue> items);
  static JsonValue makeObject(std::vector<Member> members);

  Type type() const { return type_; }
  bool isNull() const { return type_ == Type::Null; }
  bool isBool() const { return type_ == Type::Bool; }
  bool isNumber() const { return type_ == Type::Number; }
  bool isString() const { return type_ == Type::String; }
  bool isArray() const { return type_ == Type::Array; }
  bool isObject() const { return type_ == Type::Object; }

  bool boolValue() const { return bool_; }
  double number() const { return number_; }
  // The number as an exact integer: written without fraction or exponent and within int64.
  std::optional<int64_t> integer() const;
  const std::string& string() const { return text_; }  // the string's text
  const std::vector<JsonValue>& items() const { return items_; }
  const std::vector<Member>& members() const { return members_; }
  const JsonValue* find(std::string_view key) const;  // nullptr when absent (objects only)

  static const char* typeName(Type type);  // "a number", "an object" ... for error messages

 private:
  Type type_ = Type::Null;
  bool bool_ = false;
  double number_ = 0;
  std::string text_;  // a string's text, or a number's literal
  std::vector<JsonValue> items_;
  std::vector<Member> members_;
};

struct JsonParseError {
  std::size_t offset = 0;
  int line = 1;
  int column = 1;
  std::string message;
  bool stopped = false;  // not an error in the text: the item sink below asked to stop
  std::string where() const;  // "line L, column C"
};

struct JsonLimits {
  int maxDepth = 64;
};

// The whole text must be one JSON value (blanks around it allowed).
std::optional<JsonValue> parseJson(std::string_view text, JsonParseError* error, JsonLimits limits = {});

// What a JsonItemSink wants next: the next item, no more items (the rest of the text is still checked,
// so a syntax error after them is still reported), or nothing more at all (parsing stops: the result is
// nullopt with `stopped` set).
enum class JsonSinkAnswer { Next, Ignore, Stop };
// `item` is the index-th item; `end` is the offset in the text just past it.
using JsonItemSink = std::function<JsonSinkAnswer(JsonValue&& item, std::size_t index, std::size_t end)>;

// parseJson, except that the items of the array that is the top-level object's member `member` are not
// kept: each goes to `sink` as soon as it is parsed, and the member is an empty array in the result. A long
// document's bulk then never lives in the tree all at once. The checks and errors are parseJson's.
std::optional<JsonValue> parseJsonStreamingMember(std::string_view text, JsonParseError* error,
                                                  std::string_view member, const JsonItemSink& sink,
                                                  JsonLimits limits = {});

// The same for several members of the top-level object at once (a record line's "tensors",
// "rounding-points", ...): `sink` also gets which of `members` the item belongs to. An empty name in
// `members` matches nothing.
using JsonMemberItemSink =
    std::function<JsonSinkAnswer(std::size_t member, JsonValue&& item, std::size_t index, std::size_t end)>;
std::optional<JsonValue> parseJsonStreamingMembers(std::string_view text, JsonParseError* error,
                                                   const std::vector<std::string_view>& members,
                                                   const JsonMemberItemSink& sink, JsonLimits limits = {});

}  // namespace ampscope
