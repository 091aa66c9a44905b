#pragma once
// `hpcsim plan`: every node type x node count x network x file system x parallel layout of a plan is screened with the
// analytical estimate (screen_estimate.h); the most promising (the cheapest that meet the constraints and
// the screened Pareto front) are then simulated in full as ordinary training scenarios, and their time to
// train, cost and energy give the ranking and the Pareto front.
#include <cstddef>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "workloads/planning/plan_spec.h"
#include "workloads/planning/screen_estimate.h"

namespace hpcsim {

// Time to train, cost and energy of one configuration, from a step time and the GPUs' activity.
struct PlanOutcome {
  double step_s = 0;
  double time_to_train_s = 0;
  double cost_usd = 0;
  double energy_kwh = 0;
  double power_kw = 0;  // facility draw while training
  double io_stall_s = 0;  // per step: the input pipeline's wait beyond the step's work (a dataset on a file system)
  double gpu_activity = 0;
  // With the plan's resilience: section: the effective training time ratio, and the failure-free time to
  // train the other figures were scaled from (time_to_train_s is then the mean over the replicas).
  std::optional<double> ettr;
  double failure_free_s = 0;
};

struct PlanCandidate {
  std::size_t node = 0, network = 0;  // indices into the plan's nodes and networks
  std::size_t filesystem = 0;         // index into the plan's file systems (when it has any)
  ScreenLayout layout;
  int topology_levels = 2;  // the fat tree the network is built as for this many nodes
  int switches = 0;
  ScreenEstimate screen;
  PlanOutcome screened;
  bool simulated = false;
  std::string status = "screened";  // screened, ok, oom or error (after the full simulation)
  std::string message;              // why a simulation failed
  PlanOutcome simulated_outcome;
  std::string scenario_text;        // the simulated scenario (YAML)
  bool meets_constraints = false;   // by the full simulation when simulated, else by the screen

  const PlanOutcome& outcome() const { return simulated ? simulated_outcome : screened; }
  bool usable() const { return simulated ? status == "ok" : screen.fits_in_memory; }
};

struct PlanResult {
  std::vector<PlanCandidate> candidates;  // ranked: see rank_candidates
  std::vector<std::size_t> pareto;        // indices into candidates: the simulated front, by time to train
  int invalid_layouts = 0;                // combinations the model or GPU count does not allow
  int unbuildable_networks = 0;           // (node count, network) pairs no 3-level fat tree of the switch holds
  double screen_wall_s = 0, simulate_wall_s = 0;
  double screen_correction = 1;           // median simulated / screened step time (how optimistic the screen was)
  int screened() const { return static_cast<int>(candidates.size()); }
  int simulated() const;
};

// Time to train, cost and energy of a configuration running at this step time and GPU activity; a file system's
// price per hour is added for the run's hours.
PlanOutcome plan_outcome(const PlanSpec& plan, const PlanNode& node, int nodes, int switches, const SwitchSpec& network_switch,
                         double step_s, double gpu_activity, double storage_usd_per_hour = 0);

// The candidate's file system (nullptr when the plan searches none).
const PlanFileSystem* candidate_filesystem(const PlanSpec& plan, const PlanCandidate& c);

// The scenario (YAML tree) a candidate is simulated as.
ConfigNode candidate_scenario(const PlanSpec& plan, const PlanCandidate& c, const std::string& node_name,
                              const std::string& network_name);

// The two stages of a plan, for a progress line: every configuration screened, then some simulated in full.
enum class PlanStage { screen, simulate };
// after_each(stage, done, total): after each configuration screened (of the grid's combinations) and each
// full simulation (of plan.full_simulations; fewer when the plan runs out of candidates).
using PlanProgress = std::function<void(PlanStage, std::size_t, std::size_t)>;

// Screens every candidate, simulates the selected ones in full, ranks them and finds the front.
PlanResult run_capacity_plan(const PlanSpec& plan, const SpecCatalog& catalog, const PlanProgress& after_each = {});

}  // namespace hpcsim
