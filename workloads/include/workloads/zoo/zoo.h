#pragma once
// The model zoo: built-in C++ builders (resnet50, bert-base, llama3-8b, ...) and Keras-like YAML layer
// lists (configs/models/*.yaml, or any file a user writes with the same schema, see model_yaml.h).
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "workloads/layers/network.h"

namespace hpcsim {

// Sizes a scenario may set; a builder uses its published defaults for what is unset. `gpt` needs layers,
// hidden, heads and vocab (ffn defaults to 4 * hidden). model_size_keys() says which a model takes.
struct ModelParams {
  std::optional<std::int64_t> seq_len, resolution, layers, hidden, heads, ffn, vocab;
};

// Built-in builder names, sorted.
std::vector<std::string> builtin_model_names();
// Built-in names and the YAML models under <config_root>/models, sorted, without duplicates.
std::vector<std::string> zoo_names(const std::filesystem::path& config_root);

// A zoo name, or a path to a model YAML (anything containing '/' or ending in ".yaml"). An unknown name
// is a ConfigError that suggests the closest one; a builder's missing or impossible size is a
// std::invalid_argument naming it.
Model build_model(const std::string& name_or_path, const ModelParams& params,
                  const std::filesystem::path& config_root);

// The ModelParams keys (seq_len, resolution, layers, hidden, heads, ffn, vocab) a zoo model uses; none for
// a model YAML (its sizes are in the file) or an unknown name.
std::vector<std::string> model_size_keys(const std::string& name_or_path);

}  // namespace hpcsim
