#include "yaml_convert.h"

#include <yaml-cpp/yaml.h>

#include "configs/config_error.h"

namespace hpcsim {

namespace {

class Converter {
 public:
  Converter(const std::string& file, bool with_positions)
      : file_(file), with_positions_(with_positions) {}

  SourceLoc loc_of(const YAML::Mark& mark, const SourceLoc& fallback) const {
    if (!with_positions_) return SourceLoc{file_, 0, 0};
    if (mark.is_null()) return fallback;
    return SourceLoc{file_, mark.line + 1, mark.column + 1};  // yaml-cpp marks are 0-based
  }

  ConfigNode convert(const YAML::Node& node, const SourceLoc& fallback) const {
    SourceLoc loc = loc_of(node.Mark(), fallback);
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        // yaml-cpp tags quoted scalars "!" and plain ones "?".
        return ConfigNode::make_scalar(node.Scalar(), loc, node.Tag() == "!");
      case YAML::NodeType::Sequence: {
        ConfigNode sequence = ConfigNode::make_sequence(loc);
        for (const YAML::Node& item : node) sequence.push_back(convert(item, loc));
        return sequence;
      }
      case YAML::NodeType::Map: return convert_map(node, loc);
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined: break;
    }
    return ConfigNode::make_null(loc);
  }

 private:
  ConfigNode convert_map(const YAML::Node& node, const SourceLoc& loc) const {
    ConfigNode map = ConfigNode::make_map(loc);
    for (auto it = node.begin(); it != node.end(); ++it) {
      SourceLoc key_loc = loc_of(it->first.Mark(), loc);
      if (!it->first.IsScalar()) throw ConfigError(key_loc, "map keys must be plain strings");
      const std::string& key = it->first.Scalar();
      for (const ConfigNode::Entry& earlier : map.entries()) {
        if (earlier.key == key) {
          throw ConfigError(key_loc, "duplicate key '" + key + "' (first at " +
                                         earlier.key_loc.to_string() + ")");
        }
      }
      // An empty value ("key:") has its mark on the next line; the key's place reads better.
      ConfigNode value = it->second.IsNull() ? ConfigNode::make_null(key_loc)
                                             : convert(it->second, key_loc);
      map.set(key, std::move(value), key_loc);
    }
    return map;
  }

  const std::string& file_;
  bool with_positions_;
};

}  // namespace

ConfigNode parse_yaml(std::string_view text, const std::string& file, bool with_positions) {
  Converter converter(file, with_positions);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(text));
  } catch (const YAML::Exception& error) {
    throw ConfigError(converter.loc_of(error.mark, SourceLoc{file, 0, 0}),
                      "invalid YAML: " + error.msg);
  }
  SourceLoc whole_file{file, with_positions ? 1 : 0, with_positions ? 1 : 0};
  if (documents.empty()) return ConfigNode::make_null(whole_file);
  if (documents.size() > 1) {
    throw ConfigError(converter.loc_of(documents[1].Mark(), whole_file),
                      "expected a single YAML document, found " +
                          std::to_string(documents.size()));
  }
  return converter.convert(documents.front(), whole_file);
}

}  // namespace hpcsim
