#pragma once
// The metric list of a `kind: mpi` run of the stencil, HPCG and SPMD applications, whose names are its JSON
// contract (per iteration where named so):
//   time_s, iteration_s, iterations, tflops, gflops,
//   placement.{nodes, ranks, ranks_per_node, threads_per_rank}, grid.{px, py, pz},
//   breakdown.{compute_s, halo_s, allreduce_s, alltoall_s, p2p_s, exposed_comm_s} (one iteration),
//   traffic.{halo_bytes_per_rank, offnode_bytes_per_node} (one iteration),
//   stencil: stencil.{cells, grind_ns} (time per iteration per cell and field);
//   hpcg: hpcg.{nx, ny, nz, levels, rows, nonzeros} (tflops is HPCG's rating: its reference operation count)
//   npb: npb.{mop, mops_total} (the benchmark's own operation count in millions and NPB's "Mop/s total" for
//   the time; tflops is the model's FLOP count over the time, not NPB's)
#include <vector>

#include "store/metric.h"
#include "workloads/hpc/mpi_scenario.h"
#include "workloads/hpc/spmd_program.h"

namespace hpcsim {

std::vector<Metric> spmd_metrics(const MpiScenario& scenario, const SpmdResult& result);
Report spmd_report(const MpiScenario& scenario, const SpmdResult& result);

}  // namespace hpcsim
