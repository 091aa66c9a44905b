#pragma once
// Jobs from a trace in the Parallel Workloads Archive's Standard Workload Format (SWF): 18 whitespace-
// separated fields per job line, `;` comment and header lines (MaxProcs, MaxNodes, ...).
//
// Fixed semantics, so results compare with other simulators: processors = field 5 (allocated), or field 8
// (requested) when field 5 is -1; run time = field 4; estimate = field 9 (requested time), raised to the run
// time when it is -1 or smaller (a trace job is never killed). Jobs with run time <= 0, processors <= 0 or
// more processors than the machine has are skipped and counted. Jobs are returned in queue order: submit
// time (field 2), then job id (field 1). Each user (field 12) is an account of the fair share.
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/scheduling/batch_job.h"

namespace hpcsim {

struct SwfTrace {
  std::vector<BatchJob> jobs;
  std::int64_t skipped = 0;              // invalid or larger than the machine
  std::int64_t skipped_too_large = 0;    // of which: more processors than the machine
  std::int64_t max_procs = 0;            // the header's MaxProcs (or MaxNodes), 0 when absent
  // User ids (field 12) in order of first appearance: a job's account indexes this (-1: unknown user).
  std::vector<std::int64_t> users;
};

struct SwfOptions {
  int machine_nodes = 0;        // 0: the header's MaxProcs/MaxNodes, else no limit
  int cores_per_node = 0;       // > 0: processors are cores, a job needs ceil(procs / cores) nodes
  std::int64_t max_jobs = 0;    // > 0: only the first N valid jobs (in file order)
};

// A malformed job line (not 18 numbers) is a ConfigError naming the file and line.
SwfTrace parse_swf(const std::string& text, const std::string& file, const SwfOptions& options = {});
SwfTrace load_swf(const std::string& path, const SwfOptions& options = {});

}  // namespace hpcsim
