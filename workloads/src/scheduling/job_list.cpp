#include "workloads/scheduling/job_list.h"

#include <algorithm>

#include "configs/config_error.h"
#include "configs/schema.h"
#include "configs/units.h"

namespace hpcsim {

namespace {

const Schema& job_list_schema() {
  static const Schema schema = Schema::map({
      required("jobs", Schema::list(Schema::map({
                           optional("id", Schema::integer().at_least(0)),
                           required("submit", Schema::quantity(Dimension::time, "s")),
                           required("nodes", Schema::integer().at_least(1)),
                           required("run", Schema::quantity(Dimension::time, "s").positive()),
                           optional("estimate", Schema::quantity(Dimension::time, "s").positive()),
                       }))),
  });
  return schema;
}

}  // namespace

std::vector<BatchJob> parse_job_list(const ConfigNode& root) {
  job_list_schema().validate(root);
  std::vector<BatchJob> jobs;
  const std::vector<ConfigNode>& list = root.at("jobs").items();
  for (std::size_t i = 0; i < list.size(); ++i) {
    const ConfigNode& j = list[i];
    BatchJob job;
    job.id = j.get_int_or("id", static_cast<std::int64_t>(i) + 1);
    job.submit_s = j.get_quantity("submit", Dimension::time, "s");
    job.nodes = static_cast<int>(j.get_int("nodes"));
    job.run_s = j.get_quantity("run", Dimension::time, "s");
    job.estimate_s = j.has("estimate") ? j.get_quantity("estimate", Dimension::time, "s") : job.run_s;
    jobs.push_back(job);
  }
  std::stable_sort(jobs.begin(), jobs.end(), [](const BatchJob& a, const BatchJob& b) {
    return a.submit_s != b.submit_s ? a.submit_s < b.submit_s : a.id < b.id;
  });
  return jobs;
}

}  // namespace hpcsim
