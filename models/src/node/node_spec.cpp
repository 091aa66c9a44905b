#include "models/node/node_spec.h"

namespace hpcsim {

const Schema& node_spec_schema() {
  static const Schema schema = Schema::map({
      optional("extends", Schema::string()),
      required("gpu", Schema::string()),
      required("gpus", Schema::integer().at_least(1)),
      required("gpu_link", Schema::map({
                               required("kind", Schema::one_of({"nvswitch", "nvlink", "pcie"})),
                               required("bandwidth", Schema::quantity(Dimension::bandwidth).positive()),
                               required("latency", Schema::quantity(Dimension::time).at_least(0)),
                           })),
      required("nics", Schema::map({
                           required("count", Schema::integer().at_least(0)),
                           required("rate", Schema::quantity(Dimension::bandwidth).positive()),
                       })),
      required("cpu", Schema::map({
                          required("sockets", Schema::integer().at_least(1)),
                          required("cores_per_socket", Schema::integer().at_least(1)),
                      })),
      required("host_memory", Schema::quantity(Dimension::bytes).positive()),
  });
  return schema;
}

NodeSpec parse_node_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog) {
  node_spec_schema().validate(node);
  NodeSpec n;
  n.name = std::move(name);
  const ConfigNode& gpu_name = node.at("gpu");
  n.gpu = parse_gpu_spec(catalog.load("gpus", gpu_name, "GPU"), gpu_name.as_string());
  n.gpus = static_cast<int>(node.get_int("gpus"));
  const ConfigNode& link = node.at("gpu_link");
  n.gpu_link.kind = link.get_string("kind");
  n.gpu_link.bandwidth = link.get_quantity("bandwidth", Dimension::bandwidth);
  n.gpu_link.latency_s = link.get_quantity("latency", Dimension::time);
  const ConfigNode& nics = node.at("nics");
  n.nics.count = static_cast<int>(nics.get_int("count"));
  n.nics.rate_bits = nics.get_quantity("rate", Dimension::bandwidth) * 8.0;
  const ConfigNode& cpu = node.at("cpu");
  n.cpu_sockets = static_cast<int>(cpu.get_int("sockets"));
  n.cpu_cores_per_socket = static_cast<int>(cpu.get_int("cores_per_socket"));
  n.host_memory_bytes = node.get_quantity("host_memory", Dimension::bytes);
  return n;
}

}  // namespace hpcsim
