#pragma once
// Shared by the configs tests: test-data paths and the message of the ConfigError an action throws.
#include <filesystem>
#include <string>

#include "configs/config_error.h"

namespace hpcsim::test {

inline std::string data(const std::string& name) {
  return std::filesystem::path(HPCSIM_TEST_DATA_DIR "/configs/" + name).lexically_normal().generic_string();
}

template <typename F>
std::string error_of(F&& action) {
  try {
    action();
  } catch (const ConfigError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace hpcsim::test
