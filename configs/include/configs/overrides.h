#pragma once

#include <initializer_list>
#include <string_view>

#include "configs/config_node.h"

namespace hpcsim {

// Applies "a.b.c=value": sets a (possibly new) nested key. The value is parsed as a
// YAML scalar or flow collection, so "x=[1,2]" sets a list. A numeric path segment
// indexes into an existing list. The value's nodes, and errors, read "<flag_name> <flag>",
// e.g. "--set a.b.c=value" or "--vary a.b.c=value" for one point of a sweep.
void apply_override(ConfigNode& root, std::string_view flag, std::string_view flag_name = "--set");

// Whether a value came from a flag (--set, --vary) rather than from a file.
bool from_flag(const SourceLoc& loc);

// Where a check over several values fails: at the first of `inputs` (null ones skipped) a flag gave, since
// that is what the user just changed, else at `fallback`.
const SourceLoc& blame(const SourceLoc& fallback, std::initializer_list<const ConfigNode*> inputs);

}  // namespace hpcsim
