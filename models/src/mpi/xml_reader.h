#pragma once
// A small XML reader for platform files: elements, attributes, comments, the XML declaration and a
// DOCTYPE; text content is skipped. Every element and attribute keeps its line and column.
#include <memory>
#include <string>
#include <vector>

#include "configs/source_loc.h"

namespace hpcsim::xml {

struct Attribute {
  std::string name, value;
  SourceLoc where;
};

struct Element {
  std::string name;
  SourceLoc where;
  std::vector<Attribute> attributes;
  std::vector<Element> children;
  const Attribute* find(const std::string& name) const;
};

// The document's root element; ConfigError "file:line:column: ..." when it is not well-formed XML (or
// nests deeper than 64 elements).
Element parse(const std::string& text, const std::string& file);

}  // namespace hpcsim::xml
