#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "configs/config_node.h"

namespace hpcsim {

// Parses YAML text; `file` labels locations in errors and nodes.
// Syntax errors become ConfigError at yaml-cpp's line:column.
ConfigNode parse_config_text(std::string_view text, const std::string& file);

// Parses one file as-is (no `extends` processing). A missing or unreadable
// file is a ConfigError naming it.
ConfigNode read_config_file(const std::filesystem::path& path);

// Reads a file and resolves `extends: base.yaml` (or a list of files, merged in
// order), relative to the including file, recursively. Maps deep-merge with the
// child winning; sequences and scalars replace. Cycles are an error naming the chain.
ConfigNode load_config_file(const std::filesystem::path& path);

// load_config_file, then each override in order, as given by flag `flag_name` (--set, or --vary for a sweep's point).
ConfigNode load_config(const std::filesystem::path& path,
                       const std::vector<std::string>& overrides, std::string_view flag_name = "--set");

// Deep merge of `over` onto `base` (maps merge recursively, anything else replaces).
ConfigNode merge_configs(ConfigNode base, const ConfigNode& over);

}  // namespace hpcsim
