#pragma once
// The listing printed by `hpcsim show results.db`.

#include <string>

#include "store/results_store.h"

namespace hpcsim {

// Every run (id, started_at, scenario, kind, hash, status, wall time, message) in aligned columns,
// each followed by its metrics (name, value, unit); values as %.6g, an empty value as "null". Then, when
// the store holds any, every study (id, created_at, name, base scenario hash, varied parameters), each
// followed by its points (index, status, run id or "-", parameter values).
std::string format_runs_table(const ResultsStore& store);

}  // namespace hpcsim
