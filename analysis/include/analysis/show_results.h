#pragma once
// The listing printed by `hpcsim show results.db`.

#include <string>

#include "analysis/results_store.h"

namespace hpcsim {

// Every run (id, started_at, scenario, hash, status, wall time, message) in aligned columns,
// each followed by its metrics (name, value, unit); values as %.6g, an empty value as "null".
std::string format_runs_table(const ResultsStore& store);

}  // namespace hpcsim
