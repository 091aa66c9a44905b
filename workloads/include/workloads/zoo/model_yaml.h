#pragma once
// Keras-like model files. One network:
//   name: keras-cnn-mnist
//   input: [1, 28, 28]            # per sample: [channels, height, width], [steps] of token ids, [features]
//   layers:
//     - {type: conv2d, filters: 32, kernel_size: 3, activation: relu}
//     - {type: max_pool, pool_size: 2}
//     - {type: flatten}
//     - {type: dense, units: 10}
// or several (a GAN):  networks: {generator: {input: [100], layers: [...]}, discriminator: {...}}.
// A layer reads the previous one unless `inputs: [name, ...]` names earlier layers (give them `name:`);
// `activation:` on conv2d/dense appends that activation layer. Unknown types or keys, bad values and
// shapes that do not fit are ConfigErrors at the offending line and column.
#include <filesystem>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "workloads/layers/network.h"

namespace hpcsim {

Model load_model_yaml(const std::filesystem::path& file);
Model parse_model_yaml(const ConfigNode& root, const std::string& default_name);

// The layer types a model file may use, sorted.
std::vector<std::string> yaml_layer_types();

}  // namespace hpcsim
