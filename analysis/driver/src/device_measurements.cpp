// The CSV of `hpcsim-cuda-bench`: header comments, a column line, then one measurement per row.
#include "driver/device_measurements.h"

#include <cctype>
#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <stdexcept>

#include "configs/config_error.h"

namespace hpcsim {

namespace {

constexpr const char* kMagic = "# hpcsim-cuda-bench 1";
constexpr const char* kColumns = "benchmark,params,metric,value,unit";

// Benchmark and metric names are words (copy, hbm_gbps, fma-ilp): a name that reads as a number (-inf, nan)
// or holds spaces is not a row the suite wrote.
bool is_name(const std::string& text) {
  if (text.empty() || !(std::isalpha(static_cast<unsigned char>(text[0])) || text[0] == '_')) return false;
  for (const char c : text)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-' && c != '.') return false;
  std::string lower;
  for (const char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower != "inf" && lower != "infinity" && lower != "nan";
}

std::string trim(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return s.substr(first, last - first + 1);
}

// Splits on commas, remembering where each field starts (1-based column) for error messages.
std::vector<std::pair<std::string, int>> fields_of(const std::string& line) {
  std::vector<std::pair<std::string, int>> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    fields.emplace_back(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start),
                        static_cast<int>(start) + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return fields;
}

}  // namespace

const std::vector<std::string>& device_measurement_units() {
  // Times, SM clock cycles, rates (results per SM clock, giga-results per second), the counts and ratios
  // the sweeps report, and what sustained_load.py samples beside its rates (clock, power, temperature, and
  // nvidia-smi's clock-event reasons as a bitmask).
  static const std::vector<std::string> units = {"ns",      "us",      "ms",       "s",       "cycles",  "GB/s",
                                                 "GFLOP/s", "TFLOP/s", "blocks",   "sectors", "wavefronts",
                                                 "bytes",   "fraction", "1/cycle", "G/s",     "MHz",
                                                 "W",       "degC",    "bitmask"};
  return units;
}

ConfigError device_row_error(const DeviceMeasurements& file, const DeviceMeasurement& row, const std::string& message) {
  return ConfigError(SourceLoc{file.file, row.line, 1}, row.benchmark + ": " + message);
}

std::int64_t device_int_param(const DeviceMeasurements& file, const DeviceMeasurement& row, const std::string& key,
                              std::int64_t at_least) {
  const std::string* text = row.param(key);
  if (!text) throw device_row_error(file, row, "needs the param " + key);
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  if (ec != std::errc() || end != text->data() + text->size() || v < at_least) {
    throw device_row_error(file, row, key + "=" + *text + " is not an integer >= " + std::to_string(at_least));
  }
  return v;
}

int device_int32_param(const DeviceMeasurements& file, const DeviceMeasurement& row, const std::string& key, int at_least) {
  const std::int64_t v = device_int_param(file, row, key, at_least);
  if (v > std::numeric_limits<int>::max()) {
    throw device_row_error(file, row, key + "=" + *row.param(key) + " is more than 2,147,483,647");
  }
  return static_cast<int>(v);
}

DeviceMeasurements read_device_measurements(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw std::runtime_error(file.string() + ": cannot open the measurements file");
  DeviceMeasurements m;
  m.file = file.string();
  auto fail = [&m](int line, int column, const std::string& message) {
    throw ConfigError(SourceLoc{m.file, line, column}, message);
  };
  std::string text;
  int line = 0;
  bool columns_seen = false;
  while (std::getline(in, text)) {
    ++line;
    text = trim(text);
    if (line == 1) {
      if (text != kMagic) fail(1, 1, std::string("not a hpcsim-cuda-bench CSV: the first line must be '") + kMagic + "'");
      continue;
    }
    if (text.empty()) continue;
    if (text[0] == '#') {
      if (columns_seen) fail(line, 1, "header lines come before the column line");
      const std::size_t colon = text.find(':');
      if (colon == std::string::npos) fail(line, 1, "a header line is '# key: value'");
      std::string key = trim(text.substr(1, colon - 1));
      if (key.empty()) fail(line, 1, "a header line is '# key: value', this one has no key");
      m.header.emplace_back(std::move(key), trim(text.substr(colon + 1)));
      continue;
    }
    if (!columns_seen) {
      if (text != kColumns) fail(line, 1, std::string("expected the column line '") + kColumns + "'");
      columns_seen = true;
      continue;
    }
    const auto fields = fields_of(text);
    if (fields.size() != 5) {
      fail(line, 1, "a row has 5 fields (" + std::string(kColumns) + "), this one " + std::to_string(fields.size()));
    }
    DeviceMeasurement row;
    row.line = line;
    row.benchmark = fields[0].first;
    if (row.benchmark.empty()) fail(line, 1, "empty benchmark name");
    if (!is_name(row.benchmark)) fail(line, 1, "a benchmark name is a word (letters, digits, _ - .), not '" + row.benchmark + "'");
    const auto& [params, params_column] = fields[1];
    std::size_t start = 0;
    while (!params.empty() && start <= params.size()) {
      const std::size_t semi = params.find(';', start);
      const std::string item = params.substr(start, semi == std::string::npos ? std::string::npos : semi - start);
      const std::size_t eq = item.find('=');
      const int item_column = params_column + static_cast<int>(start);
      if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
        fail(line, item_column, "a param is key=value, not '" + item + "'");
      }
      std::string key = item.substr(0, eq);
      if (row.param(key)) fail(line, item_column, "the param " + key + " is given twice");
      row.params.emplace_back(std::move(key), item.substr(eq + 1));
      if (semi == std::string::npos) break;
      start = semi + 1;
    }
    row.metric = fields[2].first;
    if (row.metric.empty()) fail(line, fields[2].second, "empty metric");
    if (!is_name(row.metric)) fail(line, fields[2].second, "a metric name is a word (letters, digits, _ - .), not '" + row.metric + "'");
    const std::string& value = fields[3].first;
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), row.value);
    if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(row.value)) {
      fail(line, fields[3].second, "the value '" + value + "' is not a finite number");
    }
    row.unit = fields[4].first;
    const auto& units = device_measurement_units();
    if (std::find(units.begin(), units.end(), row.unit) == units.end()) {
      std::string known;
      for (const std::string& u : units) known += (known.empty() ? "" : ", ") + u;
      fail(line, fields[4].second, "unknown unit '" + row.unit + "' (known: " + known + ")");
    }
    m.rows.push_back(std::move(row));
  }
  if (line == 0) fail(1, 1, std::string("empty file: the first line must be '") + kMagic + "'");
  if (!columns_seen) fail(line, 1, std::string("no column line '") + kColumns + "'");
  return m;
}

}  // namespace hpcsim
