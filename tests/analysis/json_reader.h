#pragma once
// A small strict JSON reader for tests (RFC 8259: objects, arrays, strings with escapes, numbers, true,
// false, null); throws std::runtime_error with the offset of the first error. Not for production input.
#include <cstddef>
#include <cstdlib>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace test_json {

struct Value {
  enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
  bool boolean = false;
  double number = 0;
  std::string string;
  std::vector<Value> array;
  std::map<std::string, Value> object;

  const Value& at(const std::string& key) const {
    const auto it = object.find(key);
    if (kind != Kind::object || it == object.end()) throw std::runtime_error("no key " + key);
    return it->second;
  }
  bool has(const std::string& key) const { return kind == Kind::object && object.count(key) > 0; }
};

class Reader {
 public:
  explicit Reader(const std::string& text) : s_(text) {}

  Value document() {
    Value v = value();
    space();
    if (i_ != s_.size()) fail("trailing text");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("JSON: " + what + " at offset " + std::to_string(i_));
  }
  void space() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  bool take(char c) {
    space();
    if (i_ < s_.size() && s_[i_] == c) {
      ++i_;
      return true;
    }
    return false;
  }
  void expect(char c) {
    if (!take(c)) fail(std::string("expected '") + c + "'");
  }
  bool word(const char* w) {
    const std::string text(w);
    if (s_.compare(i_, text.size(), text) != 0) return false;
    i_ += text.size();
    return true;
  }

  Value value() {
    space();
    if (i_ >= s_.size()) fail("unexpected end");
    Value v;
    const char c = s_[i_];
    if (c == '{') {
      ++i_;
      v.kind = Value::Kind::object;
      if (take('}')) return v;
      do {
        space();
        const std::string key = string();
        expect(':');
        if (!v.object.emplace(key, value()).second) fail("duplicate key " + key);
      } while (take(','));
      expect('}');
    } else if (c == '[') {
      ++i_;
      v.kind = Value::Kind::array;
      if (take(']')) return v;
      do v.array.push_back(value());
      while (take(','));
      expect(']');
    } else if (c == '"') {
      v.kind = Value::Kind::string;
      v.string = string();
    } else if (word("true")) {
      v.kind = Value::Kind::boolean, v.boolean = true;
    } else if (word("false")) {
      v.kind = Value::Kind::boolean;
    } else if (word("null")) {
    } else {
      v.kind = Value::Kind::number;
      v.number = number();
    }
    return v;
  }

  std::string string() {
    if (i_ >= s_.size() || s_[i_] != '"') fail("expected a string");
    ++i_;
    std::string out;
    while (i_ < s_.size() && s_[i_] != '"') {
      const char c = s_[i_++];
      if (static_cast<unsigned char>(c) < 0x20) fail("control character in a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (i_ >= s_.size()) fail("unfinished escape");
      const char e = s_[i_++];
      switch (e) {
        case '"': case '\\': case '/': out += e; break;
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          if (i_ + 4 > s_.size()) fail("short \\u escape");
          const unsigned code = static_cast<unsigned>(std::stoul(s_.substr(i_, 4), nullptr, 16));
          i_ += 4;
          if (code >= 0x80) fail("non-ASCII \\u escape (not needed here)");
          out += static_cast<char>(code);
          break;
        }
        default: fail("bad escape");
      }
    }
    if (i_ >= s_.size()) fail("unterminated string");
    ++i_;
    return out;
  }

  double number() {
    const std::size_t start = i_;
    if (i_ < s_.size() && s_[i_] == '-') ++i_;
    auto digits = [&] {
      const std::size_t from = i_;
      while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') ++i_;
      if (i_ == from) fail("expected digits");
    };
    digits();
    if (i_ < s_.size() && s_[i_] == '.') ++i_, digits();
    if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
      ++i_;
      if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-')) ++i_;
      digits();
    }
    return std::strtod(s_.substr(start, i_ - start).c_str(), nullptr);
  }

  const std::string& s_;
  std::size_t i_ = 0;
};

inline Value parse(const std::string& text) { return Reader(text).document(); }

}  // namespace test_json
