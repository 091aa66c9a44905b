#pragma once
// A SQLite file of simulation runs and their metrics (results.db), and of the studies that ran them.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/metric.h"
#include "store/study.h"

namespace hpcsim {

struct RunRecord {
  Report report;              // scenario name, kind and metrics
  std::string scenario_text;  // the scenario as run; its content_hash is stored beside it
  std::string tool_version;
  std::string started_at;     // ISO-8601 UTC; empty means "now"
  double wall_s = 0.0;
  std::string status = "ok";  // "ok", "oom" or "error"
  std::string message;
};

struct StoredRun {
  std::int64_t id = 0;
  std::string scenario_name, kind, scenario_text, scenario_hash, tool_version, started_at, status, message;
  double wall_s = 0.0;
};

struct StoredStudy {
  std::int64_t id = 0;
  std::string name, base_scenario_hash, parameters_json, created_at;
};

struct StoredStudyPoint {
  std::int64_t index = 0;
  std::string values_json;
  PointStatus status = PointStatus::pending;
  std::optional<std::int64_t> run_id;
  std::string claimed_by;  // a pending point's claimer (claim_study_points); empty: none
};

// what() reads "<file>: <message>".
class StoreError : public std::runtime_error {
 public:
  StoreError(const std::string& file, const std::string& message);
};

// A store SQLite finds damaged (malformed pages or indexes, not a database): unusable input, like a foreign
// file, though found only where the damage is read.
class StoreDamaged : public StoreError {
 public:
  using StoreError::StoreError;
};

// Storing a study point that already has its run: another process stored it first. Nothing was written.
class PointStoredAlready : public StoreError {
 public:
  using StoreError::StoreError;
};

// write: a command that stores: creates the file (at its first use) and its schema when absent or empty;
// refuses a read-only file or a folder it cannot create the file in.
// read: a command that only reads: never creates or initialises a file; refuses a missing or empty one.
// Both refuse what is not an hpcsim store, or one too new, before anything is written, and upgrade an older
// hpcsim's store in place.
enum class StoreAccess { read, write };

class ResultsStore {
 public:
  // Opens and checks the store at `path` (see StoreAccess). Throws StoreError with the reason.
  explicit ResultsStore(const std::string& path, StoreAccess access = StoreAccess::write);
  ~ResultsStore();
  ResultsStore(ResultsStore&&) noexcept;
  ResultsStore& operator=(ResultsStore&&) noexcept;

  const std::string& path() const;

  // Writes the run row and all its metric rows in one transaction: all or nothing.
  std::int64_t record_run(const RunRecord& run);

  // Writes the study and all its points as pending in one transaction; returns the study id.
  std::int64_t record_study(const Study& study);
  // Writes the run of point `index` and sets the point's status (the run's) and run id, in one transaction:
  // a point is stored as it completes, so a sweep cut short keeps every point it finished. A point that
  // already has its run is PointStoredAlready (and nothing is written): no point is ever stored twice.
  std::int64_t record_study_point(std::int64_t study_id, std::size_t index, const RunRecord& run);
  // Completes point `index` with a run already stored (the same resolved scenario run before).
  void link_study_point(std::int64_t study_id, std::size_t index, std::int64_t run_id, PointStatus status);
  // Claims up to `most` pending points of the study for this process in one transaction, lowest index first:
  // points no one claimed, then points whose claimer is gone (killed: a resume takes its points over). A point
  // another live process claimed is left to it, so sweeps of one study at once share its points. Returns the
  // indices claimed; none when every pending point is claimed by a live process.
  std::vector<std::size_t> claim_study_points(std::int64_t study_id, std::size_t most);
  // The latest study of this base scenario (content hash) and parameters (parameters_json): a sweep
  // started again resumes it.
  std::optional<std::int64_t> find_study(std::string_view base_scenario_hash, std::string_view parameters_json) const;
  // find_study of the study's base scenario and parameters, else record_study, in one transaction: sweeps of
  // one study started at once on a new store share one study.
  std::int64_t find_or_record_study(const Study& study);

  std::vector<StoredRun> runs() const;                          // by id
  std::vector<Metric> metrics(std::int64_t run_id) const;       // in recorded order
  Report report(const StoredRun& run) const;                    // its name, kind and metrics
  std::vector<StoredStudy> studies() const;                     // by id
  std::vector<StoredStudyPoint> study_points(std::int64_t study_id) const;  // by index
  std::optional<std::int64_t> find_by_hash(std::string_view scenario_hash) const;  // latest "ok" run

  // Called after each metric row is written, inside the still-open transaction, so tests can
  // crash or fail a write midway. Production code leaves it unset.
  void set_metric_written_hook(std::function<void(std::size_t written)> hook);

 private:
  std::string run_context(const RunRecord& run) const;
  std::int64_t insert_run(const RunRecord& run);  // inside a transaction the caller holds
  std::int64_t insert_study(const Study& study, const std::string& context);  // likewise
  // Why completing point `index` changed no row: PointStoredAlready, or a StoreError for a missing point.
  [[noreturn]] void point_not_completed(std::int64_t study_id, std::size_t index, const std::string& context) const;

  struct Impl;
  Impl& impl() const;  // the open connection, made at first use where the file did not exist yet
  std::string path_;
  mutable std::unique_ptr<Impl> impl_;
};

// 64-bit FNV-1a of `text` as 16 lowercase hex digits; stable across runs and platforms.
std::string content_hash(std::string_view text);

// The current time as "YYYY-MM-DDTHH:MM:SSZ".
std::string iso8601_utc_now();

}  // namespace hpcsim
