#include <iostream>

#include "commands.h"

namespace hpcsim::cli {

bool open_store(const std::string& db, bool no_db, const std::string& command, std::optional<ResultsStore>& store) {
  if (no_db) return true;
  try {
    store.emplace(db, StoreAccess::write);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim " << command << ": " << e.what() << "\n";
    return false;
  }
  return true;
}

int store_record(std::optional<ResultsStore>& store, const RunRecord& record, const std::string& command) {
  if (!store) return kExitOk;
  try {
    store->record_run(record);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim " << command << ": " << e.what() << "\n";
    return store_failure_exit(e);
  }
  return kExitOk;
}

}  // namespace hpcsim::cli
