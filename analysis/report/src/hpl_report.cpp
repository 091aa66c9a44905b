#include "report/hpl_report.h"

#include <algorithm>

#include "models/power/node_power.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim {

std::vector<Metric> hpl_metrics(const MpiScenario& s, const HplResult& r) {
  const HplConfig& c = r.config;
  // GPU HPL's metrics join their groups (the JSON writer nests a group's consecutive keys); CPU runs report
  // exactly the keys they always did.
  const bool gpu = c.accelerator == HplAccelerator::gpu;
  std::vector<Metric> m{
      {"rmax_tflops", r.flop_rate / 1e12, "TFLOP/s"},
      {"rpeak_tflops", r.rpeak / 1e12, "TFLOP/s"},
  };
  if (gpu) m.push_back({"rpeak_host_tflops", r.rpeak_host / 1e12, "TFLOP/s"});
  m.insert(m.end(), {
      {"efficiency", r.efficiency, "ratio"},
      {"time_s", r.time_s, "s"},
      {"gflops", r.flop_rate / 1e9, "count"},
      {"hpl.n", c.n, "count"},
      {"hpl.nb", static_cast<double>(c.nb), "count"},
      {"hpl.p", static_cast<double>(c.p), "count"},
      {"hpl.q", static_cast<double>(c.q), "count"},
      {"hpl.depth", static_cast<double>(c.depth), "count"},
      {"hpl.n_from_memory", s.n_from_memory ? 1.0 : 0.0, "bool"},
  });
  if (gpu) {
    m.push_back({"hpl.panel_on_host", c.panel == HplPanel::host ? 1.0 : 0.0, "bool"});
    m.push_back({"hpl.dgemm_efficiency", c.gpu_dgemm_efficiency, "ratio"});
  }
  m.insert(m.end(), {
      {"placement.nodes", static_cast<double>(r.nodes), "count"},
      {"placement.ranks", static_cast<double>(c.p * c.q), "count"},
      {"placement.ranks_per_node", static_cast<double>(c.ranks_per_node), "count"},
      {"placement.threads_per_rank", static_cast<double>(c.threads_per_rank), "count"},
  });
  if (gpu) m.push_back({"placement.gpus", static_cast<double>(r.gpus), "count"});
  m.insert(m.end(), {
      {"breakdown.update_s", r.update_s, "s"},
      {"breakdown.panel_s", r.panel_s, "s"},
      {"breakdown.bcast_s", r.bcast_s, "s"},
      {"breakdown.swap_s", r.swap_s, "s"},
      {"breakdown.exposed_s", r.exposed_s, "s"},
  });
  if (gpu) m.push_back({"breakdown.host_copy_s", r.host_copy_s, "s"});
  m.push_back({"memory.matrix_bytes_per_node", r.matrix_bytes_per_node, "bytes"});
  if (gpu) m.push_back({"memory.matrix_bytes_per_gpu", r.gpus > 0 ? 8.0 * c.n * c.n / r.gpus : 0.0, "bytes"});
  // The GPUs compute during the trailing updates; the rest of the run (panels, broadcasts, swaps beyond the
  // update) they wait.
  const double gpu_activity = r.time_s > 0 ? std::clamp(r.update_s / r.time_s, 0.0, 1.0) : 0.0;
  const int gpus_per_node = r.nodes > 0 ? r.gpus / r.nodes : 0;
  if (const std::optional<NodeLoadPower> p = full_load_node_power(s.cluster.node, gpus_per_node, gpu_activity)) {
    const double nodes_w = p->node_w() * r.nodes;
    m.insert(m.end(), {
        {"power.node_w", p->node_w(), "W"},
        {"power.nodes_kw", nodes_w / 1e3, "kW"},
        {"power.lower_bound", p->bound == PowerBound::lower ? 1.0 : 0.0, "bool"},
        {"energy_kwh", nodes_w * r.time_s / 3.6e6, "kWh"},
        {"gflops_per_watt", r.flop_rate / 1e9 / nodes_w, "GFLOP/s/W"},
    });
  }
  return m;
}

Report hpl_report(const MpiScenario& s, const HplResult& r) {
  return Report{s.name, std::string(to_string(ScenarioKind::mpi)), hpl_metrics(s, r), std::nullopt};
}

}  // namespace hpcsim
