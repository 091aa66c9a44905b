#include "report/resilience_report.h"

namespace hpcsim {

std::vector<Metric> resilience_metrics(const ResilienceConfig& c, const LongRunSummary& s, double work_s) {
  std::vector<Metric> m = {
      {"resilience.replicas", static_cast<double>(s.replicas), "count"},
      {"resilience.seed", static_cast<double>(s.seed), "count"},
      {"resilience.mtti_s", s.mtti_s, "s"},
      {"resilience.work_s", work_s, "s"},
      {"resilience.checkpoint.state_bytes", c.io.state_bytes, "bytes"},
      {"resilience.checkpoint.write_s", c.io.write_s, "s"},
      // What the job waits for per checkpoint: the write when sync, the snapshot (or local write) when async.
      {"resilience.checkpoint.stall_s", c.mode == CheckpointMode::async ? c.snapshot_s : c.io.write_s, "s"},
      {"resilience.checkpoint.restore_s", c.io.read_s, "s"},
      {"resilience.checkpoint.interval_s", c.chosen_interval_s(), "s"},
      {"resilience.checkpoint.young_interval_s", c.young_interval_s(), "s"},
      {"resilience.checkpoint.daly_interval_s", c.daly_interval_s(), "s"},
      {"resilience.time_to_train_s.mean", s.mean_wall_s, "s"},
      {"resilience.time_to_train_s.stderr", s.stderr_wall_s, "s"},
      {"resilience.time_to_train_s.p5", s.p5_wall_s, "s"},
      {"resilience.time_to_train_s.p50", s.p50_wall_s, "s"},
      {"resilience.time_to_train_s.p95", s.p95_wall_s, "s"},
      {"resilience.ettr", s.ettr, "ratio"},
      {"resilience.checkpoints", s.checkpoints, "1/run"},
      {"resilience.interruptions.total", s.interruptions, "1/run"},
      {"resilience.interruptions.per_day", s.interruptions / (s.mean_wall_s / 86400.0), "1/day"},
  };
  for (std::size_t i = 0; i < c.job_modes.size(); ++i) {
    m.push_back({"resilience.interruptions.by_cause." + c.job_modes[i].name, s.interruptions_by_mode[i], "1/run"});
  }
  for (const auto& [name, value] : {std::pair{"checkpoint", s.checkpoint_s}, {"recompute", s.recompute_s},
                                    {"detection", s.detection_s}, {"restart", s.restart_s},
                                    {"spare_wait", s.spare_wait_s}, {"restore", s.restore_s}}) {
    m.push_back({std::string("resilience.lost_s.") + name, value, "s"});
  }
  return m;
}

}  // namespace hpcsim
