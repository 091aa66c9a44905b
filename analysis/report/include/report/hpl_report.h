#pragma once
// The metric list of a `kind: mpi` HPL run, whose names are its JSON contract:
//   rmax_tflops, rpeak_tflops, efficiency, time_s, gflops,
//   hpl.{n, nb, p, q, depth, n_from_memory}, placement.{nodes, ranks, ranks_per_node, threads_per_rank},
//   breakdown.{update_s, panel_s, bcast_s, swap_s, exposed_s}, memory.matrix_bytes_per_node
#include <string>
#include <vector>

#include "store/metric.h"
#include "workloads/hpc/mpi_scenario.h"

namespace hpcsim {

std::vector<Metric> hpl_metrics(const MpiScenario& scenario, const HplResult& result);
Report hpl_report(const MpiScenario& scenario, const HplResult& result);

}  // namespace hpcsim
