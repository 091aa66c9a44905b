#include "yaml_convert.h"

// The ConfigNode tree is built straight from yaml-cpp's parser events rather than from its node graph:
// in that graph an alias is the anchored node itself, shared, so `a: &a [*a]` is a list holding itself
// and walking it never ends, and a few hundred bytes of aliases stand for billions of values. Here an
// alias copies its anchor's finished tree, an alias inside its own anchor is refused, and every value
// counts against the limits of configs/input_limits.h.

#include <map>
#include <optional>
#include <sstream>

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/mark.h>
#include <yaml-cpp/parser.h>

#include "configs/config_error.h"
#include "configs/input_limits.h"

namespace hpcsim {

namespace {

class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(std::string_view text, const std::string& file, bool with_positions)
      : file_(file), with_positions_(with_positions), text_(text) {}

  SourceLoc loc_of(const YAML::Mark& mark, const SourceLoc& fallback) const {
    if (!with_positions_) return SourceLoc{file_, 0, 0};
    if (mark.is_null()) return fallback;
    return SourceLoc{file_, mark.line + 1, mark.column + 1};  // yaml-cpp marks are 0-based
  }
  SourceLoc loc_of(const YAML::Mark& mark) const { return loc_of(mark, SourceLoc{file_, 0, 0}); }

  int documents() const { return documents_; }
  const std::optional<ConfigNode>& root() const { return root_; }
  const std::optional<YAML::Mark>& second_document_mark() const { return second_mark_; }
  // The first problem met while building; the caller reports it once yaml-cpp has read the whole text,
  // so syntax errors anywhere still come first.
  const std::optional<ConfigError>& problem() const { return problem_; }

  void OnDocumentStart(const YAML::Mark&) override {
    ++documents_;
    document_open_ = true;
  }
  void OnDocumentEnd() override {}

