#include <iostream>

#include "commands.h"

namespace hpcsim::cli {

int store_record(const std::string& db, const RunRecord& record, const std::string& command) {
  try {
    ResultsStore(db).record_run(record);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim " << command << ": " << e.what() << "\n";
    return kExitFailure;
  }
  return kExitOk;
}

}  // namespace hpcsim::cli
