#include "workloads/hpc/mpi_scenario.h"

#include <cmath>

#include "configs/config_error.h"
#include "mpi_app_parse.h"
#include "workloads/hpc/hpl_gpu.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

namespace {

Schema positive_int() { return Schema::integer().at_least(1); }
std::string str(long long v) { return std::to_string(v); }

// The most square P x Q = ranks with P <= Q, as HPL users choose.
std::pair<int, int> square_grid(int ranks) {
  int p = static_cast<int>(std::sqrt(static_cast<double>(ranks)));
  while (p > 1 && ranks % p != 0) --p;
  return {p, ranks / p};
}

}  // namespace

const Schema& mpi_scenario_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      required("kind", scenario_kind_schema(), "mpi"),
      optional("name", Schema::string(), "the run's name in outputs and the results store", "the file's name"),
      optional("description", Schema::string(), "free text (not read)", "none"),
      required("cluster", cluster_schema(), "the machine: a node type with an HPC description of its CPU (cpu.clocks, ...)"),
      optional("mpi", Schema::map({
                          optional("ranks", positive_int(), "MPI ranks in all", "workload.p x workload.q, else nodes x ranks_per_node"),
                          optional("ranks_per_node", positive_int(), "ranks on each node (filled node by node, in rank order)",
                                   "one per socket"),
                          optional("threads_per_rank", positive_int(), "OpenMP threads of each rank, one core each",
                                   "the node's cores / ranks_per_node"),
                          optional("network_model", Schema::one_of(kMpiNetworkModelNames.names()),
                                   "what times the MPI messages: analytic (LogGP-like costs from the specs) or "
                                   "fabric (each message and all-reduce run as point-to-point flows on the "
                                   "cluster's fair-share network, eager/rendezvous by the network's "
                                   "eager_threshold; docs/mpi.md)",
                                   "analytic"),
                      }),
               "how ranks and threads are placed", "one rank per socket, its cores as threads"),
      required("workload",
               Schema::map({
                   required("app", Schema::one_of(kMpiAppNames.names()),
                            "the application: hpl, hpcg, stencil, spmd, npb (trace is reserved: use hpcsim replay)"),
                   optional("n", Schema::integer().at_least(1), "HPL: matrix order", "memory_fraction of the nodes' memory"),
                   optional("nb", positive_int(), "HPL: block size", "256"),
                   optional("p", positive_int(), "HPL: process rows", "the most square grid of the ranks, P <= Q"),
                   optional("q", positive_int(), "HPL: process columns", "ranks / p"),
                   optional("bcast", Schema::one_of(kHplBcastNames.names()),
                            "HPL: panel broadcast (increasing-ring = 1ring, modified-ring = 1ringM, long = spread-roll)",
                            "modified-ring"),
                   optional("depth", Schema::integer().at_least(0).at_most(1), "HPL: look-ahead depth (0 or 1)", "1"),
                   optional("memory_fraction", Schema::number().positive().at_most(0.95),
                            "HPL: share of the nodes' memory (accelerator gpu: of the GPUs' memory) the matrix fills "
                            "when n is not given", "0.8"),
                   optional("accelerator", Schema::one_of(kHplAcceleratorNames.names()),
                            "HPL: where the trailing update runs: cpu (OpenMP DGEMM on the cores) or gpu (HPL-NVIDIA "
                            "style: one rank per GPU, DGEMM at the GPU's FP64 peak; hpl_gpu.h)", "cpu"),
                   optional("panel", Schema::one_of(kHplPanelNames.names()),
                            "HPL, accelerator gpu: where the panel factorization runs (gpu, or host with PCIe copies)",
                            "gpu"),
                   optional("dgemm_efficiency", Schema::number().positive().at_most(1),
                            "HPL, accelerator gpu: fraction of the GPU's FP64 peak its DGEMM reaches", "0.9"),
                   optional("iterations", positive_int(), "stencil, hpcg, spmd: iterations (hpcg: of its one CG set)",
                            "stencil 100, hpcg 50, spmd 1"),
                   optional("dims", Schema::integer().at_least(2).at_most(3), "stencil: 2 or 3 dimensions", "3"),
                   optional("points", positive_int(), "stencil: 5 or 9 (2D), 7 or 27 (3D) points", "5 (2D), 7 (3D)"),
                   optional("grid", Schema::list(positive_int()), "stencil: global cells per dimension (as many as dims)",
                            "none: required for stencil"),
                   optional("ghost", positive_int(), "stencil: halo layers exchanged (sweep method)", "1"),
                   optional("fields", positive_int(), "stencil: FP64 values per cell, each swept and exchanged", "1"),
                   optional("overlap", Schema::boolean(),
                            "stencil: exchange the halo behind the interior sweep (non-blocking), then the boundary", "false"),
                   optional("method", Schema::one_of(kStencilMethodNames.names()),
                            "stencil: sweep (the stencil itself) or cg (conjugate gradients on its matrix)", "sweep"),
                   optional("local", Schema::list(positive_int()),
                            "hpcg: nx, ny, nz of each rank's box (each a multiple of 2^(levels - 1))",
                            "104 x 104 x 104, or the largest cube below it that fits memory_fraction of a node"),
                   optional("levels", Schema::integer().at_least(1).at_most(6), "hpcg: multigrid levels", "4"),
                   optional("decomposition", Schema::integer().at_least(1).at_most(3),
                            "spmd: dimensions of the process grid halo phases follow", "3"),
                   optional("phases", Schema::list(spmd_phase_schema()).non_empty(),
                            "spmd: the phases every rank runs each iteration, in order", "none: required for spmd"),
                   optional("benchmark", Schema::one_of(kNpbBenchmarkNames.names()),
                            "npb: the NAS Parallel Benchmark (cg, mg, ft, is; docs/hpc.md)", "none: required for npb"),
                   optional("class", Schema::one_of({"S", "W", "A", "B", "C", "D", "E"}),
                            "npb: the problem class (IS: S to D)", "none: required for npb"),
               }),
               "the application and its parameters"),
      optional("measured", measured_schema({Schema::one_of(kMpiMeasuredMetrics), "the report metric the measurement is read in",
                                            Schema::one_of(kMpiValidationCategories), false}),
               "a published measurement (validation cases: configs/validation/hpc/)", "none"),
  });
  return schema;
}