  void OnAnchor(const YAML::Mark&, const std::string& name) override { pending_anchor_name_ = name; }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!admit(mark, 1)) return;
    name_anchor(anchor);
    deliver(ConfigNode::make_null(loc_of(mark)), 1, anchor);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    if (!admit(mark, 1)) return;
    name_anchor(anchor);
    // yaml-cpp tags quoted scalars "!" and plain ones "?".
    deliver(ConfigNode::make_scalar(value, loc_of(mark), tag == "!"), 1, anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    if (!admit(mark, 0)) return;
    for (const Open& open : open_) {
      if (open.anchor == anchor) {
        std::string where = with_positions_ ? " (anchored at " + open.node.loc().to_string() + ")" : "";
        return refuse(loc_of(mark), "alias *" + anchor_names_[anchor] +
                                        " stands inside the value it names" + where +
                                        ": a YAML alias may not contain itself");
      }
    }
    const Anchored& anchored = anchors_.at(anchor);  // yaml-cpp refuses an undefined anchor itself
    alias_values_ += anchored.values;
    if (alias_values_ > input_limits::max_alias_values) {
      return refuse(loc_of(mark), "aliases expand to more than " +
                                      std::to_string(input_limits::max_alias_values) +
                                      " values (each alias copies the whole value of its anchor); "
                                      "write the values out instead");
    }
    if (!admit(mark, anchored.values)) return;
    deliver(anchored.node, anchored.values, 0);
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, ConfigNode::make_sequence(loc_of(mark)), anchor);
  }
  void OnSequenceEnd() override { close(); }

  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, ConfigNode::make_map(loc_of(mark)), anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {  // a map or list whose end has not been read yet
    ConfigNode node;
    YAML::anchor_t anchor;
    std::size_t values;             // this value and all it holds, aliases expanded
    std::optional<ConfigNode> key;  // a map's key waiting for its value
  };
  struct Anchored {
    ConfigNode node;
    std::size_t values;
  };

  // Whether a node event that adds `values` values builds the first document's tree within the limits.
  // Also marks where a second document starts.
  bool admit(const YAML::Mark& mark, std::size_t values) {
    if (document_open_) first_node(mark);
    if (documents_ != 1 || problem_) return false;
    values_ += values;
    if (values_ <= input_limits::max_yaml_values) return true;
    refuse(loc_of(mark), "more than " + std::to_string(input_limits::max_yaml_values) +
                             " values in one YAML input, the most hpcsim reads");
    return false;
  }

  // yaml-cpp 0.7 never consumes a token that cannot start a node (a leading ','): it ends the document
  // with an empty value there and starts the next one at the same place, forever (jbeder/yaml-cpp#1040).
  void first_node(const YAML::Mark& mark) {
    document_open_ = false;
    if (documents_ == 2) second_mark_ = mark;
    if (documents_ >= 2 && mark.pos == previous_document_pos_) {
      const std::size_t at = static_cast<std::size_t>(mark.pos);
      throw YAML::ParserException(mark, at < text_.size() ? "unexpected '" + std::string(1, text_[at]) + "'"
                                                           : "unexpected end");
    }
    previous_document_pos_ = mark.pos;
  }

  // Keeps the first problem; the rest of the text is then only parsed, not built.
  void refuse(SourceLoc where, const std::string& message) {
    problem_.emplace(std::move(where), message);
    open_.clear();
    anchors_.clear();
  }

  void open(const YAML::Mark& mark, ConfigNode node, YAML::anchor_t anchor) {
    if (!admit(mark, 1)) return;
    if (open_.size() >= input_limits::max_yaml_depth) {
      return refuse(loc_of(mark), "maps and lists nested deeper than " +
                                      std::to_string(input_limits::max_yaml_depth) + " levels");
    }
    // A map or list as a key is refused where it starts, before anything inside it.
    if (!open_.empty() && open_.back().node.is_map() && !open_.back().key) {
      return refuse(loc_of(mark), "map keys must be plain strings");
    }
    name_anchor(anchor);
    open_.push_back(Open{std::move(node), anchor, 1, std::nullopt});
  }

  void close() {
    if (documents_ != 1 || problem_) return;
    Open done = std::move(open_.back());
    open_.pop_back();
    deliver(std::move(done.node), done.values, done.anchor);
  }

  // yaml-cpp names an anchor (OnAnchor) just before the event of the node it anchors.
  void name_anchor(YAML::anchor_t anchor) {
    if (anchor != 0) anchor_names_[anchor] = pending_anchor_name_;
    pending_anchor_name_.clear();
  }

  // Hands a finished value to the map or list it is in, or makes it the root.
  void deliver(ConfigNode node, std::size_t values, YAML::anchor_t anchor) {
    if (anchor != 0) anchors_[anchor] = Anchored{node, values};
    if (open_.empty()) {
      root_ = std::move(node);
      return;
    }
    Open& parent = open_.back();
    parent.values += values;
    if (parent.node.is_sequence()) {
      parent.node.push_back(std::move(node));
    } else if (!parent.key) {
      add_key(parent, std::move(node));
    } else {
      const SourceLoc key_loc = parent.key->loc();
      // An empty value ("key:") has its mark on the next line; the key's place reads better.
      if (node.is_null()) node = ConfigNode::make_null(key_loc);
      parent.node.set(parent.key->text(), std::move(node), key_loc);
      parent.key.reset();
    }
  }

  void add_key(Open& map, ConfigNode key) {
    if (!key.is_scalar()) return refuse(key.loc(), "map keys must be plain strings");
    const std::vector<ConfigNode::Entry>& entries = map.node.entries();
    for (const ConfigNode::Entry& earlier : entries) {
      if (earlier.key == key.text()) {
        return refuse(key.loc(), "duplicate key '" + key.text() + "' (first at " +
                                     earlier.key_loc.to_string() + ")");
      }
    }
    if (entries.size() >= input_limits::max_map_keys) {
      return refuse(key.loc(), "more than " + std::to_string(input_limits::max_map_keys) +
                                   " keys in one map, the most hpcsim reads");
    }
    map.key = std::move(key);
  }

  const std::string& file_;
  bool with_positions_;
  std::string_view text_;
  int documents_ = 0;
  bool document_open_ = false;  // no node of the current document read yet
  int previous_document_pos_ = -1;
  std::optional<ConfigNode> root_;
  std::optional<YAML::Mark> second_mark_;
  std::optional<ConfigError> problem_;
  std::vector<Open> open_;
  std::map<YAML::anchor_t, Anchored> anchors_;
  std::map<YAML::anchor_t, std::string> anchor_names_;
  std::string pending_anchor_name_;
  std::size_t values_ = 0;
  std::size_t alias_values_ = 0;
};

}  // namespace

ConfigNode parse_yaml(std::string_view text, const std::string& file, bool with_positions) {
  TreeBuilder builder(text, file, with_positions);
  SourceLoc whole_file{file, with_positions ? 1 : 0, with_positions ? 1 : 0};
  if (text.size() > input_limits::max_file_bytes) {
    throw ConfigError(whole_file, std::to_string(text.size()) + " bytes, more than the " +
                                      std::to_string(input_limits::max_file_bytes >> 20) +
                                      " MiB hpcsim reads from one YAML input");
  }
  try {
    std::istringstream stream{std::string(text)};
    YAML::Parser parser(stream);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::DeepRecursion& error) {
    // yaml-cpp's own guard, far past max_yaml_depth, says "bad file"; the builder has said where (but
    // builds the first document only).
    if (builder.problem()) throw *builder.problem();
    throw ConfigError(builder.loc_of(error.mark, whole_file),
                      "maps and lists nested deeper than " + std::to_string(input_limits::max_yaml_depth) +
                          " levels");
  } catch (const YAML::Exception& error) {
    throw ConfigError(builder.loc_of(error.mark, SourceLoc{file, 0, 0}), "invalid YAML: " + error.msg);
  }
  if (builder.documents() == 0) return ConfigNode::make_null(whole_file);
  if (builder.documents() > 1) {
    throw ConfigError(builder.loc_of(builder.second_document_mark().value_or(YAML::Mark()), whole_file),
                      "expected a single YAML document, found " + std::to_string(builder.documents()));
  }
  if (builder.problem()) throw *builder.problem();
  return builder.root().value_or(ConfigNode::make_null(whole_file));
}

}  // namespace hpcsim
