#pragma once

#include <stdexcept>
#include <string>

#include "configs/source_loc.h"

namespace hpcsim {

// Any problem with a configuration. what() is "file:line:column: message",
// "file: message" when there is no line, or "--set a.b=c: message" for an override.
// The CLI prints what() and exits with code 2.
class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLoc where, const std::string& message);

  const SourceLoc& where() const { return where_; }
  const std::string& message() const { return message_; }

 private:
  SourceLoc where_;
  std::string message_;
};

}  // namespace hpcsim
