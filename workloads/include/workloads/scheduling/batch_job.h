#pragma once
// A job of a batch queue (SLURM, PBS): what it asks for and, once scheduled, where and when it ran.
#include <cstdint>
#include <string>

namespace hpcsim {

struct BatchJob {
  std::int64_t id = 0;
  double submit_s = 0;    // on the trace's own clock
  double run_s = 0;       // how long it runs once started (a trace's recorded run time)
  double estimate_s = 0;  // the user's requested time (wall-time limit); never below run_s for a trace job
  int nodes = 1;          // processors or nodes it needs, all at once
};

struct ScheduledJob {
  BatchJob job;
  double start_s = 0, end_s = 0;
  bool killed = false;  // stopped at its wall-time limit
  double wait_s() const { return start_s - job.submit_s; }
};

}  // namespace hpcsim
