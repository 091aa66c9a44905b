#include "mpi_app_parse.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "configs/config_error.h"
#include "models/cpu/omp_region.h"

namespace hpcsim {

namespace {

std::string str(long long v) { return std::to_string(v); }
// A size in GB for a message, whatever its magnitude.
std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", bytes / 1e9);
  return buf;
}

struct KeyOwner {
  std::string_view key;
  std::vector<MpiApp> apps;
};

// Every workload key but `app`, and the applications that read it.
const std::vector<KeyOwner>& key_owners() {
  static const std::vector<KeyOwner> owners{
      {"n", {MpiApp::hpl}},           {"nb", {MpiApp::hpl}},          {"p", {MpiApp::hpl}},
      {"q", {MpiApp::hpl}},           {"bcast", {MpiApp::hpl}},       {"depth", {MpiApp::hpl}},
      {"memory_fraction", {MpiApp::hpl, MpiApp::hpcg}},
      {"accelerator", {MpiApp::hpl}}, {"panel", {MpiApp::hpl}}, {"dgemm_efficiency", {MpiApp::hpl}},
      {"iterations", {MpiApp::stencil, MpiApp::hpcg, MpiApp::spmd}},
      {"dims", {MpiApp::stencil}},    {"points", {MpiApp::stencil}},  {"grid", {MpiApp::stencil}},
      {"ghost", {MpiApp::stencil}},   {"fields", {MpiApp::stencil}},  {"overlap", {MpiApp::stencil}},
      {"method", {MpiApp::stencil}},  {"local", {MpiApp::hpcg}},      {"levels", {MpiApp::hpcg}},
      {"decomposition", {MpiApp::spmd}}, {"phases", {MpiApp::spmd}},
      {"benchmark", {MpiApp::npb}},   {"class", {MpiApp::npb}},
  };
  return owners;
}

Schema non_negative() { return Schema::number().at_least(0); }

void parse_stencil(const ConfigNode& w, MpiScenario& s, int nodes) {
  StencilConfig& c = s.stencil;
  c.dims = static_cast<int>(w.get_int_or("dims", 3));
  c.points = static_cast<int>(w.get_int_or("points", c.dims == 2 ? 5 : 7));
  if (!stencil_points_valid(c.dims, c.points)) {
    throw ConfigError(w.find("points") ? w.at("points").loc() : w.at("dims").loc(),
                      "a " + str(c.dims) + "D stencil of " + str(c.points) + " points is not modelled: " +
                          (c.dims == 2 ? "5 or 9" : "7 or 27") + " points in " + str(c.dims) + "D");
  }
  const ConfigNode& grid = w.at("grid");
  if (static_cast<int>(grid.items().size()) != c.dims) {
    throw ConfigError(grid.loc(), "workload.grid has " + str(static_cast<long long>(grid.items().size())) +
                                      " numbers; a " + str(c.dims) + "D stencil needs " + str(c.dims));
  }
  c.grid = {1, 1, 1};
  for (int d = 0; d < c.dims; ++d) c.grid[d] = static_cast<double>(grid.items()[d].as_int());
  c.ghost = static_cast<int>(w.get_int_or("ghost", 1));
  c.fields = static_cast<int>(w.get_int_or("fields", 1));
  c.iterations = w.get_int_or("iterations", 100);
  c.overlap = w.get_bool_or("overlap", false);
  if (const ConfigNode* m = w.find("method")) c.method = *kStencilMethodNames.parse(m->as_string());
  const double cells = c.grid[0] * c.grid[1] * c.grid[2];
  if (cells < s.ranks) {
    throw ConfigError(grid.loc(), "a grid of " + str(static_cast<long long>(cells)) + " cells for " + str(s.ranks) +
                                      " ranks leaves ranks without a cell");
  }
  const ProcessGrid g = balanced_grid(s.ranks, c.dims, c.grid);
  const std::array<double, 3> box = stencil_box(c, g);
  for (int d = 0; d < c.dims; ++d) {
    if (g.dims[d] > 1 && box[d] < c.ghost) {
      throw ConfigError(w.find("ghost") ? w.at("ghost").loc() : grid.loc(),
                        "ghost width " + str(c.ghost) + " is wider than a rank's box (" +
                            str(static_cast<long long>(box[d])) + " cells across dimension " + str(d + 1) + ")");
    }
  }
  // Two arrays of the fields (the sweep's source and target; CG's x, r, p, Ap and the matrix's values and
  // indices at 12 bytes per nonzero) on each node.
  const double per_cell = c.method == StencilMethod::cg ? 4 * 8.0 + 12.0 * c.points : 2 * 8.0 * c.fields;
  const double bytes = cells * per_cell / nodes;
  if (bytes > s.cluster.node.host_memory_bytes) {
    throw ConfigError(grid.loc(), "the grid needs " + gb(bytes) + " GB per node; a " +
                                      s.cluster.node.name + " has " +
                                      str(static_cast<long long>(s.cluster.node.host_memory_bytes / 1e9)) + " GB");
  }
  s.spmd = stencil_program(c, s.ranks);
}

void parse_hpcg(const ConfigNode& w, MpiScenario& s) {
  HpcgConfig& c = s.hpcg;
  c.levels = static_cast<int>(w.get_int_or("levels", 4));
  c.iterations = w.get_int_or("iterations", 50);
  const double memory = w.get_number_or("memory_fraction", 0.8) * s.cluster.node.host_memory_bytes;
  const int rpn = std::min(s.hpl.ranks_per_node, s.ranks);
  const int step = 1 << (c.levels - 1);
  if (const ConfigNode* local = w.find("local")) {
    if (local->items().size() != 3) {
      throw ConfigError(local->loc(), "workload.local has " + str(static_cast<long long>(local->items().size())) +
                                          " numbers; HPCG's box needs 3 (nx, ny, nz)");
    }
    for (int d = 0; d < 3; ++d) c.local[d] = static_cast<int>(local->items()[d].as_int());
    if (!hpcg_local_valid(c.local, c.levels)) {
      throw ConfigError(local->loc(), "HPCG's box must be a multiple of " + str(step) + " (and at least " + str(2 * step) +
                                          ") in every dimension for " + str(c.levels) + " multigrid levels");
    }
    const double bytes = hpcg_bytes_per_rank(c.local, c.levels) * rpn;
    if (bytes > memory) {
      throw ConfigError(local->loc(), "HPCG boxes of " + str(c.local[0]) + " x " + str(c.local[1]) + " x " + str(c.local[2]) +
                                          " on " + str(rpn) + " ranks need about " + gb(bytes) +
                                          " GB per node; a " + s.cluster.node.name + " has " +
                                          str(static_cast<long long>(s.cluster.node.host_memory_bytes / 1e9)) + " GB");
    }
  } else {
    // HPCG's default box, or the largest cube below it (a multiple of the coarsening step) that fits.
    int n = 104 / step * step;
    while (n > 2 * step && hpcg_bytes_per_rank({n, n, n}, c.levels) * rpn > memory) n -= step;
    if (hpcg_bytes_per_rank({n, n, n}, c.levels) * rpn > memory) {
      throw ConfigError(w.at("app").loc(), "no HPCG box fits " + str(rpn) + " ranks in a " + s.cluster.node.name + "'s memory");
    }
    c.local = {n, n, n};
    if (n != 104) {
      s.notes.push_back("HPCG box " + str(n) + "^3 per rank: 104^3 does not fit " + str(rpn) + " ranks in a node's memory");
    }
  }
  s.spmd = hpcg_program(c, s.ranks);
}

void parse_npb(const ConfigNode& w, MpiScenario& s, int nodes) {
  NpbConfig& c = s.npb;
  const ConfigNode& bench = w.at("benchmark");
  c.benchmark = *kNpbBenchmarkNames.parse(bench.as_string());
  const ConfigNode& cls = w.at("class");
  const std::string name = cls.as_string();
  c.npb_class = name.size() == 1 ? name[0] : '\0';
  if (!npb_class_valid(c.benchmark, c.npb_class)) {
    throw ConfigError(cls.loc(), "NPB " + std::string(kNpbBenchmarkNames.name(c.benchmark)) + " has classes " +
                                     npb_classes(c.benchmark) + ", not '" + name + "'");
  }
  if (!npb_ranks_valid(s.ranks)) {
    throw ConfigError(bench.loc(), "NPB " + std::string(kNpbBenchmarkNames.name(c.benchmark)) +
                                       " runs on a power-of-two number of ranks, not " + str(s.ranks));
  }
  if (static_cast<double>(s.ranks) > npb_max_ranks(c)) {
    throw ConfigError(bench.loc(), "NPB " + std::string(kNpbBenchmarkNames.name(c.benchmark)) + " class " + name +
                                       " runs on at most " + str(static_cast<long long>(npb_max_ranks(c))) +
                                       " ranks in this model (" + str(s.ranks) + " asked)");
  }
  const double bytes = npb_footprint_bytes(c) / nodes;
  if (bytes > s.cluster.node.host_memory_bytes) {
    throw ConfigError(cls.loc(), "NPB " + std::string(kNpbBenchmarkNames.name(c.benchmark)) + " class " + name + " needs " +
                                     gb(bytes) + " GB per node; a " + s.cluster.node.name + " has " +
                                     str(static_cast<long long>(s.cluster.node.host_memory_bytes / 1e9)) + " GB");
  }
  const CpuSpec& cpu = s.cluster.node.cpu;
  const double cache = cpu.hpc.caches.l2_per_core + cpu.hpc.caches.l3_per_socket / cpu.cores_per_socket;
  s.spmd = npb_program(c, s.ranks, cache);
}

HpcKernel kernel_of(const ConfigNode& compute) {
  const ConfigNode* k = compute.find("kernel");
  return k ? *kHpcKernelNames.parse(k->as_string()) : HpcKernel::stencil;
}

void parse_spmd(const ConfigNode& w, MpiScenario& s) {
  const ConfigNode* phases = w.find("phases");
  if (phases == nullptr) throw ConfigError(w.loc(), "app spmd needs workload.phases (compute and communication phases)");
  SpmdProgram& p = s.spmd;
  p.iterations = w.get_int_or("iterations", 1);
  p.grid = balanced_grid(s.ranks, static_cast<int>(w.get_int_or("decomposition", 3)), {1, 1, 1});
  const std::vector<ConfigNode>& items = phases->items();
  for (std::size_t i = 0; i < items.size(); ++i) {
    const ConfigNode& item = items[i];
    SpmdPhase ph;
    int kinds = 0;
    for (const auto& [kind, name] : kSpmdPhaseNames.entries) {
      if (item.find(name) != nullptr) {
        ph.kind = kind;
        ++kinds;
      }
    }
    if (kinds != 1) {
      throw ConfigError(item.loc(), "a phase names exactly one of compute, halo, allreduce, alltoall, p2p (this one " +
                                        std::string(kinds == 0 ? "none" : "several") + ")");
    }
    const ConfigNode& body = item.at(kSpmdPhaseNames.name(ph.kind));
    switch (ph.kind) {
      case SpmdPhaseKind::compute:
        ph.work.kernel = kernel_of(body);
        ph.work.flops = body.get_number("flops");
        ph.work.bytes = body.get_number("bytes");
        break;
      case SpmdPhaseKind::halo:
        for (int d = 0; d < 3; ++d) {
          ph.halo.face[d] = body.get_number("bytes");
          ph.halo.edge[d] = body.get_number_or("edge_bytes", 0);
        }
        ph.halo.corner = body.get_number_or("corner_bytes", 0);
        break;
      case SpmdPhaseKind::p2p:
        ph.distance = body.get_int_or("distance", 1);
        ph.bytes = body.get_number("bytes");
        break;
      case SpmdPhaseKind::allreduce:
      case SpmdPhaseKind::alltoall: ph.bytes = body.get_number("bytes"); break;
    }
    if (const ConfigNode* o = item.find("overlap"); o != nullptr && o->as_bool()) {
      if (ph.kind == SpmdPhaseKind::compute) {
        throw ConfigError(o->loc(), "overlap marks a communication phase that runs behind the next compute phase; this is a "
                                    "compute phase");
      }
      if (i + 1 >= items.size() || items[i + 1].find("compute") == nullptr) {
        throw ConfigError(o->loc(), "an overlapped phase runs behind the compute phase that follows it; none follows");
      }
      ph.overlap = true;
    }
    p.iteration.push_back(ph);
  }
}

}  // namespace

