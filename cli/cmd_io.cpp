// hpcsim io: read a dataset of equally sized samples from a storage system with W readers; with --io500,
// the IO500 phases on a file system described as hardware; with --mlperf, an MLPerf Storage workload (DLIO's
// emulated accelerators) on it; with --validate, the IO500 (or, with --mlperf, the MLPerf Storage) category.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.h"
#include "progress.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/json_writer.h"
#include "configs/units.h"
#include "driver/io500_validation.h"
#include "driver/mlperf_storage_validation.h"
#include "models/storage/dataset_read.h"
#include "models/storage/dlio.h"
#include "models/storage/io500.h"

namespace hpcsim::cli {

namespace {

struct IoOptions {
  std::string storage;
  std::int64_t samples = 0;
  std::string sample_size;
  int readers = 1;
  int nodes = 1;
  std::string op = "read";
  std::optional<int> stripe_count;
  std::string format = "table";
  bool io500 = false;
  std::string filesystem;
  int clients = 1;
  std::optional<int> procs;
  bool validate = false;
  std::string cases;
  bool checkpoint = false;
  std::string bytes_per_proc;
  bool mlperf = false;
  std::string workload;
  std::string accelerator = "h100";
  std::optional<int> accelerators;
  std::optional<int> read_threads;
  std::optional<int> host_cores;
  std::string host_clock;
  bool files = false;
};

std::string number(double value) { return json::number(value, 10); }

std::string to_json(const StorageSpec& spec, const DatasetRead& job, const DatasetReadResult& r) {
  std::ostringstream out;
  out << "{\n  \"storage\": " << json::quote(spec.name) << ",\n  \"kind\": " << json::quote(to_string(spec.kind)) << ",\n"
      << "  \"op\": " << json::quote(job.op == IoOp::read ? "read" : "write") << ",\n"
      << "  \"samples\": " << job.samples << ",\n  \"sample_size_bytes\": " << number(job.sample_bytes) << ",\n"
      << "  \"readers\": " << job.readers << ",\n  \"nodes\": " << job.nodes << ",\n"
      << "  \"time_s\": " << number(r.time_s) << ",\n"
      << "  \"throughput\": {\"samples_per_s\": " << number(r.samples_per_s)
      << ", \"bytes_per_s\": " << number(r.bytes_per_s) << "},\n"
      << "  \"bottleneck\": " << json::quote(r.bottleneck) << ",\n"
      << "  \"reader_time_s\": {\"queue\": " << number(r.reader_time.queue_s) << ", \"latency\": "
      << number(r.reader_time.latency_s) << ", \"transfer\": " << number(r.reader_time.transfer_s) << "},\n"
      << "  \"utilisation\": {";
  for (std::size_t i = 0; i < r.utilisation.size(); ++i)
    out << (i ? ", " : "") << json::quote(r.utilisation[i].name) << ": " << number(r.utilisation[i].utilisation);
  out << "},\n  \"events\": " << r.events << "\n}\n";
  return out.str();
}

std::string to_table(const StorageSpec& spec, const DatasetRead& job, const DatasetReadResult& r) {
  std::ostringstream out;
  out << "storage      " << spec.name << " (" << to_string(spec.kind) << ")\n"
      << "dataset      " << job.samples << " samples of " << format_quantity(job.sample_bytes, Dimension::bytes)
      << ", " << job.readers << " readers on " << job.nodes << " node(s)\n"
      << "time         " << number(r.time_s) << " s\n"
      << "throughput   " << number(r.samples_per_s) << " samples/s, "
      << number(r.bytes_per_s / 1e6) << " MB/s\n"
      << "bottleneck   " << r.bottleneck << "\n"
      << "reader time  " << number(r.reader_time.queue_s) << " s queued, " << number(r.reader_time.latency_s)
      << " s in latency, " << number(r.reader_time.transfer_s) << " s moving data\n";
  for (const ResourceUse& use : r.utilisation) out << "  " << use.name << ": " << number(100 * use.utilisation) << "% busy\n";
  return out.str();
}

std::string rate_text(Io500Phase phase, double rate) {
  return is_bandwidth_phase(phase) ? number(rate / 1073741824.0) + " GiB/s" : number(rate / 1e3) + " kIOPS";
}

// --io500 and --checkpoint: the file system and its clients, or the exit code of bad input.
std::optional<std::pair<FileSystemSpec, Io500Clients>> load_filesystem_run(const IoOptions& o, const char* mode) {
  if (o.filesystem.empty()) {
    std::cerr << mode << " needs --filesystem NAME (configs/filesystems/NAME.yaml)\n";
    return std::nullopt;
  }
  FileSystemSpec fs;
  try {
    const SpecCatalog catalog(config_root());
    const ConfigNode name = ConfigNode::make_scalar(o.filesystem, SourceLoc{"--filesystem " + o.filesystem, 0, 0});
    fs = parse_filesystem_spec(catalog.load("filesystems", name, "file system"), o.filesystem, catalog);
    check_count(CountLimit::nodes, o.clients, SourceLoc{"--clients " + std::to_string(o.clients)}, "the run");
    if (o.procs) check_count(CountLimit::readers, *o.procs, SourceLoc{"--procs " + std::to_string(*o.procs)}, "the run");
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return std::nullopt;
  }
  const Io500Clients clients{o.clients, o.procs.value_or(o.clients)};
  if (clients.procs < clients.nodes) {
    std::cerr << "--procs " << clients.procs << ": fewer processes than the " << clients.nodes << " client nodes\n";
    return std::nullopt;
  }
  return std::make_pair(fs, clients);
}

// A file's size from a flag: at least one byte and at most 1 PiB; otherwise the reason on stderr and nothing.
std::optional<double> file_bytes_flag(const char* flag, const std::string& text, const char* what) {
  double bytes = 0;
  try {
    bytes = parse_quantity(text, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    std::cerr << flag << " " << text << ": " << e.what() << "\n";
    return std::nullopt;
  }
  if (!(bytes > 0) || bytes > 1125899906842624.0) {
    std::cerr << flag << " " << text << ": " << what << " at least one byte and at most 1 PiB\n";
    return std::nullopt;
  }
  return bytes;
}

int run_checkpoint(const IoOptions& o) {
  const auto loaded = load_filesystem_run(o, "--checkpoint");
  if (!loaded) return kExitBadInput;
  const auto& [fs, clients] = *loaded;
  const std::optional<double> parsed = file_bytes_flag("--bytes-per-proc", o.bytes_per_proc, "a process writes");
  if (!parsed) return kExitBadInput;
  const double bytes = *parsed;
  const IoOp op = o.op == "read" ? IoOp::read : IoOp::write;
  const CheckpointResult r = simulate_checkpoint(fs, clients, bytes, op);
  const double total = bytes * clients.procs;
  if (o.format == "json") {
    json::Line stages = json::Line::object();
    for (const StageUse& u : r.rate.stages) stages.field(u.stage, number(u.utilisation));
    std::cout << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"op\": " << json::quote(o.op)
              << ",\n  \"clients\": " << clients.nodes << ",\n  \"procs\": " << clients.procs
              << ",\n  \"bytes\": " << number(total) << ",\n  \"time_s\": " << number(r.time_s)
              << ",\n  \"bytes_per_s\": " << number(r.rate.rate) << ",\n  \"bottleneck\": "
              << json::quote(r.rate.bottleneck) << ",\n  \"utilisation\": " << stages.str() << "\n}\n";
    return kExitOk;
  }
  std::cout << "checkpoint   " << o.op << " of " << format_quantity(bytes, Dimension::bytes) << " per process, "
            << clients.procs << " processes on " << clients.nodes << " nodes (" << format_quantity(total, Dimension::bytes)
            << ")\n"
            << "file system  " << fs.name << " (" << kFileSystemTypeNames.name(fs.type) << "): " << fs.data.count
            << " data servers x " << fs.data.devices << " " << fs.data.device_name << ", " << fs.network.name << "\n"
            << "time         " << number(r.time_s) << " s at " << number(r.rate.rate / 1e9) << " GB/s\n"
            << "bottleneck   " << r.rate.bottleneck << "\n";
  for (const StageUse& u : r.rate.stages) std::cout << "  " << u.stage << ": " << number(100 * u.utilisation) << "% busy\n";
  return kExitOk;
}

// --files: --procs readers on --clients nodes each read whole files of --sample-size one after another (a
// training data loader's workers), on --filesystem: the steady rate and what binds it.
int run_file_reads(const IoOptions& o) {
  const auto loaded = load_filesystem_run(o, "--files");
  if (!loaded) return kExitBadInput;
  const auto& [fs, clients] = *loaded;
  if (o.sample_size.empty()) {
    std::cerr << "--files needs --sample-size (the bytes of one file, e.g. 110KB)\n";
    return kExitBadInput;
  }
  const std::optional<double> parsed = file_bytes_flag("--sample-size", o.sample_size, "a file holds");
  if (!parsed) return kExitBadInput;
  const double bytes = *parsed;
  const FileReadsResult r = simulate_file_reads(fs, clients, bytes);
  if (o.format == "json") {
    json::Line stages = json::Line::object();
    for (const StageUse& u : r.read.stages) stages.field(u.stage, number(u.utilisation));
    std::cout << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"clients\": " << clients.nodes
              << ",\n  \"procs\": " << clients.procs << ",\n  \"file_bytes\": " << number(bytes)
              << ",\n  \"bytes_per_s\": " << number(r.bytes_per_s) << ",\n  \"files_per_s\": "
              << number(r.bytes_per_s / bytes) << ",\n  \"bottleneck\": " << json::quote(r.bottleneck)
              << ",\n  \"open_bytes_per_s\": " << number(r.open_bytes_per_s) << ",\n  \"utilisation\": " << stages.str()
              << "\n}\n";
    return kExitOk;
  }
  std::cout << "files        " << format_quantity(bytes, Dimension::bytes) << " each, read whole by " << clients.procs
            << " readers on " << clients.nodes << " nodes, one at a time\n"
            << "file system  " << fs.name << " (" << kFileSystemTypeNames.name(fs.type) << "): " << fs.data.count
            << " data servers x " << fs.data.devices << " " << fs.data.device_name << ", " << fs.network.name << "\n"
            << "rate         " << number(r.bytes_per_s / 1e9) << " GB/s, " << number(r.bytes_per_s / bytes) << " files/s\n"
            << "bottleneck   " << r.bottleneck << "\n";
  for (const StageUse& u : r.read.stages) std::cout << "  " << u.stage << ": " << number(100 * u.utilisation) << "% busy\n";
  if (r.open_bytes_per_s > 0) {
    std::cout << "  metadata opens: " << number(100 * r.bytes_per_s / r.open_bytes_per_s) << "% of the open rate\n";
  }
  return kExitOk;
}

int run_io500(const IoOptions& o) {
  const auto loaded = load_filesystem_run(o, "--io500");
  if (!loaded) return kExitBadInput;
  const auto& [fs, clients] = *loaded;
  const Io500Result r = simulate_io500(fs, clients);
  if (o.format == "json") {
    std::cout << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"type\": "
              << json::quote(kFileSystemTypeNames.name(fs.type)) << ",\n  \"clients\": " << clients.nodes
              << ",\n  \"procs\": " << clients.procs << ",\n  \"phases\": [\n";
    for (std::size_t i = 0; i < r.phases.size(); ++i) {
      const Io500PhaseResult& p = r.phases[i];
      json::Line stages = json::Line::object();
      for (const StageUse& u : p.stages) stages.field(u.stage, number(u.utilisation));
      std::cout << "    " << json::Line::object()
                                   .field("phase", json::quote(kIo500PhaseNames.name(p.phase)))
                                   .field(is_bandwidth_phase(p.phase) ? "bytes_per_s" : "ops_per_s", number(p.rate))
                                   .field("bottleneck", json::quote(p.bottleneck))
                                   .field("utilisation", stages.str())
                                   .str()
                << (i + 1 < r.phases.size() ? ",\n" : "\n");
    }
    std::cout << "  ],\n  \"events\": " << r.events << "\n}\n";
    return kExitOk;
  }
  std::cout << "file system  " << fs.name << " (" << kFileSystemTypeNames.name(fs.type) << "): " << fs.data.count
            << " data servers x " << fs.data.devices << " " << fs.data.device_name << ", " << fs.metadata.count
            << " metadata servers, " << fs.network.name << "\n"
            << "clients      " << clients.nodes << " nodes, " << clients.procs << " processes\n";
  for (const Io500PhaseResult& p : r.phases)
    std::cout << "  " << kIo500PhaseNames.name(p.phase) << std::string(20 - kIo500PhaseNames.name(p.phase).size(), ' ')
              << rate_text(p.phase, p.rate) << "  (" << p.bottleneck << ")\n";
  return kExitOk;
}

int run_io500_validation(const IoOptions& o) {
  std::vector<Io500Case> cases;
  try {
    const SpecCatalog catalog(config_root());
    const std::string file = o.cases.empty() ? config_root() + "/validation/storage/io500.yaml" : o.cases;
    cases = load_io500_cases(file, catalog);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  const Io500Validation v = validate_io500(cases);
  auto fitted = [](const std::optional<double>& x, double scale) { return x ? number(*x * scale) : std::string("null"); };
  if (o.format == "json") {
    std::cout << "{\n  \"category\": \"io500\",\n  \"cases\": " << cases.size() << ",\n  \"fit\": "
              << json::Line::object()
                     .field("lock_handoff_s", fitted(v.fit.lock_handoff_s, 1))
                     .field("lock_rows", std::to_string(v.fit.lock_rows))
                     .field("lock_families", std::to_string(v.fit.lock_families))
                     .field("metadata_ops_per_s", fitted(v.fit.metadata_ops, 1))
                     .field("metadata_rows", std::to_string(v.fit.metadata_rows))
                     .field("metadata_families", std::to_string(v.fit.metadata_families))
                     .str()
              << ",\n  \"groups\": [\n";
    for (std::size_t i = 0; i < v.groups.size(); ++i) {
      const Io500Group& g = v.groups[i];
      std::cout << "    " << json::Line::object()
                                   .field("phase", json::quote(kIo500PhaseNames.name(g.phase)))
                                   .field("type", json::quote(g.type))
                                   .field("cases", std::to_string(g.cases))
                                   .field("mape", number(g.mape))
                                   .field("mape_type_out", number(g.mape_out))
                                   .field("target", number(g.target))
                                   .str()
                << (i + 1 < v.groups.size() ? ",\n" : "\n");
    }
    std::cout << "  ],\n  \"rows\": [\n";
    for (std::size_t i = 0; i < v.rows.size(); ++i) {
      const Io500Row& r = v.rows[i];
      std::cout << "    " << json::Line::object()
                                   .field("case", json::quote(r.case_name))
                                   .field("type", json::quote(r.type))
                                   .field("phase", json::quote(kIo500PhaseNames.name(r.phase)))
                                   .field("measured", number(r.measured))
                                   .field("predicted", number(r.predicted))
                                   .field("predicted_type_out", number(r.predicted_out))
                                   .field("bottleneck", json::quote(r.bottleneck))
                                   .str()
                << (i + 1 < v.rows.size() ? ",\n" : "\n");
    }
    std::cout << "  ]\n}\n";
    return kExitOk;
  }
  std::cout << "IO500 cases (" << cases.size() << "): MAPE per phase and file-system type, in-sample and with the type "
            << "left out of the fit\n";
  std::cout << "  fitted: lock handoff " << (v.fit.lock_handoff_s ? number(*v.fit.lock_handoff_s * 1e3) + " ms" : "none")
            << " (" << v.fit.lock_rows << " rows, " << v.fit.lock_families << " families), metadata "
            << (v.fit.metadata_ops ? number(*v.fit.metadata_ops) + " ops/s per server" : "as the cases give") << " ("
            << v.fit.metadata_rows << " rows, " << v.fit.metadata_families << " families)\n";
  std::cout << "  phase               type             cases    MAPE  type-out  target\n";
  char line[160];
  for (const Io500Group& g : v.groups) {
    std::snprintf(line, sizeof line, "  %-19s %-15s %6d %6.1f%% %8.1f%% %6.0f%%%s\n",
                  std::string(kIo500PhaseNames.name(g.phase)).c_str(), g.type.c_str(), g.cases, 100 * g.mape,
                  100 * g.mape_out, 100 * g.target, g.type == "all" ? (g.mape <= g.target ? "  met" : "  not met") : "");
    std::cout << line;
  }
  return kExitOk;
}

// --mlperf: one MLPerf Storage workload on --filesystem with --clients hosts: the AU and throughput at
// --accelerators, or the largest count at the workload's AU threshold.
int run_mlperf(const IoOptions& o) {
  const auto loaded = load_filesystem_run(o, "--mlperf");
  if (!loaded) return kExitBadInput;
  const FileSystemSpec& fs = loaded->first;
  const int hosts = o.clients;
  if (o.procs) {
    std::cerr << "--procs: with --mlperf the processes are the accelerators' reader threads; give --accelerators\n";
    return kExitBadInput;
  }
  if (o.workload.empty()) {
    std::cerr << "--mlperf needs --workload (unet3d, resnet50, cosmoflow)\n";
    return kExitBadInput;
  }
  std::optional<DlioWorkload> w = find_dlio_workload(o.workload, o.accelerator);
  if (!w) {
    std::cerr << "--workload " << o.workload << " --accelerator " << o.accelerator
              << ": no such MLPerf Storage workload (unet3d, resnet50, cosmoflow on h100, a100)\n";
    return kExitBadInput;
  }
  if (o.read_threads) w->read_threads = *o.read_threads;
  DlioHost host;
  if (o.host_cores) host.cores = *o.host_cores;
  if (!o.host_clock.empty()) {
    if (!o.host_cores) {
      std::cerr << "--host-clock needs --host-cores (the hosts' cores)\n";
      return kExitBadInput;
    }
    try {
      host.clock_hz = parse_quantity(o.host_clock, Dimension::frequency, "Hz");
    } catch (const UnitError& e) {
      std::cerr << "--host-clock " << o.host_clock << ": " << e.what() << "\n";
      return kExitBadInput;
    }
    if (!(host.clock_hz >= 1e8 && host.clock_hz <= 1e10)) {
      std::cerr << "--host-clock " << o.host_clock << ": a core's base clock is 0.1 to 10 GHz\n";
      return kExitBadInput;
    }
  }
  if (o.accelerators && *o.accelerators < hosts) {
    std::cerr << "--accelerators " << *o.accelerators << ": fewer accelerators than the " << hosts << " hosts\n";
    return kExitBadInput;
  }
  try {
    if (o.accelerators) {
      const double readers = static_cast<double>(*o.accelerators) * w->read_threads;
      const SourceLoc flag{"--accelerators " + std::to_string(*o.accelerators)};
      check_count(CountLimit::readers, readers, flag, "the run");
      // Whatever --limit readers allows, the reader processes are counted in an int (2,147,483,647
      // accelerators wrapped it into "internal error": a probe beside fuzz seed 161803).
      if (readers > 2147483647.0) {
        throw ConfigError(flag, "the accelerators' reader threads are more than 2,147,483,647 processes");
      }
    } else {  // the search's smallest run: one accelerator a host
      check_count(CountLimit::readers, static_cast<double>(hosts) * w->read_threads,
                  SourceLoc{"--read-threads " + std::to_string(w->read_threads)}, "one accelerator on each of the " +
                  std::to_string(hosts) + " hosts");
    }
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  // The largest passing count, searched up to 1,024 per host and 65,536 in all (MLPerf Storage v1.0's largest
  // published count is 2,100; 65,536 resnet50 accelerators are 524,288 readers, a fraction of a second), and
  // within the readers limit (accelerators x read threads).
  const auto within_readers = static_cast<std::int64_t>(count_limit(CountLimit::readers) / w->read_threads);
  const int limit = static_cast<int>(std::max<std::int64_t>(
      hosts, std::min({std::int64_t{1024} * hosts, std::int64_t{65536}, within_readers})));
  const int largest = max_dlio_accelerators(fs, *w, hosts, limit, host);
  const int n = o.accelerators.value_or(std::max(largest, hosts));
  const DlioResult r = simulate_dlio(fs, *w, n, hosts, host);
  const double mib = 1048576.0;
  if (o.format == "json") {
    json::Line stages = json::Line::object();
    for (const StageUse& u : r.read.stages) stages.field(u.stage, number(u.utilisation));
    std::cout << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"workload\": " << json::quote(w->model)
              << ",\n  \"accelerator\": " << json::quote(w->accelerator) << ",\n  \"hosts\": " << hosts
              << ",\n  \"au_min\": " << number(w->au_min) << ",\n  \"max_accelerators\": " << largest
              << ",\n  \"accelerators\": " << n << ",\n  \"au\": " << number(r.au)
              << ",\n  \"throughput_MiBps\": " << number(r.bytes_per_s / mib)
              << ",\n  \"samples_per_s\": " << number(r.samples_per_s)
              << ",\n  \"delivered_MiBps\": " << number(r.delivered_bytes_per_s / mib)
              << ",\n  \"read_threads\": " << w->read_threads << ",\n  \"host_cores\": " << host.cores
              << ",\n  \"host_clock_GHz\": " << number(host.clock_hz / 1e9)
              << ",\n  \"host_MiBps\": " << number(r.host_bytes_per_s / mib)
              << ",\n  \"open_MiBps\": " << number(r.open_bytes_per_s / mib)
              << ",\n  \"bottleneck\": " << json::quote(r.bottleneck) << ",\n  \"utilisation\": " << stages.str()
              << "\n}\n";
    return kExitOk;
  }
  std::cout << "workload     " << w->model << " on " << w->accelerator << ": " << w->batch << " x "
            << format_quantity(w->record_bytes, Dimension::bytes) << " per " << number(w->compute_s * 1e3)
            << " ms step, " << w->read_threads << " reader threads; asks " << number(w->asked_bytes_per_s() / mib)
            << " MiB/s per accelerator\n"
            << "file system  " << fs.name << " (" << kFileSystemTypeNames.name(fs.type) << "), " << hosts << " host(s)\n"
            << "largest      " << largest << " accelerators at AU >= " << number(100 * w->au_min) << "%\n"
            << "at " << n << " accelerators: AU " << number(100 * r.au) << "%, " << number(r.bytes_per_s / mib) << " MiB/s, "
            << number(r.samples_per_s) << " samples/s (storage gives " << number(r.delivered_bytes_per_s / mib)
            << " MiB/s"
            << (r.open_bytes_per_s > 0 ? ", the metadata servers' opens " + number(r.open_bytes_per_s / mib) + " MiB/s"
                                       : std::string())
            << (host.cores ? ", the hosts' readers " + number(r.host_bytes_per_s / mib) + " MiB/s on " +
                                                std::to_string(dlio_reader_cores(*w, host, n, hosts)) + " busy cores"
                                          : std::string())
            << ")\n"
            << "bottleneck   " << r.bottleneck << "\n";
  for (const StageUse& u : r.read.stages) std::cout << "  " << u.stage << ": " << number(100 * u.utilisation) << "% busy\n";
  return kExitOk;
}

int run_mlperf_validation(const IoOptions& o) {
  std::vector<MlperfStorageCase> cases;
  try {
    const SpecCatalog catalog(config_root());
    const std::string file = o.cases.empty() ? config_root() + "/validation/storage/mlperf-storage.yaml" : o.cases;
    cases = load_mlperf_storage_cases(file, catalog);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  const MlperfStorageValidation v = validate_mlperf_storage(cases);
  if (o.format == "json") {
    std::cout << "{\n  \"category\": \"mlperf-storage\",\n  \"cases\": " << cases.size()
              << ",\n  \"scored_counts\": " << v.scored_counts << ",\n  \"within_step\": " << v.within_step
              << ",\n  \"throughput_mape\": " << number(v.throughput_mape)
              << ",\n  \"family_out_rows\": " << v.family_out_rows
              << ",\n  \"within_step_family_out\": " << v.within_step_family_out
              << ",\n  \"throughput_mape_family_out\": " << number(v.throughput_mape_family_out);
    json::Line rates = json::Line::object();
    json::Line per_ghz = json::Line::object();
    for (const auto& [format, rate] : v.reader_rates) {
      rates.field(format, number(rate.bytes_per_core_s / 1048576.0));
      per_ghz.field(format, number(rate.bytes_per_cycle * 1e9 / 1048576.0));
    }
    std::cout << ",\n  \"reader_MiBps_per_core\": " << rates.str() << ",\n  \"reader_MiBps_per_core_GHz\": "
              << per_ghz.str() << ",\n  \"rows\": [\n";
    for (std::size_t i = 0; i < v.rows.size(); ++i) {
      const MlperfStorageRow& r = v.rows[i];
      std::cout << "    " << json::Line::object()
                                   .field("case", json::quote(r.case_name))
                                   .field("workload", json::quote(r.workload))
                                   .field("hosts", std::to_string(r.hosts))
                                   .field("accelerators", std::to_string(r.accelerators))
                                   .field("predicted_accelerators", std::to_string(r.predicted_accelerators))
                                   .field("largest", r.largest ? "true" : "false")
                                   .field("within_step", r.within_step ? "true" : "false")
                                   .field("throughput_MiBps", number(r.throughput_MiBps))
                                   .field("predicted_throughput_MiBps", number(r.predicted_throughput_MiBps))
                                   .field("predicted_au", number(r.predicted_au))
                                   .field("bottleneck", json::quote(r.bottleneck))
                                   .field("predicted_accelerators_family_out",
                                          std::to_string(r.predicted_accelerators_family_out))
                                   .field("within_step_family_out", r.within_step_family_out ? "true" : "false")
                                   .field("predicted_throughput_MiBps_family_out",
                                          number(r.predicted_throughput_MiBps_family_out))
                                   .str()
                << (i + 1 < v.rows.size() ? ",\n" : "\n");
    }
    std::cout << "  ]\n}\n";
    return kExitOk;
  }
  std::cout << "MLPerf Storage cases (" << cases.size() << "): largest accelerator count at the AU threshold on the "
            << "row's hosts (within one step: one accelerator per host) and throughput at the published count\n";
  std::cout << "  case                                              workload        hosts  published  predicted  "
               "throughput MiB/s (predicted)  bottleneck  | submitter out: count, MiB/s\n";
  char line[320];
  for (const MlperfStorageRow& r : v.rows) {
    std::snprintf(line, sizeof line, "  %-49s %-15s %5d %10d %10d%s %12.0f (%9.0f)  %-14s | %6d%s %9.0f\n",
                  r.case_name.c_str(), r.workload.c_str(), r.hosts, r.accelerators, r.predicted_accelerators,
                  !r.largest ? " " : r.within_step ? "*" : " ", r.throughput_MiBps, r.predicted_throughput_MiBps,
                  r.bottleneck.c_str(), r.predicted_accelerators_family_out,
                  !r.largest ? " " : r.within_step_family_out ? "*" : " ", r.predicted_throughput_MiBps_family_out);
    std::cout << line;
  }
  std::snprintf(line, sizeof line,
                "  within one step: %d of %d largest counts (%.0f%%, target 70%%)  throughput MAPE %.1f%% (target 20%%)\n",
                v.within_step, v.scored_counts, v.scored_counts ? 100.0 * v.within_step / v.scored_counts : 0.0,
                100 * v.throughput_mape);
  std::cout << line;
  std::snprintf(line, sizeof line,
                "  reader rate left out by submitter (%d rows): within one step %d, throughput MAPE %.1f%%\n",
                v.family_out_rows, v.within_step_family_out, 100 * v.throughput_mape_family_out);
  std::cout << line;
  for (const auto& [format, rate] : v.reader_rates) {
    std::snprintf(line, sizeof line,
                  "  %s reader: %.1f MiB/s per busy host core, %.1f MiB/s per core and GHz of base clock (derived over "
                  "the cases)\n",
                  format.c_str(), rate.bytes_per_core_s / 1048576.0, rate.bytes_per_cycle * 1e9 / 1048576.0);
    std::cout << line;
  }
  return kExitOk;
}

int run_io(const IoOptions& o) {
  if (o.validate) return o.mlperf ? run_mlperf_validation(o) : run_io500_validation(o);
  if (o.mlperf) return run_mlperf(o);
  if (o.io500) return run_io500(o);
  if (o.checkpoint) return run_checkpoint(o);
  if (o.files) return run_file_reads(o);
  if (!o.filesystem.empty() || o.clients != 1 || o.procs) {
    std::cerr << "--filesystem, --clients and --procs need --io500, --checkpoint, --files or --mlperf\n";
    return kExitBadInput;
  }
  // The dataset read's flags, required in this mode (as CLI11 reports a missing one).
  for (const auto& [flag, given] : {std::pair<const char*, bool>{"--storage", !o.storage.empty()},
                                    {"--samples", o.samples != 0}, {"--sample-size", !o.sample_size.empty()}}) {
    if (given) continue;
    std::cerr << flag << " is required\nRun with --help for more information.\n";
    return kExitBadInput;
  }
  StorageSpec spec;
  DatasetRead job;
  try {
    const SpecCatalog catalog(config_root());
    const ConfigNode name = ConfigNode::make_scalar(o.storage, SourceLoc{"--storage " + o.storage, 0, 0});
    spec = parse_storage_spec(catalog.load("storage", name, "storage system"), o.storage, catalog);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  try {
    job.sample_bytes = parse_quantity(o.sample_size, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    std::cerr << "--sample-size " << o.sample_size << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  if (!(job.sample_bytes > 0)) {
    std::cerr << "--sample-size " << o.sample_size << ": a sample must have at least one byte\n";
    return kExitBadInput;
  }
  // One file of more than a pebibyte is no dataset sample; far above it (1e30 B) the storage model's
  // rates and times leave their range and print as inf.
  if (job.sample_bytes > 1125899906842624.0) {
    std::cerr << "--sample-size " << o.sample_size << ": a sample may be at most 1 PiB\n";
    return kExitBadInput;
  }
  if (o.stripe_count && spec.kind != StorageKind::pfs) {
    std::cerr << "--stripe-count: '" << spec.name << "' is a " << to_string(spec.kind)
              << " storage system; striping applies only to a parallel file system (pfs)\n";
    return kExitBadInput;
  }
  if (o.stripe_count && *o.stripe_count > spec.targets) {
    std::cerr << "--stripe-count " << *o.stripe_count << ": '" << spec.name << "' has only " << spec.targets
              << " targets\n";
    return kExitBadInput;
  }
  try {
    check_count(CountLimit::samples, static_cast<double>(o.samples), SourceLoc{"--samples " + std::to_string(o.samples)},
                "the dataset");
    check_count(CountLimit::readers, o.readers, SourceLoc{"--readers " + std::to_string(o.readers)}, "the read");
    check_count(CountLimit::nodes, o.nodes, SourceLoc{"--nodes " + std::to_string(o.nodes)}, "the read");
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  job.samples = o.samples;
  job.readers = o.readers;
  job.nodes = o.nodes;
  job.op = o.op == "write" ? IoOp::write : IoOp::read;
  job.stripe_count = o.stripe_count;
  Progress progress("io", "samples", static_cast<std::size_t>(job.samples), o.format);
  if (progress.enabled()) job.progress = progress.counter();
  const DatasetReadResult result = [&] {
    const FinishOnExit end(progress);
    return simulate_dataset_read(spec, job);
  }();
  std::cout << (o.format == "json" ? to_json(spec, job, result) : to_table(spec, job, result));
  return kExitOk;
}

}  // namespace

Action add_io_command(CLI::App& app) {
  const CLI::Range kAtLeastOne(1, std::numeric_limits<int>::max());
  auto* cmd = app.add_subcommand("io", "Read a dataset of S samples of B bytes from a storage system with W readers");
  auto o = std::make_shared<IoOptions>();
  cmd->add_option("--storage", o->storage, "Storage system (configs/storage/NAME.yaml); required without --io500 and --validate");
  cmd->add_option("--samples", o->samples, "Number of samples (one file each); required without --io500 and --validate")->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--sample-size", o->sample_size,
                  "Bytes per sample, e.g. 110KiB; required with --storage and with --files (the bytes of one file)");
  cmd->add_option("--readers", o->readers, "Concurrent readers, one request each in flight (default 1)")
      ->check(kAtLeastOne);
  cmd->add_option("--nodes", o->nodes, "Client nodes the readers are spread over (default 1)")->check(kAtLeastOne);
  auto* op = cmd->add_option("--op", o->op, "read or write (default read; with --checkpoint, write)")
                 ->check(CLI::IsMember({"read", "write"}));
  cmd->add_option("--stripe-count", o->stripe_count, "Parallel file system: targets each file is striped over")
      ->check(kAtLeastOne);
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  auto* io500 = cmd->add_flag("--io500", o->io500, "Run the IO500 phases on --filesystem with --clients and --procs");
  auto* checkpoint = cmd->add_flag("--checkpoint", o->checkpoint,
                                   "Write (--op read: read back) a checkpoint of --bytes-per-proc from every process");
  cmd->add_option("--bytes-per-proc", o->bytes_per_proc, "With --checkpoint: each process's file, e.g. 5.54GB")
      ->needs(checkpoint);
  checkpoint->excludes(io500);
  auto* files = cmd->add_flag("--files", o->files,
                              "Read whole files of --sample-size one after another with --procs readers on --clients "
                              "nodes of --filesystem (a data loader's workers)");
  files->excludes(io500)->excludes(checkpoint);
  auto* filesystem = cmd->add_option("--filesystem", o->filesystem,
                                     "With --io500, --checkpoint or --files: a file system (configs/filesystems/NAME.yaml)");
  auto* clients = cmd->add_option("--clients", o->clients, "With --io500, --checkpoint, --files or --mlperf: client nodes (hosts; default 1)")
                      ->check(kAtLeastOne);
  auto* procs = cmd->add_option("--procs", o->procs,
                                "With --io500, --checkpoint or --files: processes in all, block-placed (default one per client)")
                    ->check(kAtLeastOne);
  for (CLI::Option* opt : {filesystem, clients, procs}) opt->excludes(cmd->get_option("--storage"));
  auto* validate = cmd->add_flag("--validate", o->validate,
                                 "Score the IO500 validation cases (MAPE per phase and file-system type, type left out)");
  cmd->add_option("--cases", o->cases, "With --validate: the case file (default configs/validation/storage/io500.yaml)")
      ->needs(validate);
  validate->excludes(io500);
  validate->excludes(files);
  auto* mlperf = cmd->add_flag("--mlperf", o->mlperf,
                               "Run an MLPerf Storage workload (DLIO's emulated accelerators) on --filesystem with --clients "
                               "hosts; with --validate, score the MLPerf Storage cases");
  mlperf->excludes(io500)->excludes(checkpoint)->excludes(files);
  cmd->add_option("--workload", o->workload, "With --mlperf: unet3d, resnet50 or cosmoflow")
      ->needs(mlperf)
      ->check(CLI::IsMember({"unet3d", "resnet50", "cosmoflow"}));
  cmd->add_option("--accelerator", o->accelerator, "With --mlperf: the emulated accelerator, h100 or a100 (default h100)")
      ->needs(mlperf)
      ->check(CLI::IsMember({"h100", "a100"}));
  cmd->add_option("--accelerators", o->accelerators,
                  "With --mlperf: emulated accelerators in all (default: the largest count at the AU threshold, searched up to 1,024 per host and 65,536)")
      ->needs(mlperf)
      ->check(kAtLeastOne);
  cmd->add_option("--read-threads", o->read_threads,
                  "With --mlperf: reader threads per accelerator (DLIO's reader.read_threads; default the workload's)")
      ->needs(mlperf)
      ->check(kAtLeastOne);
  cmd->add_option("--host-cores", o->host_cores,
                  "With --mlperf: physical cores per host running the readers (default: the hosts are not modelled)")
      ->needs(mlperf)
      ->check(kAtLeastOne);
  cmd->add_option("--host-clock", o->host_clock,
                  "With --mlperf and --host-cores: the cores' base clock, e.g. 2.1GHz (the reader rate per cycle; default: "
                  "the rate per core)")
      ->needs(mlperf);
  return [o, op] {
    if (o->checkpoint && op->count() == 0) o->op = "write";
    return run_io(*o);
  };
}

}  // namespace hpcsim::cli