MpiScenario parse_mpi_scenario(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name) {
  mpi_scenario_schema().validate(root);
  MpiScenario s;
  s.name = root.get_string_or("name", default_name);
  const ConfigNode& cluster = root.at("cluster");
  s.cluster = parse_cpu_cluster(cluster, catalog);
  const CpuSpec& cpu = s.cluster.node.cpu;
  // GPU HPL needs the node's GPUs, not an HPC description of its CPU.
  const ConfigNode& w = root.at("workload");
  const ConfigNode* accel = w.find("accelerator");
  const bool gpu_hpl = accel != nullptr && w.at("app").as_string() == "hpl" && accel->as_string() == "gpu";
  if (gpu_hpl && s.cluster.node.gpus == 0) {
    throw ConfigError(accel->loc(), "workload.accelerator gpu needs GPUs; the " + s.cluster.node.name + " node has none");
  }
  if (!gpu_hpl && !cpu.hpc.present()) {
    throw ConfigError(cluster.at("node").loc(), "the " + s.cluster.node.name +
                                                    " node spec has no HPC description of its CPU (cpu.clocks, vector, "
                                                    "memory, dgemm_efficiency); see docs/hpc.md");
  }
  const ConfigNode& app = w.at("app");
  s.app = *kMpiAppNames.parse(app.as_string());
  if (s.app == MpiApp::trace) {
    throw ConfigError(app.loc(), "workload.app 'trace' is not a kind: mpi application: replay a trace with `hpcsim replay`");
  }
  check_app_keys(w, s.app);
  if (const ConfigNode* m = root.find("measured")) s.measured = parse_measured(*m);

  const ConfigNode* mpi = root.find("mpi");
  auto mpi_key = [&](const char* key) { return mpi != nullptr ? mpi->find(key) : nullptr; };
  const int cores = cpu.sockets * cpu.cores_per_socket;
  if (const ConfigNode* nm = mpi_key("network_model")) s.network_model = *kMpiNetworkModelNames.parse(nm->as_string());
  HplConfig& h = s.hpl;
  const int default_rpn = gpu_hpl ? s.cluster.gpus_per_node : cpu.sockets;
  h.ranks_per_node = mpi_key("ranks_per_node") ? static_cast<int>(mpi_key("ranks_per_node")->as_int()) : default_rpn;
  if (gpu_hpl && h.ranks_per_node > s.cluster.gpus_per_node) {
    throw ConfigError(mpi_key("ranks_per_node")->loc(),
                      "GPU HPL runs one rank per GPU: " + str(h.ranks_per_node) + " ranks per node, but " +
                          str(s.cluster.gpus_per_node) + " GPUs per node are used");
  }
  h.threads_per_rank = mpi_key("threads_per_rank") ? static_cast<int>(mpi_key("threads_per_rank")->as_int())
                                                   : std::max(1, cores / h.ranks_per_node);
  // In 64 bits: each count alone may be up to 2^31 - 1 (a fuzz find: 128 x 2147483647 wrapped an int).
  if (const long long needed = static_cast<long long>(h.ranks_per_node) * h.threads_per_rank; needed > cores) {
    const ConfigNode* at = mpi_key("threads_per_rank") ? mpi_key("threads_per_rank") : mpi_key("ranks_per_node");
    throw ConfigError(at->loc(), str(h.ranks_per_node) + " ranks x " + str(h.threads_per_rank) + " threads per node need " +
                                     str(needed) + " cores; a " + s.cluster.node.name +
                                     " has " + str(cores) + " (oversubscription is not modelled)");
  }
  // Ranks and the grid.
  const ConfigNode* p_key = w.find("p");
  const ConfigNode* q_key = w.find("q");
  if ((p_key == nullptr) != (q_key == nullptr)) {
    throw ConfigError((p_key ? p_key : q_key)->loc(), "give both workload.p and workload.q, or neither");
  }
  if (const ConfigNode* ranks = mpi_key("ranks")) {
    s.ranks = static_cast<int>(ranks->as_int());
    if (p_key && p_key->as_int() * q_key->as_int() != s.ranks) {
      throw ConfigError(ranks->loc(), "the HPL grid P x Q = " + str(p_key->as_int()) + " x " + str(q_key->as_int()) +
                                          " = " + str(p_key->as_int() * q_key->as_int()) + " is not mpi.ranks " + str(s.ranks));
    }
  } else if (p_key) {
    s.ranks = static_cast<int>(p_key->as_int() * q_key->as_int());
  } else {
    s.ranks = s.cluster.nodes * h.ranks_per_node;
  }
  if (p_key) {
    h.p = static_cast<int>(p_key->as_int());
    h.q = static_cast<int>(q_key->as_int());
  } else {
    std::tie(h.p, h.q) = square_grid(s.ranks);
  }
  const int nodes_needed = (s.ranks + h.ranks_per_node - 1) / h.ranks_per_node;
  if (nodes_needed > s.cluster.nodes) {
    const ConfigNode* at = mpi_key("ranks") ? mpi_key("ranks") : (p_key ? p_key : &cluster);
    throw ConfigError(at->loc(), str(s.ranks) + " ranks at " + str(h.ranks_per_node) + " per node need " + str(nodes_needed) +
                                     " nodes; the cluster has " + str(s.cluster.nodes) + " (" + str(s.cluster.nodes) +
                                     " x " + str(cores) + " cores)");
  }
  if (s.app != MpiApp::hpl) {
    parse_app(w, s, nodes_needed);
    return s;
  }
  h.nb = static_cast<int>(w.get_int_or("nb", 256));
  if (gpu_hpl) {
    h.accelerator = HplAccelerator::gpu;
    if (const ConfigNode* panel = w.find("panel")) {
      h.panel = *kHplPanelNames.parse(panel->as_string());
      if (h.panel == HplPanel::host && !s.cluster.node.pcie.link) {
        throw ConfigError(panel->loc(), "panel: host copies the panel over PCIe; the " + s.cluster.node.name +
                                            " spec has no pcie.link");
      }
    }
    h.gpu_dgemm_efficiency = w.get_number_or("dgemm_efficiency", kGpuDgemmEfficiency);
  } else {
    for (const char* key : {"panel", "dgemm_efficiency"}) {
      if (const ConfigNode* k = w.find(key)) {
        throw ConfigError(k->loc(), "workload." + std::string(key) + " is read by GPU HPL only (accelerator: gpu)");
      }
    }
  }
  s.memory_fraction = w.get_number_or("memory_fraction", 0.8);
  if (const ConfigNode* n = w.find("n")) {
    h.n = static_cast<double>(n->as_int());
    if (h.nb > h.n) {
      throw ConfigError(w.has("nb") ? w.at("nb").loc() : n->loc(), "NB " + str(h.nb) + " is larger than N " + str(n->as_int()));
    }
    if (gpu_hpl) {
      const double per_gpu = 8.0 * h.n * h.n / s.ranks;
      if (per_gpu > s.cluster.node.gpu.memory_bytes()) {
        throw ConfigError(n->loc(), "an N = " + str(n->as_int()) + " matrix needs " +
                                        str(static_cast<long long>(per_gpu / 1e9)) + " GB per GPU; the " +
                                        s.cluster.node.gpu.name + " has " +
                                        str(static_cast<long long>(s.cluster.node.gpu.memory_bytes() / 1e9)) + " GB");
      }
    }
    const double bytes = 8.0 * h.n * h.n / nodes_needed;
    if (!gpu_hpl && bytes > s.cluster.node.host_memory_bytes) {
      throw ConfigError(n->loc(), "an N = " + str(n->as_int()) + " matrix needs " + str(static_cast<long long>(bytes / 1e9)) +
                                      " GB per node; a " + s.cluster.node.name + " has " +
                                      str(static_cast<long long>(s.cluster.node.host_memory_bytes / 1e9)) + " GB");
    }
  } else {
    s.n_from_memory = true;
    h.n = gpu_hpl ? hpl_n_from_gpu_memory(s.cluster, s.ranks, h.nb, s.memory_fraction)
                  : hpl_n_from_memory(s.cluster, nodes_needed, h.nb, s.memory_fraction);
  }
  if (const ConfigNode* b = w.find("bcast")) h.bcast = *kHplBcastNames.parse(b->as_string());
  h.depth = static_cast<int>(w.get_int_or("depth", 1));
  return s;
}

RankLayout mpi_rank_layout(const MpiScenario& s) {
  return rank_layout(s.cluster.node.cpu, s.ranks, s.hpl.ranks_per_node, s.hpl.threads_per_rank, s.cluster.nodes);
}

SpmdResult simulate_mpi_app(const MpiScenario& s, const MpiComm& comm) {
  return simulate_spmd(s.cluster, mpi_rank_layout(s), s.spmd, comm);
}

}  // namespace hpcsim
