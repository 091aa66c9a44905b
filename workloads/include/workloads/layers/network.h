#pragma once
// A network is a graph of layers in topological order: input nodes, then layers fed by earlier nodes.
// Shapes are inferred when a layer is added, so a bad shape is caught where the network is written.
// A model is one or more networks (a GAN has a generator and a discriminator).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "workloads/layers/layer.h"

namespace hpcsim {

struct LayerNode {
  std::string name;
  std::shared_ptr<const Layer> layer;  // null for an input
  std::vector<int> inputs;             // node indices
  Shapes input_shapes;
  Shape output;
};

class Network {
 public:
  explicit Network(std::string name = "net") : name_(std::move(name)) {}

  int add_input(std::string name, Shape shape);
  // Adds a layer fed by `inputs` (default: the last node). Throws ShapeError "<name> (<type>): ..." when
  // the inputs do not fit, std::invalid_argument for a duplicate name or a bad input index.
  int add(std::string name, std::shared_ptr<const Layer> layer, std::vector<int> inputs = {});
  int find(const std::string& name) const;  // -1 when absent

  const std::string& name() const { return name_; }
  const std::vector<LayerNode>& nodes() const { return nodes_; }
  int last() const { return static_cast<int>(nodes_.size()) - 1; }
  const Shape& output_shape() const;
  std::int64_t params() const;
  double forward_flops(const LayerRun& run) const;
  double activation_bytes(const LayerRun& run) const;

 private:
  std::string name_;
  std::vector<LayerNode> nodes_;
};

// Tensor-parallel sharding of a network's tensors over `tp` GPUs: a column-parallel layer's output is split
// on its last dimension, and stays split through the layers that consume it until a row-parallel layer.
// One flag per node.
std::vector<bool> tp_sharded_outputs(const Network& net, int tp);

// The last dimension one of `tp` GPUs holds of a sharded tensor of width `width` that a layer reads as `parts`
// parts side by side (a gated MLP's [gate, up]: 2): each part split, rounded up, so every GPU keeps whole pairs.
std::int64_t tp_shard_width(std::int64_t width, int tp, int parts);

struct Model {
  std::string name;
  std::vector<Network> networks;
  // Tokens one sample counts in throughput figures; 0: the length of the first network's token-id input.
  std::int64_t tokens_per_sample = 0;
  // Two networks trained against each other (a GAN): networks[0] the generator, networks[1] the
  // discriminator. The training step then runs the adversarial recipe.
  bool adversarial = false;

  std::int64_t params() const;
  // Elements of the largest tensor one sample makes (a network's input or a layer's output).
  std::int64_t largest_tensor() const;
  // Steps of the first network's token-id input (a network input feeding an embedding); 0 when none.
  std::int64_t token_input_length() const;
  // Tokens one sample counts: tokens_per_sample when set, else token_input_length().
  std::int64_t counted_tokens() const { return tokens_per_sample > 0 ? tokens_per_sample : token_input_length(); }
  // Throws std::invalid_argument listing the networks when there is none of that name.
  const Network& network(const std::string& name) const;
};

}  // namespace hpcsim
