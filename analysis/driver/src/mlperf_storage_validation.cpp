#include "driver/mlperf_storage_validation.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <utility>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
#include "configs/schema.h"

namespace hpcsim {

namespace {

constexpr double kMiB = 1048576.0;
constexpr double kMaxSearchProcesses = 2147483647.0;

const Schema& case_file_schema() {
  static const Schema schema = Schema::map({
      required("cases",
               Schema::list(Schema::map({
                   required("name", Schema::string(), "the case"),
                   required("family", Schema::string(), "the submitter (a source family)"),
                   required("source", Schema::string(), "where the result and the system description come from"),
                   required("filesystem", filesystem_spec_schema(), "the storage as hardware"),
                   required("workload", Schema::string(), "unet3d, resnet50 or cosmoflow"),
                   required("accelerator", Schema::string(), "the emulated accelerator: h100 or a100"),
                   required("hosts", Schema::integer().at_least(1), "benchmark hosts (client nodes)"),
                   optional("read_threads", Schema::integer().at_least(1),
                            "the run's reader.read_threads (its configs/overrides.yaml)", "the workload's"),
                   optional("host",
                            Schema::map({
                                required("cores", Schema::integer().at_least(1),
                                         "physical cores per host (the system JSON's sockets x cores per socket)"),
                                optional("clock", Schema::quantity(Dimension::frequency).positive(),
                                         "the cores' base clock (the system JSON's base_frequency)",
                                         "not given: the per-core rate"),
                            }),
                            "the client hosts (without it the hosts' readers are not modelled)"),
                   optional("largest", Schema::boolean(),
                            "the submitter's largest count for this system and workload (scored for count)", "true"),
                   required("measured",
                            Schema::map({
                                required("accelerators", Schema::integer().at_least(1),
                                         "emulated accelerators at the AU threshold"),
                                required("throughput_MiBps", Schema::number().positive().at_most(1e12),  // an EiB/s: finite in bytes
                                         "train throughput, MiB/s"),
                            }),
                            "the published result"),
               })),
               "the MLPerf Storage cases"),
  });
  return schema;
}

}  // namespace

std::vector<MlperfStorageCase> load_mlperf_storage_cases(const std::filesystem::path& file,
                                                         const SpecCatalog& catalog) {
  const ConfigNode root = load_config_file(file);
  case_file_schema().validate(root);
  std::vector<MlperfStorageCase> out;
  for (const ConfigNode& item : root.at("cases").items()) {
    MlperfStorageCase c;
    c.name = item.get_string("name");
    c.family = item.get_string("family");
    c.source = item.get_string("source");
    c.fs = parse_filesystem_spec(item.at("filesystem"), c.name, catalog);
    const std::string model = item.get_string("workload");
    const std::string accelerator = item.get_string("accelerator");
    const std::optional<DlioWorkload> w = find_dlio_workload(model, accelerator);
    if (!w)
      throw ConfigError(item.at("workload").loc(),
                        "no MLPerf Storage workload '" + model + "' on '" + accelerator +
                            "' (unet3d, resnet50, cosmoflow on h100, a100)");
    c.workload = *w;
    if (item.has("read_threads")) c.workload.read_threads = static_cast<int>(item.get_int("read_threads"));
    if (item.has("host")) {
      const ConfigNode& host = item.at("host");
      c.host.cores = static_cast<int>(host.get_int("cores"));
      if (host.has("clock")) c.host.clock_hz = host.get_quantity("clock", Dimension::frequency);
    }
    // As `io --mlperf` checks its flags: the hosts are client nodes, every accelerator's reader threads are
    // processes (2,147,483,647 accelerators wrapped the product to a negative count: tests/fuzz).
    check_count(CountLimit::nodes, static_cast<double>(item.get_int("hosts")), item.at("hosts").loc(), "the case's hosts");
    const ConfigNode& measured = item.at("measured");
    check_count(CountLimit::readers,
                static_cast<double>(measured.get_int("accelerators")) * static_cast<double>(c.workload.read_threads),
                measured.at("accelerators").loc(), "the case's accelerators x read threads");
    // The search for the largest passing count goes up to 64 times the published one (below): its processes
    // are counted in an int, whatever --limit readers allows.
    if (64.0 * static_cast<double>(measured.get_int("accelerators")) * c.workload.read_threads > kMaxSearchProcesses) {
      throw ConfigError(measured.at("accelerators").loc(),
                        "the search for the largest passing count runs up to 64 x these accelerators x their read "
                        "threads, more than 2,147,483,647 processes");
    }
    c.hosts = static_cast<int>(item.get_int("hosts"));
    c.largest = item.get_bool_or("largest", true);
    c.accelerators = static_cast<int>(measured.get_int("accelerators"));
    c.throughput_MiBps = measured.get_number("throughput_MiBps");
    if (c.accelerators < c.hosts)
      throw ConfigError(measured.at("accelerators").loc(), "fewer accelerators than hosts");
    out.push_back(std::move(c));
  }
  return out;
}

std::map<std::string, DerivedReaderRate> derive_reader_rates(const std::vector<MlperfStorageCase>& cases,
                                                             const std::string& left_out) {
  struct Logs {
    double per_core = 0;
    int rows = 0;
    double per_cycle = 0;
    int clocked = 0;
  };
  std::map<std::string, Logs> logs;
  for (const MlperfStorageCase& c : cases) {
    if (c.host.cores <= 0 || (!left_out.empty() && c.family == left_out)) continue;
    const double cores = static_cast<double>(dlio_reader_cores(c.workload, c.host, c.accelerators, c.hosts));
    Logs& l = logs[c.workload.format];
    const double per_core = c.throughput_MiBps * kMiB / cores;
    l.per_core += std::log(per_core);
    ++l.rows;
    if (c.host.clock_hz > 0) {
      l.per_cycle += std::log(per_core / c.host.clock_hz);
      ++l.clocked;
    }
  }
  std::map<std::string, DerivedReaderRate> out;
  for (const auto& [format, l] : logs)
    out[format] = {std::exp(l.per_core / l.rows), l.clocked ? std::exp(l.per_cycle / l.clocked) : 0.0};
  return out;
}

MlperfStorageValidation validate_mlperf_storage(const std::vector<MlperfStorageCase>& cases) {
  const auto t0 = std::chrono::steady_clock::now();
  MlperfStorageValidation v;
  v.reader_rates = derive_reader_rates(cases);
  double ape = 0;
  double ape_out = 0;
  for (const MlperfStorageCase& c : cases) {
    MlperfStorageRow r;
    r.case_name = c.name;
    r.workload = c.workload.model + "-" + c.workload.accelerator;
    r.hosts = c.hosts;
    r.accelerators = c.accelerators;
    r.largest = c.largest;
    r.throughput_MiBps = c.throughput_MiBps;
    // Search up to 64x the published count: far beyond any step, bounded for the simulation's sake.
    // In sample: the reader rate derived over these cases (over the shipped cases it is dlio.cpp's).
    DlioHost host = c.host;
    if (host.cores > 0) {
      host.bytes_per_core_s = v.reader_rates.at(c.workload.format).bytes_per_core_s;
      host.bytes_per_cycle = v.reader_rates.at(c.workload.format).bytes_per_cycle;
    }
    // Submitters run the same accelerators on every host (each multi-host count published is a multiple of
    // its hosts); AU does not rise with the count, so the largest such passing count is this.
    const auto per_host = [&](int largest) { return largest / c.hosts * c.hosts; };
    r.predicted_accelerators = per_host(max_dlio_accelerators(c.fs, c.workload, c.hosts, 64 * c.accelerators, host));
    r.within_step = std::abs(r.predicted_accelerators - c.accelerators) <= c.hosts;
    const DlioResult at = simulate_dlio(c.fs, c.workload, c.accelerators, c.hosts, host);
    r.predicted_throughput_MiBps = at.bytes_per_s / kMiB;
    r.predicted_au = at.au;
    r.bottleneck =
        simulate_dlio(c.fs, c.workload, std::max(r.predicted_accelerators, c.hosts), c.hosts, host).bottleneck;
    // The same with the reader rate derived without this row's submitter (hosts described only).
    const std::map<std::string, DerivedReaderRate> out_rates =
        c.host.cores > 0 ? derive_reader_rates(cases, c.family) : std::map<std::string, DerivedReaderRate>{};
    const auto rate = out_rates.find(c.workload.format);
    // A host with a clock needs a per-cycle rate from the other submitters' clocked rows.
    if (rate != out_rates.end() && (c.host.clock_hz <= 0 || rate->second.bytes_per_cycle > 0)) {
      const DlioHost out_host{c.host.cores, c.host.clock_hz, rate->second.bytes_per_core_s, rate->second.bytes_per_cycle};
      r.predicted_accelerators_family_out =
          per_host(max_dlio_accelerators(c.fs, c.workload, c.hosts, 64 * c.accelerators, out_host));
      r.within_step_family_out = std::abs(r.predicted_accelerators_family_out - c.accelerators) <= c.hosts;
      r.predicted_throughput_MiBps_family_out =
          simulate_dlio(c.fs, c.workload, c.accelerators, c.hosts, out_host).bytes_per_s / kMiB;
      ++v.family_out_rows;
      ape_out += std::abs(r.predicted_throughput_MiBps_family_out - c.throughput_MiBps) / c.throughput_MiBps;
      if (c.largest) v.within_step_family_out += r.within_step_family_out ? 1 : 0;
    }
    if (c.largest) {
      ++v.scored_counts;
      v.within_step += r.within_step ? 1 : 0;
    }
    ape += std::abs(r.predicted_throughput_MiBps - c.throughput_MiBps) / c.throughput_MiBps;
    v.rows.push_back(std::move(r));
  }
  v.throughput_mape = cases.empty() ? 0 : ape / static_cast<double>(cases.size());
  v.throughput_mape_family_out = v.family_out_rows ? ape_out / v.family_out_rows : 0;
  v.sim_wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

}  // namespace hpcsim
