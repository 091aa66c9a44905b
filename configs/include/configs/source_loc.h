#pragma once

#include <string>

namespace hpcsim {

// Where a config value came from. line/column are 1-based; 0 means "unknown"
// (a whole file, or a --set override that has no line).
struct SourceLoc {
  std::string file;
  int line = 0;
  int column = 0;

  bool has_line() const { return line > 0; }
  // "file:line:column", or just "file" when there is no line.
  std::string to_string() const;
};

}  // namespace hpcsim
