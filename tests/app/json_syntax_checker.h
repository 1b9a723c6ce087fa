// JsonSyntaxChecker: says whether a text is one well-formed JSON value (RFC 8259 grammar), and where
// it is not. For tests of `--json` / `--jsonl` output; it checks syntax only and builds nothing.
#pragma once

#include <cctype>
#include <cstddef>
#include <string>
#include <string_view>

namespace ampscope::testing {

class JsonSyntaxChecker {
 public:
  // True when `text` is exactly one JSON value, surrounding whitespace allowed. Otherwise false and
  // error() says what was expected where.
  bool check(std::string_view text) {
    text_ = text;
    pos_ = 0;
    error_.clear();
    skipSpace();
    if (!value(0)) return false;
    skipSpace();
    if (pos_ != text_.size()) return fail("trailing characters");
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  static constexpr int kMaxDepth = 256;  // deeper is surely a bug in the writer

  bool fail(const std::string& what) {
    if (error_.empty()) error_ = what + " at offset " + std::to_string(pos_);
    return false;
  }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek() const { return atEnd() ? '\0' : text_[pos_]; }
  void skipSpace() {
    while (!atEnd() && (peek() == ' ' || peek() == '\t' || peek() == '\n' || peek() == '\r')) ++pos_;
  }
  bool literal(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return fail("expected " + std::string(word));
    pos_ += word.size();
    return true;
  }
  bool digits() {
    if (!std::isdigit(static_cast<unsigned char>(peek()))) return fail("expected a digit");
    while (std::isdigit(static_cast<unsigned char>(peek()))) ++pos_;
    return true;
  }
  bool number() {
    if (peek() == '-') ++pos_;
    if (peek() == '0') {
      ++pos_;
    } else if (!digits()) {
      return false;
    }
    if (peek() == '.') {
      ++pos_;
      if (!digits()) return false;
    }
    if (peek() == 'e' || peek() == 'E') {
      ++pos_;
      if (peek() == '+' || peek() == '-') ++pos_;
      if (!digits()) return false;
    }
    return true;
  }
  bool string() {
    ++pos_;  // opening quote
    while (!atEnd()) {
      const char c = text_[pos_++];
      if (c == '"') return true;
      if (static_cast<unsigned char>(c) < 0x20) return fail("control character in a string");
      if (c == '\\') {
        const char e = peek();
        ++pos_;
        if (e == 'u') {
          for (int i = 0; i < 4; ++i, ++pos_) {
            if (!std::isxdigit(static_cast<unsigned char>(peek()))) return fail("bad \\u escape");
          }
        } else if (std::string_view("\"\\/bfnrt").find(e) == std::string_view::npos) {
          return fail("bad escape");
        }
      }
    }
    return fail("unterminated string");
  }
  bool container(int depth, char close, bool isObject) {
    ++pos_;  // opening bracket
    skipSpace();
    if (peek() == close) {
      ++pos_;
      return true;
    }
    while (true) {
      skipSpace();
      if (isObject) {
        if (peek() != '"') return fail("expected a member name");
        if (!string()) return false;
        skipSpace();
        if (peek() != ':') return fail("expected ':'");
        ++pos_;
        skipSpace();
      }
      if (!value(depth + 1)) return false;
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == close) {
        ++pos_;
        return true;
      }
      return fail(std::string("expected ',' or '") + close + "'");
    }
  }
  bool value(int depth) {
    if (depth > kMaxDepth) return fail("nesting too deep");
    switch (peek()) {
      case '{': return container(depth, '}', true);
      case '[': return container(depth, ']', false);
      case '"': return string();
      case 't': return literal("true");
      case 'f': return literal("false");
      case 'n': return literal("null");
      default:
        if (peek() == '-' || std::isdigit(static_cast<unsigned char>(peek()))) return number();
        return fail("expected a value");
    }
  }

  std::string_view text_;
  std::size_t pos_ = 0;
  std::string error_;
};

}  // namespace ampscope::testing
