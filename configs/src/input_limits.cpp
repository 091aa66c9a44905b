#include "configs/input_limits.h"

#include <filesystem>

#include "configs/config_error.h"

namespace hpcsim {

void check_trace_size(const std::string& path) {
  std::error_code unknown;
  const std::uintmax_t bytes = std::filesystem::file_size(path, unknown);
  if (!unknown && bytes > input_limits::max_trace_bytes) {
    throw ConfigError({path, 0, 0}, std::to_string(bytes) + " bytes, more than the " +
                                        std::to_string(input_limits::max_trace_bytes >> 30) +
                                        " GiB hpcsim reads from one trace");
  }
}

}  // namespace hpcsim
