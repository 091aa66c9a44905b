#include "driver/plan_run.h"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "driver/scenario_run.h"
#include "report/plan_report.h"

namespace hpcsim {

namespace {

std::string file_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

PlanSpec load_plan(const std::string& file, const std::vector<std::string>& overrides, const SpecCatalog& catalog,
                   bool screen_only) {
  PlanSpec plan = parse_plan(load_config(file, overrides), catalog, std::filesystem::path(file).stem().string());
  plan.name = what_if_name(plan.name, overrides);  // a what-if is named after what it ran
  if (screen_only) plan.full_simulations = 0;
  return plan;
}

PlanRun run_plan(const PlanSpec& plan, const std::string& file, const std::vector<std::string>& overrides,
                 const SpecCatalog& catalog, const std::string& tool_version, const PlanProgress& after_each) {
  const auto wall_start = std::chrono::steady_clock::now();
  PlanRun run;
  run.result = run_capacity_plan(plan, catalog, after_each);
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // The stored text is what ran: the file, or with --set values the resolved plan (which the report's Pareto
  // labels read the node and network lists from).
  run.record = plan_record(plan, run.result, overrides.empty() ? file_text(file) : to_yaml_text(load_config(file, overrides)),
                           tool_version, wall_s);
  return run;
}

}  // namespace hpcsim
