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
#include "driver/io_run.h"
#include "driver/mlperf_storage_validation.h"
#include "models/storage/dataset_read.h"
#include "models/storage/dlio.h"
#include "models/storage/io500.h"
#include "report/io_report.h"

namespace hpcsim::cli {

namespace {

struct IoOptions {
  IoFlags flags;
  std::string format = "table";
  bool io500 = false;
  bool validate = false;
  std::string cases;
  bool checkpoint = false;
  bool mlperf = false;
  bool files = false;
};

std::string number(double value) { return json::number(value, 10); }

// Runs one of the modes: prints what it returns, or the reason its input is refused (exit 2).
int run_mode(const std::function<std::string()>& mode) {
  try {
    std::cout << mode();
    return kExitOk;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
  } catch (const IoInputError& e) {
    std::cerr << e.what() << "\n";
  }
  return kExitBadInput;
}

int checkpoint_mode(const IoOptions& o) {
  return run_mode([&] {
    const CheckpointRun run = run_checkpoint(o.flags, SpecCatalog(config_root()));
    const auto& [fs, clients] = run.on;
    return o.format == "json" ? checkpoint_json(fs, clients, o.flags.op, run.bytes_per_proc, run.result)
                              : checkpoint_table(fs, clients, o.flags.op, run.bytes_per_proc, run.result);
  });
}

// --files: --procs readers on --clients nodes each read whole files of --sample-size one after another (a
// training data loader's workers), on --filesystem: the steady rate and what binds it.
int files_mode(const IoOptions& o) {
  return run_mode([&] {
    const FileReadsRun run = run_file_reads(o.flags, SpecCatalog(config_root()));
    const auto& [fs, clients] = run.on;
    return o.format == "json" ? file_reads_json(fs, clients, run.file_bytes, run.result)
                              : file_reads_table(fs, clients, run.file_bytes, run.result);
  });
}

int io500_mode(const IoOptions& o) {
  return run_mode([&] {
    const Io500Run run = run_io500(o.flags, SpecCatalog(config_root()));
    return o.format == "json" ? io500_json(run.on.fs, run.on.clients, run.result)
                              : io500_table(run.on.fs, run.on.clients, run.result);
  });
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
int mlperf_mode(const IoOptions& o) {
  return run_mode([&] {
    const MlperfStorageRun run = run_mlperf_storage(o.flags, SpecCatalog(config_root()));
    const MlperfStorageView view{run.fs, run.workload, run.host, run.hosts, run.largest, run.accelerators, run.result};
    return o.format == "json" ? mlperf_storage_json(view) : mlperf_storage_table(view);
  });
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
  if (o.mlperf) return mlperf_mode(o);
  if (o.io500) return io500_mode(o);
  if (o.checkpoint) return checkpoint_mode(o);
  if (o.files) return files_mode(o);
  const IoFlags& f = o.flags;
  if (!f.filesystem.empty() || f.clients != 1 || f.procs) {
    std::cerr << "--filesystem, --clients and --procs need --io500, --checkpoint, --files or --mlperf\n";
    return kExitBadInput;
  }
  // The dataset read's flags, required in this mode (as CLI11 reports a missing one).
  for (const auto& [flag, given] : {std::pair<const char*, bool>{"--storage", !f.storage.empty()},
                                    {"--samples", f.samples != 0}, {"--sample-size", !f.sample_size.empty()}}) {
    if (given) continue;
    std::cerr << flag << " is required\nRun with --help for more information.\n";
    return kExitBadInput;
  }
  return run_mode([&] {
    Progress progress("io", "samples", static_cast<std::size_t>(f.samples), o.format);
    const DatasetReadRun run = [&] {
      const FinishOnExit end(progress);
      std::function<void(std::int64_t, std::int64_t)> samples_done;
      if (progress.enabled()) samples_done = progress.counter();
      return run_dataset_read(f, SpecCatalog(config_root()), samples_done);
    }();
    return o.format == "json" ? dataset_read_json(run.spec, run.job, run.result)
                              : dataset_read_table(run.spec, run.job, run.result);
  });
}

}  // namespace

Action add_io_command(CLI::App& app) {
  const CLI::Range kAtLeastOne(1, std::numeric_limits<int>::max());
  auto* cmd = app.add_subcommand("io", "Read a dataset of S samples of B bytes from a storage system with W readers");
  auto o = std::make_shared<IoOptions>();
  cmd->add_option("--storage", o->flags.storage, "Storage system (configs/storage/NAME.yaml); required without --io500 and --validate");
  cmd->add_option("--samples", o->flags.samples, "Number of samples (one file each); required without --io500 and --validate")->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--sample-size", o->flags.sample_size,
                  "Bytes per sample, e.g. 110KiB; required with --storage and with --files (the bytes of one file)");
  cmd->add_option("--readers", o->flags.readers, "Concurrent readers, one request each in flight (default 1)")
      ->check(kAtLeastOne);
  cmd->add_option("--nodes", o->flags.nodes, "Client nodes the readers are spread over (default 1)")->check(kAtLeastOne);
  auto* op = cmd->add_option("--op", o->flags.op, "read or write (default read; with --checkpoint, write)")
                 ->check(CLI::IsMember({"read", "write"}));
  cmd->add_option("--stripe-count", o->flags.stripe_count, "Parallel file system: targets each file is striped over")
      ->check(kAtLeastOne);
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  auto* io500 = cmd->add_flag("--io500", o->io500, "Run the IO500 phases on --filesystem with --clients and --procs");
  auto* checkpoint = cmd->add_flag("--checkpoint", o->checkpoint,
                                   "Write (--op read: read back) a checkpoint of --bytes-per-proc from every process");
  cmd->add_option("--bytes-per-proc", o->flags.bytes_per_proc, "With --checkpoint: each process's file, e.g. 5.54GB")
      ->needs(checkpoint);
  checkpoint->excludes(io500);
  auto* files = cmd->add_flag("--files", o->files,
                              "Read whole files of --sample-size one after another with --procs readers on --clients "
                              "nodes of --filesystem (a data loader's workers)");
  files->excludes(io500)->excludes(checkpoint);
  auto* filesystem = cmd->add_option("--filesystem", o->flags.filesystem,
                                     "With --io500, --checkpoint or --files: a file system (configs/filesystems/NAME.yaml)");
  auto* clients = cmd->add_option("--clients", o->flags.clients, "With --io500, --checkpoint, --files or --mlperf: client nodes (hosts; default 1)")
                      ->check(kAtLeastOne);
  auto* procs = cmd->add_option("--procs", o->flags.procs,
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
  cmd->add_option("--workload", o->flags.workload, "With --mlperf: unet3d, resnet50 or cosmoflow")
      ->needs(mlperf)
      ->check(CLI::IsMember({"unet3d", "resnet50", "cosmoflow"}));
  cmd->add_option("--accelerator", o->flags.accelerator, "With --mlperf: the emulated accelerator, h100 or a100 (default h100)")
      ->needs(mlperf)
      ->check(CLI::IsMember({"h100", "a100"}));
  cmd->add_option("--accelerators", o->flags.accelerators,
                  "With --mlperf: emulated accelerators in all (default: the largest count at the AU threshold, searched up to 1,024 per host and 65,536)")
      ->needs(mlperf)
      ->check(kAtLeastOne);
  cmd->add_option("--read-threads", o->flags.read_threads,
                  "With --mlperf: reader threads per accelerator (DLIO's reader.read_threads; default the workload's)")
      ->needs(mlperf)
      ->check(kAtLeastOne);
  cmd->add_option("--host-cores", o->flags.host_cores,
                  "With --mlperf: physical cores per host running the readers (default: the hosts are not modelled)")
      ->needs(mlperf)
      ->check(kAtLeastOne);
  cmd->add_option("--host-clock", o->flags.host_clock,
                  "With --mlperf and --host-cores: the cores' base clock, e.g. 2.1GHz (the reader rate per cycle; default: "
                  "the rate per core)")
      ->needs(mlperf);
  return [o, op] {
    if (o->checkpoint && op->count() == 0) o->flags.op = "write";
    return run_io(*o);
  };
}

}  // namespace hpcsim::cli