Schema spmd_phase_schema() {
  auto bytes = [](const char* meaning) { return required("bytes", non_negative(), meaning); };
  return Schema::map({
      optional("compute",
               Schema::map({required("flops", non_negative(), "FP64 FLOPs of one rank"),
                            required("bytes", non_negative(), "bytes one rank moves to and from memory"),
                            optional("kernel", Schema::one_of(kHpcKernelNames.names()),
                                     "the kernel's compute rate (dgemm at the vector clock and the spec's DGEMM "
                                     "efficiency; the others bandwidth-bound)",
                                     "stencil")}),
               "an OpenMP region on the rank's threads", "none"),
      optional("halo",
               Schema::map({bytes("to each face neighbour in the process grid"),
                            optional("edge_bytes", non_negative(), "to each edge neighbour (2D/3D grids)", "0: none"),
                            optional("corner_bytes", non_negative(), "to each corner neighbour (3D grids)", "0: none")}),
               "exchange with the neighbours in the process grid (workload.decomposition)", "none"),
      optional("allreduce", Schema::map({bytes("the reduced vector")}), "an all-reduce over every rank", "none"),
      optional("alltoall", Schema::map({bytes("to each other rank")}), "a pairwise all-to-all", "none"),
      optional("p2p",
               Schema::map({bytes("the message"),
                            optional("distance", Schema::integer().at_least(1), "rank r exchanges with rank r xor distance",
                                     "1")}),
               "one message between partner ranks", "none"),
      optional("overlap", Schema::boolean(), "run this communication behind the compute phase that follows", "false"),
  });
}

void check_app_keys(const ConfigNode& w, MpiApp app) {
  for (const KeyOwner& o : key_owners()) {
    const ConfigNode* v = w.find(o.key);
    if (v == nullptr || std::find(o.apps.begin(), o.apps.end(), app) != o.apps.end()) continue;
    std::string readers;
    for (const MpiApp a : o.apps) readers += (readers.empty() ? "" : ", ") + std::string(kMpiAppNames.name(a));
    throw ConfigError(v->loc(), "workload." + std::string(o.key) + " is read by " + readers + ", not by app " +
                                    std::string(kMpiAppNames.name(app)));
  }
}

void parse_app(const ConfigNode& w, MpiScenario& s, int nodes) {
  switch (s.app) {
    case MpiApp::stencil: parse_stencil(w, s, nodes); break;
    case MpiApp::hpcg: parse_hpcg(w, s); break;
    case MpiApp::spmd: parse_spmd(w, s); break;
    case MpiApp::npb: parse_npb(w, s, nodes); break;
    case MpiApp::hpl:
    case MpiApp::trace: break;
  }
}

}  // namespace hpcsim
