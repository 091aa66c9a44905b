#include "models/node/node_spec.h"

#include "configs/config_error.h"
#include "configs/units.h"

namespace hpcsim {

namespace {

// The `cpu:` map's keys: the summary every node gives, then the optional HPC description (cpu_hpc_spec.h).
std::vector<Field> cpu_fields(std::vector<Field> base, std::vector<Field> more) {
  for (Field& f : more) base.push_back(std::move(f));
  return base;
}

Schema count() { return Schema::integer().at_least(0); }
Schema positive_count() { return Schema::integer().at_least(1); }

NetworkSpec load_link(const SpecCatalog& catalog, const ConfigNode& name) {
  return parse_network_spec(catalog.load("networks", name, "link"), name.as_string());
}

std::string str(long long v) { return std::to_string(v); }

void read_gpu_interconnect(const ConfigNode& ic, NodeSpec& n, const SpecCatalog& catalog) {
  n.gpu_link.kind = ic.get_string("kind");
  if (n.gpu_link.kind == "pcie") {
    if (ic.has("link") || ic.has("links_per_gpu") || ic.has("pairs")) {
      throw ConfigError(ic.loc(), "a pcie GPU interconnect takes its links from the node's pcie section");
    }
    return;
  }
  n.gpu_link_spec = load_link(catalog, ic.at("link"));
  const NetworkSpec& link = *n.gpu_link_spec;
  if (n.gpu_link.kind == "nvswitch") {
    n.nvlinks_per_gpu = static_cast<int>(ic.get_int("links_per_gpu"));
    if (ic.has("pairs")) throw ConfigError(ic.at("pairs").loc(), "an nvswitch node has no per-pair links");
    n.gpu_link.bandwidth = n.nvlinks_per_gpu * link.payload_bandwidth();
    n.gpu_link.latency_s = link.software_latency_s + link.switch_latency_s;
    return;
  }
  // nvlink: explicit pairs.
  if (ic.has("links_per_gpu")) {
    throw ConfigError(ic.at("links_per_gpu").loc(), "links_per_gpu is for nvswitch; list nvlink pairs instead");
  }
  const ConfigNode& pairs = ic.at("pairs");
  std::vector<int> seen(static_cast<std::size_t>(n.gpus) * n.gpus, 0);
  for (const ConfigNode& item : pairs.items()) {
    if (!item.is_sequence() || item.items().size() != 3) {
      throw ConfigError(item.loc(), "an NVLink pair is [gpu, gpu, links], got " + item.describe());
    }
    NvlinkPair p{static_cast<int>(item.items()[0].as_int()), static_cast<int>(item.items()[1].as_int()),
                 static_cast<int>(item.items()[2].as_int())};
    for (int k = 0; k < 2; ++k) {
      const int g = k == 0 ? p.a : p.b;
      if (g < 0 || g >= n.gpus) {
        throw ConfigError(item.items()[k].loc(), "GPU " + str(g) + " is not one of the node's " + str(n.gpus) +
                                                     " GPUs (0.." + str(n.gpus - 1) + ")");
      }
    }
    if (p.a == p.b) throw ConfigError(item.loc(), "an NVLink pair joins two different GPUs");
    if (p.links < 1) throw ConfigError(item.items()[2].loc(), "an NVLink pair has at least 1 link");
    int& dup = seen[static_cast<std::size_t>(std::min(p.a, p.b)) * n.gpus + std::max(p.a, p.b)];
    if (dup++) throw ConfigError(item.loc(), "GPUs " + str(p.a) + " and " + str(p.b) + " are listed twice");
    n.nvlink_pairs.push_back(p);
  }
  n.gpu_link.bandwidth = link.payload_bandwidth();
  n.gpu_link.latency_s = link.software_latency_s;
}

void read_pcie(const ConfigNode& pcie, NodeSpec& n, const SpecCatalog& catalog) {
  n.pcie.link = load_link(catalog, pcie.at("link"));
  n.pcie.lanes = static_cast<int>(pcie.get_int_or("lanes", n.pcie.link->lanes));
  n.pcie.switches = static_cast<int>(pcie.get_int("switches"));
  n.pcie.gpus_per_switch = static_cast<int>(pcie.get_int_or("gpus_per_switch", 0));
  n.pcie.nics_per_switch = static_cast<int>(pcie.get_int_or("nics_per_switch", 0));
  n.pcie.p2p = pcie.get_bool_or("p2p", true);
  auto check_holds = [&](const char* key, int per_switch, int devices, const char* what) {
    if (devices == 0) return;
    if (per_switch < 1 || per_switch * n.pcie.switches < devices) {
      const ConfigNode* at = pcie.find(key);
      throw ConfigError(at ? at->loc() : pcie.loc(),
                        str(n.pcie.switches) + " PCIe switches with " + key + " " + str(per_switch) +
                            " cannot hold the node's " + str(devices) + " " + what);
    }
  };
  check_holds("gpus_per_switch", n.pcie.gpus_per_switch, n.gpus, "GPUs");
  check_holds("nics_per_switch", n.pcie.nics_per_switch, n.nics.count, "NICs");
}

}  // namespace

const Schema& node_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("description", Schema::string(), "free text (not read)", "none"),
      optional("gpu", Schema::string(), "the GPUs' spec: a name in configs/gpus", "none: required when gpus > 0"),
      required("gpus", count(), "GPUs in the node (0: a CPU-only node)"),
      optional("gpu_interconnect",
               Schema::map({
                   required("kind", Schema::one_of({"nvswitch", "nvlink", "pcie"}),
                            "how GPUs reach each other: through NVSwitches, over direct NVLink pairs, or over PCIe"),
                   optional("link", Schema::string(), "the NVLink generation: a name in configs/networks",
                            "none: required for nvswitch and nvlink, refused for pcie"),
                   optional("links_per_gpu", positive_count(), "NVLinks from each GPU into the switch fabric",
                            "none: required for nvswitch, refused otherwise"),
                   optional("pairs", Schema::list(Schema::list(Schema::integer())).non_empty(),
                            "direct links as [gpu, gpu, links], GPUs numbered from 0",
                            "none: required for nvlink, refused otherwise"),
                   optional("collective_sms", positive_count(),
                            "SMs per GPU NCCL's collective kernels hold while they run (fewer than the GPU's SMs)",
                            "0: no contention with compute kernels is modelled"),
               }),
               "how the node's GPUs connect", "none: required when gpus > 0"),
      required("nics", Schema::map({
                           required("count", count(), "network adapters for the cluster network"),
                           required("rate", Schema::quantity(Dimension::bandwidth).positive(),
                                    "each NIC's rate as sold (e.g. 200 Gb/s), per direction"),
                           optional("rails", positive_count(),
                                    "network planes the NICs feed (NIC i is on rail i % rails); at most count",
                                    "count (one rail per NIC), 1 without NICs"),
                           optional("gpudirect_rdma", Schema::boolean(),
                                    "NICs read and write GPU memory directly; false: staged through host memory",
                                    "true when the node has GPUs"),
                       }), "the node's network adapters"),
      required("cpu", Schema::map(cpu_fields({
                          optional("model", Schema::string(), "CPU model name (descriptive)", "none"),
                          required("sockets", positive_count(), "CPU sockets"),
                          required("cores_per_socket", positive_count(), "cores per socket"),
                          optional("threads_per_core", positive_count(), "hardware threads (SMT) per core", "1"),
                          required("clock", Schema::quantity(Dimension::frequency).positive(), "CPU clock"),
                          required("flops_per_socket", Schema::quantity(Dimension::compute_rate).positive(),
                                   "FP64 peak of one socket"),
                          required("memory_bandwidth_per_socket", Schema::quantity(Dimension::bandwidth).positive(),
                                   "host memory bandwidth of one socket"),
                          optional("tdp", Schema::quantity(Dimension::power).positive(),
                                   "each socket's thermal design power: the package's sustained power limit, which "
                                   "an all-core vector load such as HPL holds it at (datasheet)",
                                   "none: no power figure for CPU-only runs"),
                          optional("math", cpu_math_schema(),
                                   "the cores' math units, caches and math library (for inference on the CPU)",
                                   "none: the CPU cannot run a model"),
                      }, cpu_hpc_fields())), "the host CPUs"),
      required("host_memory", Schema::quantity(Dimension::bytes).positive(), "host (CPU) memory of the node"),
      optional("max_power", Schema::quantity(Dimension::power).positive(),
               "the node's maximum system power (datasheet); the power model's budget for its parts",
               "none: a plan refuses the node"),
      optional("pcie", Schema::map({
                           required("link", Schema::string(), "the PCIe generation: a name in configs/networks"),
                           optional("lanes", positive_count(), "lanes per GPU, per NIC and per switch uplink",
                                    "the link spec's lanes"),
                           required("switches", positive_count(), "PCIe switches; each uplinks to the CPU root complex"),
                           optional("gpus_per_switch", positive_count(), "GPUs behind each switch (GPU i on switch i / this)",
                                    "none: required when the node has GPUs"),
                           optional("nics_per_switch", positive_count(), "NICs behind each switch (NIC j on switch j / this)",
                                    "none: required when the node has NICs"),
                           optional("p2p", Schema::boolean(),
                                    "GPU peer-to-peer through the switch; false: staged through host memory", "true"),
                       }),
               "the PCIe tree GPUs and NICs hang off", "not modelled; required when gpu_interconnect.kind is pcie"),
  });
  return schema;
}

