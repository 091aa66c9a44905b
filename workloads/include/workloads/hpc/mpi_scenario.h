#pragma once
// A `kind: mpi` scenario (docs/hpc.md): an MPI (+ OpenMP) application on a cluster of CPU nodes. The
// `cluster:` section is every kind's; `mpi:` places the ranks (ranks per node, OpenMP threads per rank);
// `workload:` names the application (`app:`) and its parameters. HPL is built; the other application
// names are reserved and refused at the key until they are.
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/enum_names.h"
#include "configs/schema.h"
#include "models/platform/cluster_config.h"
#include "workloads/hpc/hpl_model.h"

namespace hpcsim {

enum class MpiApp { hpl, hpcg, stencil, spmd, trace };
inline constexpr EnumNames<MpiApp, 5> kMpiAppNames{{{
    {MpiApp::hpl, "hpl"}, {MpiApp::hpcg, "hpcg"}, {MpiApp::stencil, "stencil"}, {MpiApp::spmd, "spmd"},
    {MpiApp::trace, "trace"}}}};

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
};

const Schema& mpi_scenario_schema();

// Reads and checks a `kind: mpi` scenario; ConfigError at file:line:column for: a node without an HPC
// description of its CPU, P x Q that is not mpi.ranks, NB larger than N, more ranks x threads per node than
// the node has cores, more nodes than the cluster has, an application not built yet.
MpiScenario parse_mpi_scenario(const ConfigNode& root, const SpecCatalog& catalog, const std::string& default_name);

}  // namespace hpcsim
