#include "workloads/zoo/model_yaml.h"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/schema.h"
#include "workloads/layers/attention.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/normalization.h"
#include "workloads/layers/pooling.h"
#include "workloads/layers/recurrent.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

namespace hpcsim {

namespace {

using LayerPtr = std::shared_ptr<const Layer>;
using Maker = std::function<LayerPtr(const ConfigNode&)>;

struct LayerType {
  std::vector<Field> fields;  // besides type, name and inputs
  Maker make;
};

const std::vector<std::string> kActivations = {"relu", "leaky_relu", "gelu", "silu", "swiglu", "tanh", "sigmoid"};

ActivationKind activation_kind(const std::string& name) {
  static const std::map<std::string, ActivationKind> kinds = {
      {"relu", ActivationKind::relu}, {"leaky_relu", ActivationKind::leaky_relu}, {"gelu", ActivationKind::gelu},
      {"silu", ActivationKind::silu}, {"swiglu", ActivationKind::swiglu},         {"tanh", ActivationKind::tanh},
      {"sigmoid", ActivationKind::sigmoid}};
  return kinds.at(name);
}

Schema positive_int() { return Schema::integer().at_least(1); }

Conv2dConfig conv_config(const ConfigNode& n) {
  Conv2dConfig c;
  c.filters = n.get_int("filters");
  c.kernel_h = c.kernel_w = static_cast<int>(n.get_int("kernel_size"));
  c.stride_h = c.stride_w = static_cast<int>(n.get_int_or("strides", 1));
  c.pad_h = c.pad_w = static_cast<int>(n.get_int_or("pad", 0));
  c.same = n.get_string_or("padding", "valid") == "same";
  c.groups = static_cast<int>(n.get_int_or("groups", 1));
  c.dilation = static_cast<int>(n.get_int_or("dilation", 1));
  c.bias = n.get_bool_or("use_bias", true);
  return c;
}

std::vector<Field> conv_fields() {
  return {required("filters", positive_int()),  required("kernel_size", positive_int()),
          optional("strides", positive_int()),  optional("padding", Schema::one_of({"valid", "same"})),
          optional("pad", Schema::integer().at_least(0)), optional("groups", positive_int()),
          optional("dilation", positive_int()), optional("use_bias", Schema::boolean()),
          optional("activation", Schema::one_of(kActivations))};
}

LayerType pool(PoolMode mode) {
  return {{required("pool_size", positive_int()), optional("strides", positive_int()),
           optional("padding", Schema::one_of({"valid", "same"})), optional("pad", Schema::integer().at_least(0)),
           optional("ceil_mode", Schema::boolean())},
          [mode](const ConfigNode& n) -> LayerPtr {
            PoolConfig c;
            c.mode = mode;
            c.kernel_h = c.kernel_w = static_cast<int>(n.get_int("pool_size"));
            c.stride_h = c.stride_w = static_cast<int>(n.get_int_or("strides", c.kernel_h));
            c.pad_h = c.pad_w = static_cast<int>(n.get_int_or("pad", 0));
            c.same = n.get_string_or("padding", "valid") == "same";
            c.ceil_mode = n.get_bool_or("ceil_mode", false);
            return std::make_shared<Pool2d>(c);
          }};
}

LayerType recurrent(CellType cell) {
  return {{required("units", positive_int()), optional("layers", positive_int()),
           optional("bidirectional", Schema::boolean()), optional("return_sequences", Schema::boolean())},
          [cell](const ConfigNode& n) -> LayerPtr {
            return std::make_shared<Recurrent>(RecurrentConfig{cell, n.get_int("units"),
                                                               static_cast<int>(n.get_int_or("layers", 1)),
                                                               n.get_bool_or("bidirectional", false),
                                                               n.get_bool_or("return_sequences", false)});
          }};
}

template <class L>
LayerType plain() {
  return {{}, [](const ConfigNode&) -> LayerPtr { return std::make_shared<L>(); }};
}

const std::map<std::string, LayerType>& layer_types() {
  static const std::map<std::string, LayerType> types = [] {
    std::map<std::string, LayerType> t;
    t["conv2d"] = {conv_fields(), [](const ConfigNode& n) -> LayerPtr { return std::make_shared<Conv2d>(conv_config(n)); }};
    t["conv2d_transpose"] = {conv_fields(), [](const ConfigNode& n) -> LayerPtr {
                               return std::make_shared<Conv2dTranspose>(conv_config(n));
                             }};
    t["max_pool"] = pool(PoolMode::max);
    t["avg_pool"] = pool(PoolMode::avg);
    t["global_max_pool"] = {{}, [](const ConfigNode&) -> LayerPtr {
                              return std::make_shared<Pool2d>(PoolConfig{.mode = PoolMode::max, .global = true});
                            }};
    t["global_avg_pool"] = {{}, [](const ConfigNode&) -> LayerPtr {
                              return std::make_shared<Pool2d>(PoolConfig{.mode = PoolMode::avg, .global = true});
                            }};
    t["dense"] = {{required("units", positive_int()), optional("use_bias", Schema::boolean()),
                   optional("activation", Schema::one_of(kActivations))},
                  [](const ConfigNode& n) -> LayerPtr {
                    return std::make_shared<Linear>(n.get_int("units"), n.get_bool_or("use_bias", true));
                  }};
    t["embedding"] = {{required("input_dim", positive_int()), required("output_dim", positive_int())},
                      [](const ConfigNode& n) -> LayerPtr {
                        return std::make_shared<Embedding>(n.get_int("input_dim"), n.get_int("output_dim"));
                      }};
    t["position_embedding"] = {{required("max_positions", positive_int())}, [](const ConfigNode& n) -> LayerPtr {
                                 return std::make_shared<PositionEmbedding>(n.get_int("max_positions"));
                               }};
    t["simple_rnn"] = recurrent(CellType::simple);
    t["lstm"] = recurrent(CellType::lstm);
    t["gru"] = recurrent(CellType::gru);
    t["batch_norm"] = plain<BatchNorm>();
    t["layer_norm"] = plain<LayerNorm>();
    t["rms_norm"] = {{}, [](const ConfigNode&) -> LayerPtr { return std::make_shared<LayerNorm>(true); }};
    for (const std::string& a : kActivations) {
      t[a] = {{}, [a](const ConfigNode&) -> LayerPtr { return std::make_shared<Activation>(activation_kind(a)); }};
    }
    t["dropout"] = {{required("rate", Schema::number().at_least(0).at_most(0.99))},
                    [](const ConfigNode& n) -> LayerPtr { return std::make_shared<Dropout>(n.get_number("rate")); }};
    t["softmax"] = plain<Softmax>();
    t["cross_entropy"] = plain<CrossEntropyLoss>();
    t["attention"] = {{required("heads", positive_int()), optional("kv_heads", positive_int()),
                       optional("head_dim", positive_int()), optional("causal", Schema::boolean()),
                       optional("use_bias", Schema::boolean()),
                       optional("dropout", Schema::number().at_least(0).at_most(0.99))},
                      [](const ConfigNode& n) -> LayerPtr {
                        return std::make_shared<Attention>(AttentionConfig{
                            n.get_int("heads"), n.get_int_or("kv_heads", 0), n.get_int_or("head_dim", 0),
                            n.get_bool_or("causal", false), n.get_bool_or("use_bias", true),
                            n.get_number_or("dropout", 0.0)});
                      }};
    t["add"] = plain<Add>();
    t["concat"] = {{optional("axis", Schema::integer().at_least(-1))}, [](const ConfigNode& n) -> LayerPtr {
                     return std::make_shared<Concat>(static_cast<int>(n.get_int_or("axis", 0)));
                   }};
    t["flatten"] = plain<Flatten>();
    t["first_token"] = plain<FirstToken>();
    return t;
  }();
  return types;
}

// Unknown keys only (values are checked where they are read), reported with the closest allowed key.
void reject_unknown_keys(const ConfigNode& map, const std::vector<std::string>& allowed) {
  std::vector<Field> fields;
  for (const std::string& key : allowed) fields.push_back(optional(key, Schema::string()));
  for (const auto& entry : map.entries()) {
    if (std::find(allowed.begin(), allowed.end(), entry.key) != allowed.end()) continue;
    ConfigNode probe = ConfigNode::make_map(map.loc());
    probe.set(entry.key, entry.value, entry.key_loc);
    Schema::map(fields).validate(probe);
  }
}

Shape read_shape(const ConfigNode& node) {
  Schema::list(positive_int()).non_empty().validate(node);
  Shape s;
  for (const ConfigNode& d : node.items()) s.push_back(d.as_int());
  return s;
}

void add_layer(Network& net, const ConfigNode& spec, int index) {
  if (!spec.is_map()) throw ConfigError(spec.loc(), "a layer must be a map with a 'type', got " + spec.describe());
  const ConfigNode& type_node = spec.at("type");
  Schema::one_of(yaml_layer_types()).validate(type_node);
  const LayerType& type = layer_types().at(type_node.text());
  std::vector<Field> fields = type.fields;
  fields.push_back(required("type", Schema::string()));
  fields.push_back(optional("name", Schema::string()));
  fields.push_back(optional("inputs", Schema::list(Schema::string()).non_empty()));
  Schema::map(fields).validate(spec);

  std::vector<int> inputs;
  if (const ConfigNode* in = spec.find("inputs")) {
    std::vector<std::string> known;
    for (const LayerNode& n : net.nodes()) known.push_back(n.name);
    for (const ConfigNode& item : in->items()) {
      Schema::one_of(known).validate(item);  // an unknown or later layer: "did you mean"
      inputs.push_back(net.find(item.text()));
    }
  }
  const std::string name = spec.get_string_or("name", type_node.text() + "_" + std::to_string(index));
  if (net.find(name) >= 0) throw ConfigError(spec.find("name") ? spec.find("name")->loc() : spec.loc(), "duplicate layer name '" + name + "'");
  try {
    net.add(name, type.make(spec), inputs);
    if (const ConfigNode* act = spec.find("activation")) {
      net.add(name + "_" + act->text(), std::make_shared<Activation>(activation_kind(act->text())));
    }
  } catch (const std::invalid_argument& e) {  // ShapeError, or a layer configuration it rejects
    throw ConfigError(spec.loc(), e.what());
  }
}

Network parse_network(const std::string& name, const ConfigNode& node) {
  if (!node.is_map()) throw ConfigError(node.loc(), "a network must be a map with 'input' and 'layers', got " + node.describe());
  reject_unknown_keys(node, {"input", "layers", "name"});
  Network net(name);
  const ConfigNode& layers = node.at("layers");
  if (!layers.is_sequence() || layers.items().empty()) {
    throw ConfigError(layers.loc(), "'layers' must be a non-empty list, got " + layers.describe());
  }
  try {
    net.add_input("input", read_shape(node.at("input")));
  } catch (const ShapeError& e) {
    throw ConfigError(node.at("input").loc(), e.what());
  }
  int index = 0;
  for (const ConfigNode& spec : layers.items()) add_layer(net, spec, ++index);
  return net;
}

}  // namespace

std::vector<std::string> yaml_layer_types() {
  std::vector<std::string> names;
  for (const auto& [name, type] : layer_types()) names.push_back(name);
  return names;
}

Model parse_model_yaml(const ConfigNode& root, const std::string& default_name) {
  if (!root.is_map()) throw ConfigError(root.loc(), "a model file must be a map, got " + root.describe());
  Model model{root.get_string_or("name", default_name), {}};
  if (const ConfigNode* nets = root.find("networks")) {
    reject_unknown_keys(root, {"networks", "name"});
    if (!nets->is_map() || nets->entries().empty()) {
      throw ConfigError(nets->loc(), "'networks' must map names to networks, got " + nets->describe());
    }
    for (const auto& entry : nets->entries()) model.networks.push_back(parse_network(entry.key, entry.value));
    // A model file declares a GAN by its two networks' names, in this order.
    model.adversarial = model.networks.size() == 2 && model.networks[0].name() == "generator" &&
                        model.networks[1].name() == "discriminator";
  } else {
    model.networks.push_back(parse_network(model.name, root));
  }
  return model;
}

Model load_model_yaml(const std::filesystem::path& file) {
  return parse_model_yaml(load_config_file(file), file.stem().string());
}

}  // namespace hpcsim