NodeSpec parse_node_spec(const ConfigNode& node, std::string name, const SpecCatalog& catalog) {
  node_spec_schema().validate(node);
  NodeSpec n;
  n.name = std::move(name);
  n.gpus = static_cast<int>(node.get_int("gpus"));
  if (n.gpus > 0) {
    if (!node.has("gpu")) throw ConfigError(node.at("gpus").loc(), "a node with GPUs names their spec in `gpu:`");
    if (!node.has("gpu_interconnect")) {
      throw ConfigError(node.at("gpus").loc(), "a node with GPUs describes how they connect in `gpu_interconnect:`");
    }
    const ConfigNode& gpu_name = node.at("gpu");
    n.gpu = parse_gpu_spec(catalog.load("gpus", gpu_name, "GPU"), gpu_name.as_string());
  } else {
    for (const char* key : {"gpu", "gpu_interconnect"}) {
      if (node.has(key)) {  // reported at gpus: the count is the likelier mistake
        throw ConfigError(node.at("gpus").loc(), "gpus is 0 but the node names its `" + std::string(key) +
                                                     "` (" + node.at(key).loc().to_string() + ")");
      }
    }
  }

  const ConfigNode& nics = node.at("nics");
  n.nics.count = static_cast<int>(nics.get_int("count"));
  n.nics.rate_bits = nics.get_quantity("rate", Dimension::bandwidth) * 8.0;
  n.nics.rails = static_cast<int>(nics.get_int_or("rails", std::max(n.nics.count, 1)));
  n.nics.gpudirect_rdma = nics.get_bool_or("gpudirect_rdma", n.gpus > 0);
  if (n.nics.count > 0 && n.nics.rails > n.nics.count) {
    throw ConfigError(nics.at("rails").loc(), str(n.nics.rails) + " rails need at least as many NICs, not " +
                                                  str(n.nics.count));
  }

  const ConfigNode& cpu = node.at("cpu");
  n.cpu.model = cpu.get_string_or("model", "");
  n.cpu.sockets = static_cast<int>(cpu.get_int("sockets"));
  n.cpu.cores_per_socket = static_cast<int>(cpu.get_int("cores_per_socket"));
  n.cpu.threads_per_core = static_cast<int>(cpu.get_int_or("threads_per_core", 1));
  n.cpu.clock_hz = cpu.get_quantity("clock", Dimension::frequency);
  n.cpu.flops_per_socket = cpu.get_quantity("flops_per_socket", Dimension::compute_rate);
  n.cpu.memory_bandwidth_per_socket = cpu.get_quantity("memory_bandwidth_per_socket", Dimension::bandwidth);
  n.cpu.tdp_w = cpu.get_quantity_or("tdp", Dimension::power, 0);
  if (const ConfigNode* math = cpu.find("math")) n.cpu.math = parse_cpu_math(*math);
  n.cpu.hpc = parse_cpu_hpc(cpu);
  n.cpu_sockets = n.cpu.sockets;
  n.cpu_cores_per_socket = n.cpu.cores_per_socket;
  n.host_memory_bytes = node.get_quantity("host_memory", Dimension::bytes);
  n.max_power_w = node.get_quantity_or("max_power", Dimension::power, 0);
  // The power model counts a node's GPUs, or a CPU node's packages, at their TDP and the rest at what max_power
  // leaves: it must leave something.
  const double counted_tdp_w = n.gpus > 0 ? n.gpus * n.gpu.tdp_w : n.cpu.sockets * n.cpu.tdp_w;
  if (n.max_power_w > 0 && n.max_power_w <= counted_tdp_w) {
    throw ConfigError(node.at("max_power").loc(), std::string("max_power must exceed the ") +
                                                      (n.gpus > 0 ? "GPUs'" : "CPU packages'") + " total TDP (" +
                                                      format_quantity(counted_tdp_w, Dimension::power) + ")");
  }

  if (const ConfigNode* pcie = node.find("pcie")) read_pcie(*pcie, n, catalog);
  if (n.gpus > 0) {
    read_gpu_interconnect(node.at("gpu_interconnect"), n, catalog);
    const ConfigNode& ic = node.at("gpu_interconnect");
    n.collective_sms = static_cast<int>(ic.get_int_or("collective_sms", 0));
    if (n.collective_sms >= n.gpu.sm_count) {
      throw ConfigError(ic.at("collective_sms").loc(), "collective_sms must leave SMs for compute: the " + n.gpu.name +
                                                           " has " + std::to_string(n.gpu.sm_count));
    }
    if (n.gpu_link.kind == "pcie" && !n.pcie.modelled()) {
      throw ConfigError(node.at("gpu_interconnect").loc(), "GPUs that talk over PCIe need a `pcie:` section");
    }
  }
  return n;
}

}  // namespace hpcsim
