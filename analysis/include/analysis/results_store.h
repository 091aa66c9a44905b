#pragma once
// A SQLite file of simulation runs and their metrics (results.db).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace hpcsim {

struct Metric {
  std::string name;
  std::optional<double> value;  // empty: undefined here (e.g. tokens_per_s of a non-sequence model);
                                // NaN is refused, -0.0 reads back as 0.0
  std::string unit;
};

struct RunRecord {
  std::string scenario_name;
  std::string scenario_text;  // the scenario as run; its content_hash is stored beside it
  std::string tool_version;
  std::string started_at;     // ISO-8601 UTC; empty means "now"
  double wall_s = 0.0;
  std::string status = "ok";  // "ok", "oom" or "error"
  std::string message;
  std::vector<Metric> metrics;  // names unique within a run
};

struct StoredRun {
  std::int64_t id = 0;
  std::string scenario_name, scenario_text, scenario_hash, tool_version, started_at, status, message;
  double wall_s = 0.0;
};

// what() reads "<file>: <message>".
class StoreError : public std::runtime_error {
 public:
  StoreError(const std::string& file, const std::string& message);
};

class ResultsStore {
 public:
  // Opens the store at `path`, creating file and schema if absent. Throws StoreError.
  explicit ResultsStore(const std::string& path);
  ~ResultsStore();
  ResultsStore(ResultsStore&&) noexcept;
  ResultsStore& operator=(ResultsStore&&) noexcept;

  const std::string& path() const;

  // Writes the run row and all its metric rows in one transaction: all or nothing.
  std::int64_t record_run(const RunRecord& run);

  std::vector<StoredRun> runs() const;                          // by id
  std::vector<Metric> metrics(std::int64_t run_id) const;       // in recorded order
  std::optional<std::int64_t> find_by_hash(std::string_view scenario_hash) const;  // latest "ok" run

  // Called after each metric row is written, inside the still-open transaction, so tests can
  // crash or fail a write midway. Production code leaves it unset.
  void set_metric_written_hook(std::function<void(std::size_t written)> hook);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// 64-bit FNV-1a of `text` as 16 lowercase hex digits; stable across runs and platforms.
std::string content_hash(std::string_view text);

// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string iso8601_utc_now();

}  // namespace hpcsim
