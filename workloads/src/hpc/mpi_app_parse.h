#pragma once
// The `kind: mpi` workload keys of the applications other than HPL (mpi_scenario.cpp reads the cluster,
// the placement and HPL's keys): which keys belong to which application, and the stencil, HPCG and SPMD
// parameters, each error at its key.
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "workloads/hpc/mpi_scenario.h"

namespace hpcsim {

// The metrics a `measured:` section of an MPI case may be read in.
inline const std::vector<std::string> kMpiMeasuredMetrics{"rmax_tflops", "tflops", "gflops", "time_s", "iteration_s",
                                                          "stencil.grind_ns", "npb.mops_total"};

// One entry of workload.phases: exactly one of compute, halo, allreduce, alltoall, p2p, and `overlap`.
Schema spmd_phase_schema();

// ConfigError at a workload key that another application reads (e.g. nb for a stencil).
void check_app_keys(const ConfigNode& workload, MpiApp app);

// Fills s.stencil, s.hpcg or s.spmd from the workload map (s.ranks and s.hpl's placement are set).
void parse_app(const ConfigNode& workload, MpiScenario& s, int nodes);

}  // namespace hpcsim
