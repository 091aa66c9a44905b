#include "workloads/layers/network.h"

#include <algorithm>

namespace hpcsim {

int Network::add_input(std::string name, Shape shape) {
  if (find(name) >= 0) throw std::invalid_argument("network '" + name_ + "': duplicate node name '" + name + "'");
  for (std::int64_t d : shape) {
    if (d < 1) throw ShapeError("input '" + name + "' has an empty dimension: " + to_string(shape));
  }
  check_tensor_size("input '" + name + "'", shape);
  nodes_.push_back({std::move(name), nullptr, {}, {}, std::move(shape)});
  return last();
}

int Network::add(std::string name, std::shared_ptr<const Layer> layer, std::vector<int> inputs) {
  if (nodes_.empty()) throw std::invalid_argument("network '" + name_ + "': add an input before layers");
  if (find(name) >= 0) throw std::invalid_argument("network '" + name_ + "': duplicate node name '" + name + "'");
  if (inputs.empty()) inputs.push_back(last());
  Shapes shapes;
  for (int i : inputs) {
    if (i < 0 || i > last()) throw std::invalid_argument("network '" + name_ + "': no node " + std::to_string(i));
    shapes.push_back(nodes_[static_cast<std::size_t>(i)].output);
  }
  Shape out;
  try {
    out = layer->output_shape(shapes);
    check_tensor_size("its output", out);
    // Layers count their weights with capped_product, so the count cannot overflow; past 2^48 no GPU holds them.
    if (layer->params(shapes) > kMaxTensorElements) throw ShapeError("its weights are more than 2^48, more than any GPU holds");
  } catch (const ShapeError& e) {
    throw ShapeError(name + " (" + layer->type() + "): " + e.what());
  }
  nodes_.push_back({std::move(name), std::move(layer), std::move(inputs), std::move(shapes), std::move(out)});
  return last();
}

int Network::find(const std::string& name) const {
  for (std::size_t i = 0; i < nodes_.size(); ++i) {
    if (nodes_[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

const Shape& Network::output_shape() const {
  if (nodes_.empty()) throw std::invalid_argument("network '" + name_ + "' is empty");
  return nodes_.back().output;
}

std::int64_t Network::params() const {
  std::int64_t total = 0;
  for (const LayerNode& n : nodes_) {
    if (n.layer) total += n.layer->params(n.input_shapes);
  }
  return total;
}

double Network::forward_flops(const LayerRun& run) const {
  double total = 0;
  for (const LayerNode& n : nodes_) {
    if (n.layer) total += n.layer->forward_flops(n.input_shapes, run);
  }
  return total;
}

double Network::activation_bytes(const LayerRun& run) const {
  double total = 0;
  for (const LayerNode& n : nodes_) {
    if (n.layer) total += n.layer->activation_bytes(n.input_shapes, run);
  }
  return total;
}

std::int64_t Model::params() const {
  std::int64_t total = 0;
  for (const Network& n : networks) total += n.params();
  return total;
}

std::int64_t Model::largest_tensor() const {
  std::int64_t largest = 0;
  for (const Network& net : networks) {
    for (const LayerNode& n : net.nodes()) largest = std::max(largest, elements(n.output));
  }
  return largest;
}

std::int64_t Model::token_input_length() const {
  if (networks.empty()) return 0;
  const Network& net = networks.front();
  for (const LayerNode& n : net.nodes()) {
    if (!n.layer || !n.layer->traits().gathers_rows) continue;  // an embedding fed token ids by an input
    for (int i : n.inputs) {
      const LayerNode& in = net.nodes()[i];
      if (!in.layer && in.output.size() == 1) return in.output[0];
    }
  }
  return 0;
}

const Network& Model::network(const std::string& wanted) const {
  std::string known;
  for (const Network& n : networks) {
    if (n.name() == wanted) return n;
    known += (known.empty() ? "" : ", ") + n.name();
  }
  throw std::invalid_argument("model '" + name + "' has no network '" + wanted + "' (has: " + known + ")");
}

std::vector<bool> tp_sharded_outputs(const Network& net, int tp) {
  std::vector<bool> sharded(net.nodes().size(), false);
  if (tp <= 1) return sharded;
  for (std::size_t i = 0; i < net.nodes().size(); ++i) {
    const LayerNode& n = net.nodes()[i];
    if (!n.layer) continue;
    const TensorSplit split = n.layer->tensor_split();
    bool input_sharded = false;
    for (int in : n.inputs) input_sharded |= sharded[in];
    sharded[i] = split == TensorSplit::column || (split == TensorSplit::none && input_sharded);
  }
  return sharded;
}

std::int64_t tp_shard_width(std::int64_t width, int tp, int parts) {
  const std::int64_t p = parts > 1 && width % parts == 0 ? parts : 1;
  return p * ((width / p + tp - 1) / tp);
}

}  // namespace hpcsim
