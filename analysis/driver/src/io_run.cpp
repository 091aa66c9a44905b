#include "driver/io_run.h"

#include <algorithm>
#include <utility>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/units.h"

namespace hpcsim {

DatasetReadRun run_dataset_read(const IoFlags& f, const SpecCatalog& catalog,
                                std::function<void(std::int64_t, std::int64_t)> progress) {
  DatasetReadRun run;
  const ConfigNode name = ConfigNode::make_scalar(f.storage, SourceLoc{"--storage " + f.storage, 0, 0});
  run.spec = parse_storage_spec(catalog.load("storage", name, "storage system"), f.storage, catalog);
  const StorageSpec& spec = run.spec;
  DatasetRead& job = run.job;
  try {
    job.sample_bytes = parse_quantity(f.sample_size, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    throw IoInputError("--sample-size " + f.sample_size + ": " + e.what());
  }
  if (!(job.sample_bytes > 0)) throw IoInputError("--sample-size " + f.sample_size + ": a sample must have at least one byte");
  // One file of more than a pebibyte is no dataset sample; far above it (1e30 B) the storage model's
  // rates and times leave their range and print as inf.
  if (job.sample_bytes > 1125899906842624.0) throw IoInputError("--sample-size " + f.sample_size + ": a sample may be at most 1 PiB");
  if (f.stripe_count && spec.kind != StorageKind::pfs) {
    throw IoInputError("--stripe-count: '" + spec.name + "' is a " + std::string(to_string(spec.kind)) +
                       " storage system; striping applies only to a parallel file system (pfs)");
  }
  if (f.stripe_count && *f.stripe_count > spec.targets) {
    throw IoInputError("--stripe-count " + std::to_string(*f.stripe_count) + ": '" + spec.name + "' has only " +
                       std::to_string(spec.targets) + " targets");
  }
  check_count(CountLimit::samples, static_cast<double>(f.samples), SourceLoc{"--samples " + std::to_string(f.samples)},
              "the dataset");
  check_count(CountLimit::readers, f.readers, SourceLoc{"--readers " + std::to_string(f.readers)}, "the read");
  check_count(CountLimit::nodes, f.nodes, SourceLoc{"--nodes " + std::to_string(f.nodes)}, "the read");
  job.samples = f.samples;
  job.readers = f.readers;
  job.nodes = f.nodes;
  job.op = f.op == "write" ? IoOp::write : IoOp::read;
  job.stripe_count = f.stripe_count;
  job.progress = std::move(progress);
  run.result = simulate_dataset_read(spec, job);
  job.progress = nullptr;
  return run;
}

namespace {

// The file system and its clients of --checkpoint, --files, --io500 and --mlperf (`mode`, for the messages).
FileSystemRun load_filesystem_run(const IoFlags& f, const SpecCatalog& catalog, const char* mode) {
  if (f.filesystem.empty()) throw IoInputError(std::string(mode) + " needs --filesystem NAME (configs/filesystems/NAME.yaml)");
  const ConfigNode name = ConfigNode::make_scalar(f.filesystem, SourceLoc{"--filesystem " + f.filesystem, 0, 0});
  FileSystemRun run;
  run.fs = parse_filesystem_spec(catalog.load("filesystems", name, "file system"), f.filesystem, catalog);
  check_count(CountLimit::nodes, f.clients, SourceLoc{"--clients " + std::to_string(f.clients)}, "the run");
  if (f.procs) check_count(CountLimit::readers, *f.procs, SourceLoc{"--procs " + std::to_string(*f.procs)}, "the run");
  run.clients = Io500Clients{f.clients, f.procs.value_or(f.clients)};
  if (run.clients.procs < run.clients.nodes) {
    throw IoInputError("--procs " + std::to_string(run.clients.procs) + ": fewer processes than the " +
                       std::to_string(run.clients.nodes) + " client nodes");
  }
  return run;
}

// A file's bytes from a flag's text: at least one byte and at most 1 PiB.
double file_bytes_flag(const char* flag, const std::string& text, const char* what) {
  double bytes = 0;
  try {
    bytes = parse_quantity(text, Dimension::bytes, "B");
  } catch (const UnitError& e) {
    throw IoInputError(std::string(flag) + " " + text + ": " + e.what());
  }
  if (!(bytes > 0) || bytes > 1125899906842624.0)
    throw IoInputError(std::string(flag) + " " + text + ": " + what + " at least one byte and at most 1 PiB");
  return bytes;
}

}  // namespace

CheckpointRun run_checkpoint(const IoFlags& f, const SpecCatalog& catalog) {
  CheckpointRun run;
  run.on = load_filesystem_run(f, catalog, "--checkpoint");
  run.bytes_per_proc = file_bytes_flag("--bytes-per-proc", f.bytes_per_proc, "a process writes");
  run.result = simulate_checkpoint(run.on.fs, run.on.clients, run.bytes_per_proc, f.op == "read" ? IoOp::read : IoOp::write);
  return run;
}

FileReadsRun run_file_reads(const IoFlags& f, const SpecCatalog& catalog) {
  FileReadsRun run;
  run.on = load_filesystem_run(f, catalog, "--files");
  if (f.sample_size.empty()) throw IoInputError("--files needs --sample-size (the bytes of one file, e.g. 110KB)");
  run.file_bytes = file_bytes_flag("--sample-size", f.sample_size, "a file holds");
  run.result = simulate_file_reads(run.on.fs, run.on.clients, run.file_bytes);
  return run;
}

Io500Run run_io500(const IoFlags& f, const SpecCatalog& catalog) {
  Io500Run run;
  run.on = load_filesystem_run(f, catalog, "--io500");
  run.result = simulate_io500(run.on.fs, run.on.clients);
  return run;
}

MlperfStorageRun run_mlperf_storage(const IoFlags& f, const SpecCatalog& catalog) {
  MlperfStorageRun run;
  run.fs = load_filesystem_run(f, catalog, "--mlperf").fs;
  const int hosts = run.hosts = f.clients;
  if (f.procs) throw IoInputError("--procs: with --mlperf the processes are the accelerators' reader threads; give --accelerators");
  if (f.workload.empty()) throw IoInputError("--mlperf needs --workload (unet3d, resnet50, cosmoflow)");
  std::optional<DlioWorkload> w = find_dlio_workload(f.workload, f.accelerator);
  if (!w) {
    throw IoInputError("--workload " + f.workload + " --accelerator " + f.accelerator +
                       ": no such MLPerf Storage workload (unet3d, resnet50, cosmoflow on h100, a100)");
  }
  if (f.read_threads) w->read_threads = *f.read_threads;
  DlioHost& host = run.host;
  if (f.host_cores) host.cores = *f.host_cores;
  if (!f.host_clock.empty()) {
    if (!f.host_cores) throw IoInputError("--host-clock needs --host-cores (the hosts' cores)");
    try {
      host.clock_hz = parse_quantity(f.host_clock, Dimension::frequency, "Hz");
    } catch (const UnitError& e) {
      throw IoInputError("--host-clock " + f.host_clock + ": " + e.what());
    }
    if (!(host.clock_hz >= 1e8 && host.clock_hz <= 1e10))
      throw IoInputError("--host-clock " + f.host_clock + ": a core's base clock is 0.1 to 10 GHz");
  }
  if (f.accelerators && *f.accelerators < hosts) {
    throw IoInputError("--accelerators " + std::to_string(*f.accelerators) + ": fewer accelerators than the " +
                       std::to_string(hosts) + " hosts");
  }
  if (f.accelerators) {
    const double readers = static_cast<double>(*f.accelerators) * w->read_threads;
    const SourceLoc flag{"--accelerators " + std::to_string(*f.accelerators)};
    check_count(CountLimit::readers, readers, flag, "the run");
    // Whatever --limit readers allows, the reader processes are counted in an int (2,147,483,647
    // accelerators wrapped it into "internal error": a probe beside fuzz seed 161803).
    if (readers > 2147483647.0) throw ConfigError(flag, "the accelerators' reader threads are more than 2,147,483,647 processes");
  } else {  // the search's smallest run: one accelerator a host
    check_count(CountLimit::readers, static_cast<double>(hosts) * w->read_threads,
                SourceLoc{"--read-threads " + std::to_string(w->read_threads)},
                "one accelerator on each of the " + std::to_string(hosts) + " hosts");
  }
  // The largest passing count, searched up to 1,024 per host and 65,536 in all (MLPerf Storage v1.0's largest
  // published count is 2,100; 65,536 resnet50 accelerators are 524,288 readers, a fraction of a second), and
  // within the readers limit (accelerators x read threads).
  const auto within_readers = static_cast<std::int64_t>(count_limit(CountLimit::readers) / w->read_threads);
  const int limit = static_cast<int>(
      std::max<std::int64_t>(hosts, std::min({std::int64_t{1024} * hosts, std::int64_t{65536}, within_readers})));
  run.largest = max_dlio_accelerators(run.fs, *w, hosts, limit, host);
  run.accelerators = f.accelerators.value_or(std::max(run.largest, hosts));
  run.result = simulate_dlio(run.fs, *w, run.accelerators, hosts, host);
  run.workload = *w;
  return run;
}

}  // namespace hpcsim
