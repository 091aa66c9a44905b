#include "report/spmd_report.h"

#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

std::vector<Metric> spmd_metrics(const MpiScenario& s, const SpmdResult& r) {
  const RankLayout& l = r.layout;
  std::vector<Metric> out{
      {"time_s", r.time_s, "s"},
      {"iteration_s", r.iteration_s, "s"},
      {"iterations", static_cast<double>(r.iterations), "count"},
      {"tflops", r.flop_rate / 1e12, "TFLOP/s"},
      {"gflops", r.flop_rate / 1e9, "count"},
      {"placement.nodes", static_cast<double>(l.nodes), "count"},
      {"placement.ranks", static_cast<double>(l.ranks), "count"},
      {"placement.ranks_per_node", static_cast<double>(l.ranks_per_node), "count"},
      {"placement.threads_per_rank", static_cast<double>(l.threads_per_rank), "count"},
      {"grid.px", static_cast<double>(r.grid.dims[0]), "count"},
      {"grid.py", static_cast<double>(r.grid.dims[1]), "count"},
      {"grid.pz", static_cast<double>(r.grid.dims[2]), "count"},
      {"breakdown.compute_s", r.compute_s, "s"},
      {"breakdown.halo_s", r.halo_s, "s"},
      {"breakdown.allreduce_s", r.allreduce_s, "s"},
      {"breakdown.alltoall_s", r.alltoall_s, "s"},
      {"breakdown.p2p_s", r.p2p_s, "s"},
      {"breakdown.exposed_comm_s", r.exposed_comm_s, "s"},
      {"traffic.halo_bytes_per_rank", r.halo_bytes_per_rank, "bytes"},
      {"traffic.offnode_bytes_per_node", r.offnode_bytes_per_node, "bytes"},
  };
  if (s.app == MpiApp::stencil) {
    const StencilConfig& c = s.stencil;
    const double cells = c.grid[0] * c.grid[1] * c.grid[2];
    out.push_back({"stencil.cells", cells, "count"});
    out.push_back({"stencil.grind_ns", r.iteration_s / (cells * c.fields) * 1e9, "ns"});
  } else if (s.app == MpiApp::hpcg) {
    const HpcgCounts counts = hpcg_counts(s.hpcg, r.grid);
    out.push_back({"hpcg.nx", static_cast<double>(s.hpcg.local[0]), "count"});
    out.push_back({"hpcg.ny", static_cast<double>(s.hpcg.local[1]), "count"});
    out.push_back({"hpcg.nz", static_cast<double>(s.hpcg.local[2]), "count"});
    out.push_back({"hpcg.levels", static_cast<double>(s.hpcg.levels), "count"});
    out.push_back({"hpcg.rows", counts.rows, "count"});
    out.push_back({"hpcg.nonzeros", counts.nonzeros, "count"});
  } else if (s.app == MpiApp::npb) {
    const double mop = npb_mop(s.npb);
    out.push_back({"npb.mop", mop, "count"});
    out.push_back({"npb.mops_total", mop / r.time_s, "Mop/s"});
  }
  return out;
}

Report spmd_report(const MpiScenario& s, const SpmdResult& r) {
  return Report{s.name, std::string(to_string(ScenarioKind::mpi)), spmd_metrics(s, r), std::nullopt};
}

}  // namespace hpcsim
