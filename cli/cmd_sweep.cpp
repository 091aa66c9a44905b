// hpcsim sweep SCENARIO --vary KEY=V1,V2,... [--vary ...] [--db FILE] [--jobs N] [--format table|json]:
// the cross product of the varied keys, each point a run in the store, stored as it completes. A sweep
// started again finds its study (same scenario, same axes) and runs only the points still pending, so one
// killed at any moment loses nothing and stores nothing twice. Each point is claimed in the store before it
// runs, so --jobs N (N processes) and sweeps of one study started at once share the points; a claim left by a
// killed sweep is taken over by the next (store/results_store.h, claim_study_points).
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <functional>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "driver/prediction_interval.h"
#include "store/results_store.h"
#include "driver/sweep.h"
#include "progress.h"
#include "sweep_run.h"
#include "commands.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/scenario/scenario_kind.h"

namespace hpcsim::cli {

namespace {

// Runs the pending points in `jobs` processes (1: this one), each claiming the next point when it is free,
// showing progress on a terminal. The exit code: kExitOk, kExitFailure (a point or a worker failed) or
// kExitBadInput (the store is damaged).
int run_pending(const SweepOptions& o, const SweepPlan& plan, Progress& progress) {
  const std::size_t total = plan.study.points.size();
  const std::size_t done_before = total - plan.pending.size();
  const auto show = [&](bool force) {
    if (!progress.enabled()) return;
    try {
      const PointCounts c = count_points(o.db, plan.study_id);
      progress.show(c.done, c.failed, done_before, force);
    } catch (const StoreError&) {  // the progress line is skipped; the run that meets the error reports it
    }
  };
  const int jobs = std::max(1, std::min<int>(o.jobs, static_cast<int>(plan.pending.size())));
  if (jobs <= 1) {
    int code = kExitOk;
    try {
      code = run_points(o, plan, [&] { show(true); }) ? kExitOk : kExitFailure;
    } catch (const StoreDamaged& e) {
      std::cerr << "hpcsim sweep: " << e.what() << "\n";
      code = kExitBadInput;
    }
    progress.finish();
    return code;
  }
  const pid_t parent = getpid();
  std::vector<pid_t> children;
  for (int k = 0; k < jobs; ++k) {
    std::cout.flush();
    std::cerr.flush();
    const pid_t child = fork();
    if (child < 0) {
      std::cerr << "hpcsim sweep: --jobs: cannot start a process\n";
      for (const pid_t c : children) kill(c, SIGKILL);
      return kExitFailure;
    }
    if (child == 0) {
      // A worker dies with the sweep, so a killed sweep leaves no process still writing points.
      prctl(PR_SET_PDEATHSIG, SIGKILL);
      if (getppid() != parent) _exit(1);
      try {
        _exit(run_points(o, plan) ? kExitOk : kExitFailure);
      } catch (const StoreDamaged& e) {
        std::cerr << "hpcsim sweep: " << e.what() << "\n";
        _exit(kExitBadInput);
      }
    }
    children.push_back(child);
  }
  int code = kExitOk;
  std::size_t running = children.size();
  while (running > 0) {
    int status = 0;
    const pid_t ended = waitpid(-1, &status, WNOHANG);
    if (ended > 0) {
      --running;
      const int exit = WIFEXITED(status) ? WEXITSTATUS(status) : kExitFailure;
      if (exit != kExitOk && code != kExitBadInput) code = exit == kExitBadInput ? kExitBadInput : kExitFailure;
      continue;
    }
    show(true);
    std::this_thread::sleep_for(std::chrono::milliseconds(ended == 0 ? 200 : 0));
    if (ended < 0) break;
  }
  show(true);
  progress.finish();
  return code;
}

int run(const SweepOptions& o) {
  if (launched_by_mpirun()) return run_sweep_mpi(o);
  SweepPlan plan;
  try {
    plan = sweep_plan(o);
  } catch (const std::invalid_argument& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  for (const std::string& note : plan.notes) std::cerr << "note: " << note << "\n";
  try {
    ResultsStore store(o.db);
    open_study(plan, store);
  } catch (const StoreError& e) {  // an unusable store, found before any point runs
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return kExitBadInput;
  }
  Progress progress("sweep", "points", plan.study.points.size(), o.format);
  const int code = run_pending(o, plan, progress);
  if (code == kExitBadInput) return code;
  bool ok = code == kExitOk;
  try {
    ok = ok && wait_for_other_sweeps(o, plan);
    print_sweep_results(o, plan);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return store_failure_exit(e);
  }
  return ok ? kExitOk : kExitFailure;
}

}  // namespace

Action add_sweep_command(CLI::App& app) {
  auto o = std::make_shared<SweepOptions>();
  CLI::App* cmd = app.add_subcommand(
      "sweep", "Run a training, serve or mpi scenario at every combination of varied keys, resumably");
  cmd->add_option("scenario", o->scenario, "Scenario YAML file")->required()->check(CLI::ExistingFile);
  cmd->add_option("--vary", o->vary, "KEY=V1,V2,... or KEY=A..B, A..BxF, A..B+S (repeatable)")
      ->required()
      ->type_name("KEY=VALUES");
  cmd->add_option("--db", o->db, "SQLite results file (default: results.db)");
  cmd->add_option("--jobs", o->jobs, "Run the points in N processes")->check(CLI::PositiveNumber);
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli
