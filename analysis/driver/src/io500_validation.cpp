#include "driver/io500_validation.h"

#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "configs/schema.h"

namespace hpcsim {

namespace {

constexpr double kGiB = 1073741824.0;

// Measured keys of a case, as the IO500 lists publish them (GiB/s and thousands of operations per second).
struct MeasuredKey {
  const char* key;
  Io500Phase phase;
  double scale;
};
constexpr MeasuredKey kMeasuredKeys[] = {
    {"ior_easy_write_GiBps", Io500Phase::ior_easy_write, kGiB},
    {"ior_easy_read_GiBps", Io500Phase::ior_easy_read, kGiB},
    {"ior_hard_write_GiBps", Io500Phase::ior_hard_write, kGiB},
    {"ior_hard_read_GiBps", Io500Phase::ior_hard_read, kGiB},
    {"mdtest_easy_write_kIOPS", Io500Phase::mdtest_easy_create, 1e3},
    {"mdtest_hard_write_kIOPS", Io500Phase::mdtest_hard_create, 1e3},
};

const Schema& case_file_schema() {
  // A published rate, in GiB/s or thousands of operations per second: positive, and below 1e9 (an EiB/s),
  // so that it stays finite in bytes (1e308 GiB/s overflowed to inf and printed a nan MAPE: tests/fuzz).
  static const Schema kMeasuredRate = Schema::number().positive().at_most(1e9);
  static const Schema schema = Schema::map({
      required("cases",
               Schema::list(Schema::map({
                   required("name", Schema::string(), "the case"),
                   required("family", Schema::string(), "the submitting institution (a source family)"),
                   required("source", Schema::string(), "where the row comes from"),
                   required("filesystem", filesystem_spec_schema(), "the file system as hardware"),
                   required("clients", Schema::map({
                                           required("nodes", Schema::integer().at_least(1), "client nodes"),
                                           required("procs", Schema::integer().at_least(1), "processes in all"),
                                       }),
                            "the clients"),
                   required("measured",
                            Schema::map({
                                optional("ior_easy_write_GiBps", kMeasuredRate, "ior-easy write, GiB/s"),
                                optional("ior_easy_read_GiBps", kMeasuredRate, "ior-easy read, GiB/s"),
                                optional("ior_hard_write_GiBps", kMeasuredRate, "ior-hard write, GiB/s"),
                                optional("ior_hard_read_GiBps", kMeasuredRate, "ior-hard read, GiB/s"),
                                optional("mdtest_easy_write_kIOPS", kMeasuredRate,
                                         "mdtest-easy creates, thousands per second"),
                                optional("mdtest_hard_write_kIOPS", kMeasuredRate,
                                         "mdtest-hard creates, thousands per second"),
                            }),
                            "what the row measured"),
               })),
               "the IO500 cases"),
  });
  return schema;
}

// Grid fits by least absolute log error (as validate --fit; MAPE would favour under-prediction): values
// 10^(lo + k/10), k = 0..steps.
struct Grid {
  double lo;
  int steps;
  double value(int k) const { return std::pow(10.0, lo + k / 10.0); }
};
constexpr Grid kHandoffGrid{-6, 50};   // 1 us .. 100 ms
constexpr Grid kMetadataGrid{3, 30};   // 1,000 .. 1,000,000 operations per second

// Per (case, phase) row of a fit: the measured rate and the prediction at every grid value.
struct GridRow {
  std::size_t case_index;
  Io500Phase phase;
  double measured;
  std::vector<double> predicted;
};

// The grid index with the least absolute log error over the rows `use` admits; none when fewer than 3 rows or 2 families.
template <class Use>
std::optional<int> best_index(const std::vector<GridRow>& rows, const std::vector<Io500Case>& cases, int steps,
                              Use use, int& row_count, int& family_count) {
  std::set<std::string> families;
  std::set<std::size_t> used_cases;
  std::vector<double> error(steps + 1, 0.0);
  row_count = 0;
  for (const GridRow& r : rows) {
    if (!use(r)) continue;
    ++row_count;
    families.insert(cases[r.case_index].family);
    for (int k = 0; k <= steps; ++k) error[k] += std::abs(std::log(r.predicted[k] / r.measured));
  }
  family_count = static_cast<int>(families.size());
  if (row_count < 3 || family_count < 2) return std::nullopt;
  int best = 0;
  for (int k = 1; k <= steps; ++k)
    if (error[k] < error[best]) best = k;
  return best;
}

std::string type_name(const Io500Case& c) { return std::string(kFileSystemTypeNames.name(c.fs.type)); }

FileSystemSpec with_params(FileSystemSpec fs, std::optional<double> handoff, std::optional<double> ops) {
  if (takes_shared_file_locks(fs.type)) fs.lock_handoff_s = handoff.value_or(0.0);
  if (ops) fs.metadata.ops_per_s = *ops;
  return fs;
}

bool is_lock_phase(Io500Phase p) { return p == Io500Phase::ior_hard_write; }
bool is_metadata_phase(Io500Phase p) { return p == Io500Phase::mdtest_easy_create || p == Io500Phase::mdtest_hard_create; }

}  // namespace

std::vector<Io500Case> load_io500_cases(const std::filesystem::path& file, const SpecCatalog& catalog) {
  const ConfigNode root = load_config_file(file);
  case_file_schema().validate(root);
  std::vector<Io500Case> out;
  for (const ConfigNode& item : root.at("cases").items()) {
    Io500Case c;
    c.name = item.get_string("name");
    c.family = item.get_string("family");
    c.source = item.get_string("source");
    c.fs = parse_filesystem_spec(item.at("filesystem"), c.name, catalog);
    const ConfigNode& clients = item.at("clients");
    // As `io --clients` and `--procs` are checked: a process is a flow of every phase, run at each fit's grid
    // values (2,147,483,647 processes ran silent past a minute: tests/fuzz).
    check_count(CountLimit::nodes, static_cast<double>(clients.get_int("nodes")), clients.at("nodes").loc(),
                "the case's client nodes");
    check_count(CountLimit::readers, static_cast<double>(clients.get_int("procs")), clients.at("procs").loc(),
                "the case's processes");
    c.clients.nodes = static_cast<int>(clients.get_int("nodes"));
    c.clients.procs = static_cast<int>(clients.get_int("procs"));
    if (c.clients.procs < c.clients.nodes)
      throw ConfigError(clients.at("procs").loc(), "fewer processes than client nodes");
    const ConfigNode& measured = item.at("measured");
    for (const MeasuredKey& key : kMeasuredKeys)
      if (measured.has(key.key)) c.measured.emplace_back(key.phase, measured.get_number(key.key) * key.scale);
    out.push_back(std::move(c));
  }
  return out;
}

const std::vector<ScoredPhase>& io500_scored_phases() {
  static const std::vector<ScoredPhase> phases = {
      {Io500Phase::ior_easy_write, 0.25},     {Io500Phase::ior_easy_read, 0.25},
      {Io500Phase::ior_hard_write, 0.40},     {Io500Phase::ior_hard_read, 0.40},
      {Io500Phase::mdtest_easy_create, 0.40}, {Io500Phase::mdtest_hard_create, 0.40},
  };
  return phases;
}

Io500Validation validate_io500(const std::vector<Io500Case>& cases) {
  const auto started = std::chrono::steady_clock::now();
  std::uint64_t events = 0;
  // Predictions at every grid value of the parameter a phase depends on.
  std::vector<GridRow> lock_rows, metadata_rows;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const Io500Case& c = cases[i];
    for (const auto& [phase, measured] : c.measured) {
      if (is_lock_phase(phase) && takes_shared_file_locks(c.fs.type)) {
        GridRow row{i, phase, measured, {}};
        for (int k = 0; k <= kHandoffGrid.steps; ++k)
          row.predicted.push_back(
              simulate_io500_phase(with_params(c.fs, kHandoffGrid.value(k), std::nullopt), c.clients, phase, events).rate);
        lock_rows.push_back(std::move(row));
      } else if (is_metadata_phase(phase)) {
        GridRow row{i, phase, measured, {}};
        for (int k = 0; k <= kMetadataGrid.steps; ++k)
          row.predicted.push_back(
              simulate_io500_phase(with_params(c.fs, std::nullopt, kMetadataGrid.value(k)), c.clients, phase, events).rate);
        metadata_rows.push_back(std::move(row));
      }
    }
  }
  // The fit over every case, and one per left-out file-system type.
  std::set<std::string> types;
  for (const Io500Case& c : cases) types.insert(type_name(c));
  auto fit_without = [&](const std::string& left_out) {
    Io500Fit fit;
    auto keep = [&](const GridRow& r) { return type_name(cases[r.case_index]) != left_out; };
    if (auto k = best_index(lock_rows, cases, kHandoffGrid.steps, keep, fit.lock_rows, fit.lock_families))
      fit.lock_handoff_s = kHandoffGrid.value(*k);
    if (auto k = best_index(metadata_rows, cases, kMetadataGrid.steps, keep, fit.metadata_rows, fit.metadata_families))
      fit.metadata_ops = kMetadataGrid.value(*k);
    return fit;
  };
  Io500Validation out;
  out.fit = fit_without("");
  std::map<std::string, Io500Fit> out_fits;
  for (const std::string& t : types) out_fits[t] = fit_without(t);

