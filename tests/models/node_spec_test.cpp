#include <catch2/catch.hpp>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/node/node_spec.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

bool gpu_shipped(const std::string& name) {
  for (const std::string& g : catalog().names("gpus")) {
    if (g == name) return true;
  }
  return false;
}

NodeSpec shipped(const std::string& name) {
  return parse_node_spec(catalog().load("nodes", ConfigNode::make_scalar(name, {}), "node"), name, catalog());
}

// A node written inline on top of a shipped one (its GPU spec must ship).
std::string error_of(const std::string& yaml) {
  const ConfigNode base = catalog().load("nodes", ConfigNode::make_scalar("dgx-a100-80gb", {}), "node");
  try {
    parse_node_spec(merge_configs(base, parse_config_text(yaml, "node.yaml")), "node", catalog());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

// A complete A100 node whose GPU interconnect is `interconnect` (YAML lines).
std::string with_interconnect(const std::string& interconnect) {
  const std::string yaml = "gpu: a100-sxm4-80gb\ngpus: 8\ngpu_interconnect:\n" + interconnect +
                           "nics: {count: 1, rate: 100 Gb/s}\n"
                           "cpu: {sockets: 1, cores_per_socket: 8, clock: 2 GHz, flops_per_socket: 1 TFLOP/s, "
                           "memory_bandwidth_per_socket: 100 GB/s}\nhost_memory: 64 GiB\n";
  try {
    parse_node_spec(parse_config_text(yaml, "node.yaml"), "node", catalog());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("Every node the issue names ships with its GPU, CPU, PCIe and NIC description", "[node][specs]") {
  const std::vector<std::pair<std::string, std::string>> nodes = {
      {"dgx-1p", "p100-sxm2-16gb"},       {"dgx-1v-16gb", "v100-sxm2-16gb"}, {"dgx-1v-32gb", "v100-sxm2-32gb"},
      {"dgx-2h", "v100-sxm3-32gb"},       {"dgx-a100-40gb", "a100-sxm4-40gb"}, {"dgx-a100-80gb", "a100-sxm4-80gb"},
      {"dgx-h100", "h100-sxm5-80gb"},     {"hgx-h200", "h200-sxm-141gb"},   {"p4d-24xlarge", "a100-sxm4-40gb"},
      {"cpu-2s-generic", ""},             {"c7g", ""}};
  for (const auto& [name, gpu] : nodes) {
    INFO(name);
    if (!gpu.empty() && !gpu_shipped(gpu)) {
      WARN(name << ": GPU spec " << gpu << " is not in configs/gpus yet; node not parsed");
      continue;
    }
    const NodeSpec n = shipped(name);
    CHECK(n.cpu.sockets >= 1);
    CHECK(n.cpu.flops_per_socket > 0);
    CHECK(n.cpu.memory_bandwidth_per_socket > 0);
    CHECK(n.host_memory_bytes > 0);
    CHECK(n.nics.count >= 1);
    if (!gpu.empty()) {
      CHECK(n.gpu.name == gpu);
      CHECK(n.pcie.modelled());
      CHECK(n.gpu_link.bandwidth > 0);
    } else {
      CHECK(n.gpus == 0);
    }
  }
}

TEST_CASE("NVSwitch nodes get their per-GPU bandwidth from link count and link technology", "[node][specs]") {
  const NodeSpec a100 = shipped("dgx-a100-80gb");
  CHECK(a100.gpu_link.kind == "nvswitch");
  // 12 NVLink3 links x 25 GB/s, at the 128 B / 160 B payload share NCCL's SM stores see: 240 GB/s.
  CHECK(a100.gpu_link.bandwidth == Approx(240e9).epsilon(1e-6));
  CHECK(a100.nics.count == 8);
  CHECK(a100.nics.rails == 8);
  CHECK(a100.nics.gpudirect_rdma);
  CHECK(a100.pcie_switch_of_gpu(3) == a100.pcie_switch_of_nic(3));
  CHECK(a100.pcie_switch_of_gpu(3) != a100.pcie_switch_of_nic(4));
  CHECK(a100.cpu.flops_per_socket == Approx(64 * 2.25e9 * 16));
  if (gpu_shipped("h100-sxm5-80gb")) CHECK(shipped("dgx-h100").gpu_link.bandwidth == Approx(360e9).epsilon(1e-6));
}

TEST_CASE("DGX-1V is a hybrid cube-mesh of NVLink pairs, six links per GPU", "[node][specs]") {
  if (!gpu_shipped("v100-sxm2-32gb")) {
    WARN("v100-sxm2-32gb is not shipped yet");
    return;
  }
  const NodeSpec n = shipped("dgx-1v-32gb");
  CHECK(n.gpu_link.kind == "nvlink");
  std::vector<int> links(8, 0);
  for (const NvlinkPair& p : n.nvlink_pairs) {
    links[p.a] += p.links;
    links[p.b] += p.links;
  }
  for (int g = 0; g < 8; ++g) CHECK(links[g] == 6);
}

TEST_CASE("Current accelerator nodes: NVL72 is one NVLink domain, the AMD and Gaudi platforms full meshes", "[node][specs]") {
  // DGX B200 and the GB200 NVL72 rack: NVLink 5, 18 links per GPU x 50 GB/s at NCCL's 128/160 payload share.
  const NodeSpec b200 = shipped("dgx-b200");
  CHECK(b200.gpus == 8);
  CHECK(b200.gpu.name == "b200");
  CHECK(b200.gpu_link.kind == "nvswitch");
  CHECK(b200.gpu_link.bandwidth == Approx(18 * 50e9 * 128 / 160).epsilon(1e-6));
  const NodeSpec nvl72 = shipped("gb200-nvl72");
  CHECK(nvl72.gpus == 72);
  CHECK(nvl72.gpu_link.kind == "nvswitch");
  CHECK(nvl72.gpu_link.bandwidth == Approx(b200.gpu_link.bandwidth));
  CHECK(nvl72.nics.count == 72);
  CHECK(nvl72.cpu.sockets == 36);
  // Blackwell Ultra: DGX B300 and the GB300 NVL72 rack keep the NVLink 5 fabric; their NICs are ConnectX-8 XDR.
  const NodeSpec b300 = shipped("dgx-b300");
  CHECK(b300.gpus == 8);
  CHECK(b300.gpu.name == "b300");
  CHECK(b300.gpu_link.kind == "nvswitch");
  CHECK(b300.gpu_link.bandwidth == Approx(b200.gpu_link.bandwidth));
  CHECK(b300.nics.count == 8);
  CHECK(b300.nics.rate_bits == 800e9);
  CHECK(b300.cpu.model == "Intel Xeon 6776P");
  const NodeSpec gb300 = shipped("gb300-nvl72");
  CHECK(gb300.gpus == 72);
  CHECK(gb300.gpu.name == "gb300");
  CHECK(gb300.gpu_link.bandwidth == Approx(b200.gpu_link.bandwidth));
  CHECK(gb300.nics.count == 72);
  CHECK(gb300.nics.rate_bits == 800e9);
  // A full mesh: every pair of the 8 GPUs has its own link(s), no switch.
  for (const auto& [name, links_per_pair] : std::vector<std::pair<std::string, int>>{{"mi300x-8gpu", 1}, {"mi325x-8gpu", 1}, {"mi350x-8gpu", 1}, {"mi355x-8gpu", 1}, {"hls-gaudi2", 3}, {"hls-gaudi3", 3}}) {
    INFO(name);
    const NodeSpec n = shipped(name);
    CHECK(n.gpu_link.kind == "nvlink");
    std::vector<std::vector<int>> seen(8, std::vector<int>(8, 0));
    for (const NvlinkPair& p : n.nvlink_pairs) {
      seen[p.a][p.b] += p.links;
      seen[p.b][p.a] += p.links;
    }
    for (int a = 0; a < 8; ++a) {
      for (int b = 0; b < 8; ++b) CHECK(seen[a][b] == (a == b ? 0 : links_per_pair));
    }
  }
  CHECK(shipped("mi325x-8gpu").gpu.name == "mi325x");
  CHECK(shipped("hls-gaudi2").nics.count == 24);
  // The MI350 series' links are 76.8 GB/s per direction against the MI300 series' 64 (1.2x); Gaudi 3's ports
  // are 200 GbE where Gaudi 2's are 100 GbE (2x).
  CHECK(shipped("mi355x-8gpu").gpu.name == "mi355x");
  CHECK(shipped("mi350x-8gpu").gpu.name == "mi350x");
  CHECK(shipped("mi355x-8gpu").gpu_link.bandwidth == Approx(1.2 * shipped("mi325x-8gpu").gpu_link.bandwidth));
  CHECK(shipped("hls-gaudi3").gpu.name == "gaudi3");
  CHECK(shipped("hls-gaudi3").gpu_link.bandwidth == Approx(2 * shipped("hls-gaudi2").gpu_link.bandwidth));
  CHECK(shipped("hls-gaudi3").nics.rate_bits == 200e9);
}

TEST_CASE("A CPU-only node has no GPU and no GPU interconnect", "[node][specs]") {
  const NodeSpec c7g = shipped("c7g");
  CHECK(c7g.gpus == 0);
  CHECK(c7g.cpu.sockets == 1);
  CHECK(c7g.cpu.cores_per_socket == 64);
  CHECK(c7g.cpu.threads_per_core == 1);  // unset: no SMT assumed
  CHECK_FALSE(c7g.nics.gpudirect_rdma);
  CHECK(shipped("dgx-a100-80gb").cpu.threads_per_core == 2);  // EPYC 7742: 64 cores, 128 threads
}

TEST_CASE("Inconsistent node specs are errors at the offending key", "[node][errors]") {
  CHECK_THAT(error_of("cpu:\n  threads_per_core: 0\n"), Catch::Contains("node.yaml:2:21:"));
  CHECK_THAT(error_of("pcie:\n  gpus_per_switch: 1\n"),
             Catch::Contains("node.yaml:2:20:") && Catch::Contains("cannot hold the node's 8 GPUs"));
  CHECK_THAT(with_interconnect("  kind: nvlink\n  link: nvlink3\n  pairs: [[0, 8, 1]]\n"),
             Catch::Contains("node.yaml:6:15:") && Catch::Contains("GPU 8 is not one of"));
  CHECK_THAT(with_interconnect("  kind: nvlink\n  link: nvlink3\n  pairs: [[0, 1]]\n"),
             Catch::Contains("[gpu, gpu, links]"));
  CHECK_THAT(with_interconnect("  kind: nvlink\n  link: nvlink3\n  pairs: [[0, 1, 1], [1, 0, 2]]\n"),
             Catch::Contains("listed twice"));
  CHECK_THAT(with_interconnect("  kind: pcie\n"), Catch::Contains("need a `pcie:` section"));
  CHECK(with_interconnect("  kind: nvlink\n  link: nvlink3\n  pairs: [[0, 1, 2]]\n") == "no error");
  CHECK_THAT(error_of("gpu_interconnect:\n  link: nvlink9\n"), Catch::Contains("node.yaml:2:9:"));
  CHECK_THAT(error_of("nics:\n  rails: 9\n"), Catch::Contains("node.yaml:2:10:") && Catch::Contains("9 rails"));
  CHECK_THAT(error_of("gpus: 0\n"), Catch::Contains("node.yaml:1:7: gpus is 0 but the node names its `gpu`"));
}
