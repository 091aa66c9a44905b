#pragma once
// A `kind: mpi` scenario (docs/hpc.md): an MPI (+ OpenMP) application on a cluster of CPU nodes. The
// `cluster:` section is every kind's; `mpi:` places the ranks (ranks per node, OpenMP threads per rank);
// `workload:` names the application (`app:`) and its parameters: hpl (hpl_model.h), hpcg (hpcg_app.h),
// stencil (stencil_app.h, with CG as `method: cg`), npb (NAS Parallel Benchmarks CG, MG, FT, IS: npb_app.h) and spmd (phases written in YAML, spmd_program.h); trace
// is reserved (MPI trace replay is `hpcsim replay`). A `measured:` section makes the file a validation case
// (configs/validation/hpc/, categories hpl, hpcg, stencil, npb).
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "models/platform/cluster_config.h"
#include "workloads/hpc/hpcg_app.h"
#include "workloads/hpc/hpl_model.h"
#include "workloads/hpc/npb_app.h"
#include "workloads/hpc/spmd_program.h"
#include "workloads/hpc/stencil_app.h"
#include "workloads/measured.h"

namespace hpcsim {

enum class MpiApp { hpl, hpcg, stencil, spmd, trace, npb };
inline constexpr EnumNames<MpiApp, 6> kMpiAppNames{{{
    {MpiApp::hpl, "hpl"}, {MpiApp::hpcg, "hpcg"}, {MpiApp::stencil, "stencil"}, {MpiApp::spmd, "spmd"},
    {MpiApp::trace, "trace"}, {MpiApp::npb, "npb"}}}};

// What times the application's messages (mpi.network_model): AnalyticMpiComm (mpi_comm.h) or
// FabricMpiComm (fabric_mpi_comm.h: MpiWorld on the cluster's fair-share fabric).
enum class MpiNetworkModel { analytic, fabric };
inline constexpr EnumNames<MpiNetworkModel, 2> kMpiNetworkModelNames{{{
    {MpiNetworkModel::analytic, "analytic"}, {MpiNetworkModel::fabric, "fabric"}}}};

struct MpiScenario {
  std::string name;
  ClusterConfig cluster;
  MpiApp app = MpiApp::hpl;
  int ranks = 0;
  MpiNetworkModel network_model = MpiNetworkModel::analytic;
  HplConfig hpl;       // app hpl: the grid, N (chosen from memory when not given), NB, broadcast, depth
  bool n_from_memory = false;
  double memory_fraction = 0.8;
  // The other applications: ranks, ranks per node and threads per rank are hpl's (above).
  StencilConfig stencil;
  HpcgConfig hpcg;
  NpbConfig npb;             // app npb: the benchmark and its class (npb_app.h)
  SpmdProgram spmd;          // app spmd: the phases read from YAML, its grid from workload.decomposition
  std::vector<std::string> notes;  // defaults chosen for the user (printed on stderr by `hpcsim run`)
  std::optional<Measurement> measured;
};

// The categories an MPI validation case is scored in.
inline const std::vector<std::string> kMpiValidationCategories{"hpl", "hpcg", "stencil", "npb"};

const Schema& mpi_scenario_schema();

// Reads and checks a `kind: mpi` scenario; ConfigError at file:line:column for: a node without an HPC
// description of its CPU, P x Q that is not mpi.ranks, NB larger than N, more ranks x threads per node than
// the node has cores, more nodes than the cluster has, an application not built yet, a key of another
// application, a stencil or HPCG problem that does not fit the nodes' memory, an SPMD phase that names no
// or several kinds.
MpiScenario parse_mpi_scenario(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name);

// A parsed stencil, HPCG or SPMD scenario's program on its ranks (hpl runs through simulate_hpl).
RankLayout mpi_rank_layout(const MpiScenario& scenario);
SpmdResult simulate_mpi_app(const MpiScenario& scenario, const MpiComm& comm);

}  // namespace hpcsim
