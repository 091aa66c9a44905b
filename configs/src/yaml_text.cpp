#include "configs/yaml_text.h"

#include <yaml-cpp/yaml.h>

namespace hpcsim {

namespace {

void emit(YAML::Emitter& out, const ConfigNode& node) {
  switch (node.kind()) {
    case ConfigNode::Kind::null: out << YAML::Null; return;
    case ConfigNode::Kind::scalar:
      // Quoted strings stay quoted so "yes" or "1.0" read back as strings.
      if (node.quoted()) out << YAML::DoubleQuoted;
      out << node.text();
      return;
    case ConfigNode::Kind::sequence:
      out << YAML::BeginSeq;
      for (const ConfigNode& item : node.items()) emit(out, item);
      out << YAML::EndSeq;
      return;
    case ConfigNode::Kind::map:
      out << YAML::BeginMap;
      for (const ConfigNode::Entry& entry : node.entries()) {
        out << YAML::Key << entry.key << YAML::Value;
        emit(out, entry.value);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

std::string to_yaml_text(const ConfigNode& root) {
  YAML::Emitter out;
  emit(out, root);
  return std::string(out.c_str()) + "\n";
}

}  // namespace hpcsim
