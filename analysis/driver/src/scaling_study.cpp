#include "driver/scaling_study.h"

#include "store/study_runner.h"
#include "driver/training_scenario_run.h"
#include "configs/yaml_text.h"

namespace hpcsim {

namespace {

// The keys scale_config sets, with their values at this point.
StudyPoint scaled_point(const ScaledConfig& config) {
  StudyPoint point;
  const ConfigNode& root = config.root;
  point.values = {{"cluster.nodes", root.at("cluster").at("nodes").as_string()},
                  {"cluster.gpus_per_node", root.at("cluster").at("gpus_per_node").as_string()},
                  {"parallelism.dp", root.at("parallelism").at("dp").as_string()}};
  if (config.weak) point.values.emplace_back("parallelism.microbatches", root.at("parallelism").at("microbatches").as_string());
  return point;
}

std::string counts_text(const std::vector<ScalingStudyPoint>& points) {
  std::string out;
  for (const ScalingStudyPoint& p : points) {
    if (!out.empty()) out += ',';
    out += std::to_string(p.gpus);
  }
  return out;
}

}  // namespace

Study scaling_study(const std::string& base_name, const ConfigNode& base_root,
                    const std::vector<ScalingStudyPoint>& points) {
  Study study;
  study.name = base_name + " --scale " + counts_text(points);
  study.base_scenario_text = to_yaml_text(base_root);
  for (const ScalingStudyPoint& p : points) study.points.push_back(scaled_point(p.config));
  study.parameters = varied_parameters(study.points);
  return study;
}

std::vector<ScalingPoint> run_scaling_study(const std::string& base_name, const ConfigNode& base_root,
                                            const std::vector<ScalingStudyPoint>& points,
                                            const IntervalTable& intervals, const std::string& tool_version,
                                            ResultsStore* store, const ScalingPointDone& on_point_done) {
  Study study = scaling_study(base_name, base_root, points);
  std::vector<ScalingPoint> rows;
  run_study(study, store, [&](std::size_t i) {
    const ScalingStudyPoint& p = points[i];
    TrainingScenarioRun run = run_training_scenario(p.scenario, p.config.root, intervals, tool_version);
    if (on_point_done) on_point_done(p.scenario, run.step);
    rows.push_back({p.gpus, p.config.nodes, run.step.result, run.interval});
    return std::move(run.record);
  });
  return rows;
}

}  // namespace hpcsim
