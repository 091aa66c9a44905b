#pragma once
// Runs a study's points in order and stores each one as it completes, linked to the study.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>

#include "store/results_store.h"
#include "store/study.h"

namespace hpcsim {

// Simulates point `index` of the study and returns its run record (its status becomes the point's).
using PointRunner = std::function<RunRecord(std::size_t index)>;

// With a store, the study is stored first with every point pending, then each point's run in its own
// transaction as soon as it completes: a sweep that stops midway keeps what it finished, and the points it
// did not reach read "pending". Updates study.points (status, run id). Returns the study id when stored.
// A StoreError stops the sweep; so does anything run_point throws.
std::optional<std::int64_t> run_study(Study& study, ResultsStore* store, const PointRunner& run_point);

}  // namespace hpcsim
