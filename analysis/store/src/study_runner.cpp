#include "store/study_runner.h"

namespace hpcsim {

std::optional<std::int64_t> run_study(Study& study, ResultsStore* store, const PointRunner& run_point) {
  std::optional<std::int64_t> study_id;
  if (store != nullptr) study_id = store->record_study(study);
  for (std::size_t i = 0; i < study.points.size(); ++i) {
    const RunRecord run = run_point(i);
    StudyPoint& point = study.points[i];
    point.status = point_status_from(run.status).value_or(PointStatus::error);
    if (store != nullptr) point.run_id = store->record_study_point(*study_id, i, run);
  }
  return study_id;
}

}  // namespace hpcsim
