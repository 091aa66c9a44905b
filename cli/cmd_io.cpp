// hpcsim io: read a dataset of equally sized samples from a storage system with W readers.
#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/json_writer.h"
#include "configs/units.h"
#include "models/storage/dataset_read.h"

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

int run_io(const IoOptions& o) {
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
  const DatasetReadResult result = simulate_dataset_read(spec, job);
  std::cout << (o.format == "json" ? to_json(spec, job, result) : to_table(spec, job, result));
  return kExitOk;
}

}  // namespace

Action add_io_command(CLI::App& app) {
  const CLI::Range kAtLeastOne(1, std::numeric_limits<int>::max());
  auto* cmd = app.add_subcommand("io", "Read a dataset of S samples of B bytes from a storage system with W readers");
  auto o = std::make_shared<IoOptions>();
  cmd->add_option("--storage", o->storage, "Storage system (configs/storage/NAME.yaml)")->required();
  cmd->add_option("--samples", o->samples, "Number of samples (one file each)")->required()->check(CLI::Range(std::int64_t{1}, std::numeric_limits<std::int64_t>::max()));
  cmd->add_option("--sample-size", o->sample_size, "Bytes per sample, e.g. 110KiB")->required();
  cmd->add_option("--readers", o->readers, "Concurrent readers, one request each in flight (default 1)")
      ->check(kAtLeastOne);
  cmd->add_option("--nodes", o->nodes, "Client nodes the readers are spread over (default 1)")->check(kAtLeastOne);
  cmd->add_option("--op", o->op, "read or write (default read)")->check(CLI::IsMember({"read", "write"}));
  cmd->add_option("--stripe-count", o->stripe_count, "Parallel file system: targets each file is striped over")
      ->check(kAtLeastOne);
  cmd->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  return [o] { return run_io(*o); };
}

}  // namespace hpcsim::cli