  for (const Io500Case& c : cases) {
    const Io500Fit& out_fit = out_fits[type_name(c)];
    const FileSystemSpec in_fs = with_params(c.fs, out.fit.lock_handoff_s, out.fit.metadata_ops);
    const FileSystemSpec out_fs = with_params(c.fs, out_fit.lock_handoff_s, out_fit.metadata_ops);
    for (const auto& [phase, measured] : c.measured) {
      const Io500PhaseResult in = simulate_io500_phase(in_fs, c.clients, phase, events);
      const bool fitted = (is_lock_phase(phase) && takes_shared_file_locks(c.fs.type)) || is_metadata_phase(phase);
      const double predicted_out = fitted ? simulate_io500_phase(out_fs, c.clients, phase, events).rate : in.rate;
      out.rows.push_back({c.name, type_name(c), phase, measured, in.rate, predicted_out, in.bottleneck});
    }
  }
  for (const ScoredPhase& sp : io500_scored_phases()) {
    std::vector<std::string> group_types(types.begin(), types.end());
    group_types.push_back("all");
    for (const std::string& t : group_types) {
      Io500Group g{sp.phase, t, 0, 0, 0, sp.target};
      for (const Io500Row& r : out.rows) {
        if (r.phase != sp.phase || (t != "all" && r.type != t)) continue;
        ++g.cases;
        g.mape += std::abs(r.predicted - r.measured) / r.measured;
        g.mape_out += std::abs(r.predicted_out - r.measured) / r.measured;
      }
      if (g.cases == 0) continue;
      g.mape /= g.cases;
      g.mape_out /= g.cases;
      out.groups.push_back(g);
    }
  }
  out.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return out;
}

}  // namespace hpcsim
