#include "store/results_store.h"

#include <ctime>

namespace hpcsim {

std::string iso8601_utc_now() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);  // the reentrant form: std::gmtime shares a static buffer
  char buf[sizeof "YYYY-MM-DDTHH:MM:SSZ"];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buf;
}

}  // namespace hpcsim
