#include "xml_reader.h"

#include <cctype>

#include "configs/config_error.h"

namespace hpcsim::xml {

const Attribute* Element::find(const std::string& n) const {
  for (const Attribute& a : attributes)
    if (a.name == n) return &a;
  return nullptr;
}

namespace {

constexpr int kMaxDepth = 64;

class Reader {
 public:
  Reader(const std::string& text, const std::string& file) : s_(text), file_(file) {}

  Element document() {
    skip_misc();
    if (at_end() || s_[i_] != '<') fail("expected the root element");
    Element root = element(0);
    skip_misc();
    if (!at_end()) fail("content after the root element");
    return root;
  }

 private:
  bool at_end() const { return i_ >= s_.size(); }
  SourceLoc here() const { return SourceLoc{file_, line_, col_}; }
  [[noreturn]] void fail(const std::string& message) const { throw ConfigError(here(), message); }
  void advance() {
    if (s_[i_] == '\n') {
      ++line_;
      col_ = 1;
    } else {
      ++col_;
    }
    ++i_;
  }
  bool starts(const char* p) const { return s_.compare(i_, std::char_traits<char>::length(p), p) == 0; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(s_[i_]))) advance();
  }
  void skip_until(const char* end, const char* what) {
    const SourceLoc start = here();
    while (!at_end() && !starts(end)) advance();
    if (at_end()) throw ConfigError(start, std::string("unterminated ") + what);
    for (std::size_t k = 0; end[k]; ++k) advance();
  }
  // Whitespace, comments, <?...?> and <!DOCTYPE ...> between elements; text is skipped too.
  void skip_misc() {
    for (;;) {
      while (!at_end() && s_[i_] != '<') advance();
      if (at_end()) return;
      if (starts("<!--")) {
        skip_until("-->", "comment");
      } else if (starts("<?")) {
        skip_until("?>", "processing instruction");
      } else if (starts("<!")) {
        skip_until(">", "declaration");
      } else {
        return;
      }
    }
  }
  std::string name() {
    const std::size_t b = i_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' || s_[i_] == '-' ||
                         s_[i_] == ':' || s_[i_] == '.'))
      advance();
    if (i_ == b) fail("expected a name");
    return s_.substr(b, i_ - b);
  }
  std::string value() {
    if (at_end() || (s_[i_] != '"' && s_[i_] != '\'')) fail("expected a quoted attribute value");
    const char q = s_[i_];
    const SourceLoc start = here();
    advance();
    std::string out;
    while (!at_end() && s_[i_] != q) {
      if (s_[i_] == '<') fail("'<' inside an attribute value");
      if (s_[i_] == '&') {
        static const char* names[] = {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"};
        static const char chars[] = {'&', '<', '>', '"', '\''};
        bool ok = false;
        for (int k = 0; k < 5; ++k)
          if (starts(names[k])) {
            out += chars[k];
            for (std::size_t n = 0; names[k][n]; ++n) advance();
            ok = true;
            break;
          }
        if (!ok) fail("unknown entity in an attribute value");
        continue;
      }
      out += s_[i_];
      advance();
    }
    if (at_end()) throw ConfigError(start, "unterminated attribute value");
    advance();
    return out;
  }
  Element element(int depth) {
    if (depth >= kMaxDepth) fail("elements nest deeper than 64");
    Element e;
    e.where = here();
    advance();  // '<'
    e.name = name();
    for (;;) {
      skip_space();
      if (at_end()) throw ConfigError(e.where, "unterminated <" + e.name + "> tag");
      if (starts("/>")) {
        advance();
        advance();
        return e;
      }
      if (s_[i_] == '>') {
        advance();
        break;
      }
      Attribute a;
      a.where = here();
      a.name = name();
      for (const Attribute& other : e.attributes)
        if (other.name == a.name) throw ConfigError(a.where, "attribute '" + a.name + "' given twice");
      skip_space();
      if (at_end() || s_[i_] != '=') fail("expected '=' after attribute '" + a.name + "'");
      advance();
      skip_space();
      a.value = value();
      e.attributes.push_back(std::move(a));
    }
    for (;;) {
      skip_misc();
      if (at_end()) throw ConfigError(e.where, "<" + e.name + "> is never closed");
      if (starts("</")) {
        advance();
        advance();
        const SourceLoc at = here();
        const std::string closing = name();
        if (closing != e.name)
          throw ConfigError(at, "</" + closing + "> closes <" + e.name + "> opened at line " + std::to_string(e.where.line));
        skip_space();
        if (at_end() || s_[i_] != '>') fail("expected '>'");
        advance();
        return e;
      }
      e.children.push_back(element(depth + 1));
    }
  }

  const std::string& s_;
  const std::string& file_;
  std::size_t i_ = 0;
  int line_ = 1, col_ = 1;
};

}  // namespace

Element parse(const std::string& text, const std::string& file) { return Reader(text, file).document(); }

}  // namespace hpcsim::xml
