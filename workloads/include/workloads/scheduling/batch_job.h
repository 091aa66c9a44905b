#pragma once
// A job of a batch queue (SLURM, PBS): what it asks for and, once scheduled, where and when it ran.
#include <cstdint>
#include <string>

namespace hpcsim {

struct BatchJob {
  std::int64_t id = 0;
  double submit_s = 0;    // on the trace's own clock
  double run_s = 0;       // how long it runs once started (a trace's recorded run time)
  double estimate_s = 0;  // the wall-time limit the user asked for; a job running longer is killed at it
  int nodes = 1;          // nodes it needs, all at once
  int gpus = 0;              // > 0: asked as GPUs (nodes is then ceil(gpus / GPUs per node), see job_list.h)
  double memory_bytes = 0;   // host memory per node it asks for (0: any)
  // Indices into the queue's tables (QueueSetup): its partition, account (fair share) and QoS.
  int partition = 0;
  int account = 0;
  int qos = 0;
  double priority = 0;  // added to the multifactor priority as is (an administrator's boost)
  // >= 0: a job whose run time the driver's RunTime hook predicts on the nodes it gets (a training job,
  // index into the driver's own table); run_s is then ignored.
  int kind = -1;
  // No wall-time limit was given: estimate_s is only the plan, raised to the run time when the job starts
  // (as a trace's estimate is), so the job is never killed.
  bool estimate_only = false;
};

struct ScheduledJob {
  BatchJob job;
  double start_s = 0, end_s = 0;
  double run_s = 0;     // the run time it had (job.run_s, or the RunTime hook's answer on its nodes)
  bool killed = false;  // stopped at its wall-time limit
  double wait_s() const { return start_s - job.submit_s; }
};

}  // namespace hpcsim
