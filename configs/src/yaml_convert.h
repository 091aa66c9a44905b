#pragma once

#include <string>
#include <string_view>

#include "configs/config_node.h"

namespace hpcsim {

// Parses YAML text into a ConfigNode, labelling every location with `file`.
// with_positions=false drops line/column (used for --set values, whose
// positions inside the flag text mean nothing to the reader).
ConfigNode parse_yaml(std::string_view text, const std::string& file, bool with_positions = true);

}  // namespace hpcsim
