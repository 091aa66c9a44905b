#pragma once

#include <initializer_list>
#include <string>
#include <string_view>

#include "configs/config_node.h"

namespace hpcsim {

// Applies "a.b.c=value": sets a (possibly new) nested key. The value is parsed as a
// YAML scalar or flow collection, so "x=[1,2]" sets a list. A numeric path segment
// indexes into an existing list. The value's nodes, and errors, read "<flag_name> <flag>",
// e.g. "--set a.b.c=value" or "--vary a.b.c=value" for one point of a sweep (flag_label).
void apply_override(ConfigNode& root, std::string_view flag, std::string_view flag_name = "--set");

// "<flag_name> <flag>", cut after its first 120 characters when longer than 240 ("... (N characters)"): the
// label every value of the flag carries.
std::string flag_label(std::string_view flag, std::string_view flag_name);

// Whether a value came from a flag (--set, --vary) rather than from a file.
bool from_flag(const SourceLoc& loc);

// Where a check over several values fails: at the first of `inputs` (null ones skipped) a flag gave, since
// that is what the user just changed, else at `fallback`.
const SourceLoc& blame(const SourceLoc& fallback, std::initializer_list<const ConfigNode*> inputs);

}  // namespace hpcsim
