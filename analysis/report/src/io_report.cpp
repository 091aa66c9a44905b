#include "report/io_report.h"

#include <sstream>

#include "configs/json_writer.h"
#include "configs/units.h"

namespace hpcsim {

namespace {

std::string number(double value) { return json::number(value, 10); }

std::string stages_json(const std::vector<StageUse>& stages) {
  json::Line line = json::Line::object();
  for (const StageUse& u : stages) line.field(u.stage, number(u.utilisation));
  return line.str();
}

std::string stages_table(const std::vector<StageUse>& stages) {
  std::string out;
  for (const StageUse& u : stages) out += "  " + u.stage + ": " + number(100 * u.utilisation) + "% busy\n";
  return out;
}

std::string filesystem_line(const FileSystemSpec& fs) {
  std::ostringstream out;
  out << "file system  " << fs.name << " (" << kFileSystemTypeNames.name(fs.type) << "): " << fs.data.count
      << " data servers x " << fs.data.devices << " " << fs.data.device_name << ", " << fs.network.name << "\n";
  return out.str();
}

std::string rate_text(Io500Phase phase, double rate) {
  return is_bandwidth_phase(phase) ? number(rate / 1073741824.0) + " GiB/s" : number(rate / 1e3) + " kIOPS";
}

constexpr double kMiB = 1048576.0;

}  // namespace

std::string dataset_read_json(const StorageSpec& spec, const DatasetRead& job, const DatasetReadResult& r) {
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

std::string dataset_read_table(const StorageSpec& spec, const DatasetRead& job, const DatasetReadResult& r) {
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

std::string checkpoint_json(const FileSystemSpec& fs, const Io500Clients& clients, const std::string& op,
                            double bytes_per_proc, const CheckpointResult& r) {
  std::ostringstream out;
  out << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"op\": " << json::quote(op)
      << ",\n  \"clients\": " << clients.nodes << ",\n  \"procs\": " << clients.procs
      << ",\n  \"bytes\": " << number(bytes_per_proc * clients.procs) << ",\n  \"time_s\": " << number(r.time_s)
      << ",\n  \"bytes_per_s\": " << number(r.rate.rate) << ",\n  \"bottleneck\": " << json::quote(r.rate.bottleneck)
      << ",\n  \"utilisation\": " << stages_json(r.rate.stages) << "\n}\n";
  return out.str();
}

std::string checkpoint_table(const FileSystemSpec& fs, const Io500Clients& clients, const std::string& op,
                             double bytes_per_proc, const CheckpointResult& r) {
  std::ostringstream out;
  out << "checkpoint   " << op << " of " << format_quantity(bytes_per_proc, Dimension::bytes) << " per process, "
      << clients.procs << " processes on " << clients.nodes << " nodes ("
      << format_quantity(bytes_per_proc * clients.procs, Dimension::bytes) << ")\n"
      << filesystem_line(fs) << "time         " << number(r.time_s) << " s at " << number(r.rate.rate / 1e9) << " GB/s\n"
      << "bottleneck   " << r.rate.bottleneck << "\n"
      << stages_table(r.rate.stages);
  return out.str();
}

std::string file_reads_json(const FileSystemSpec& fs, const Io500Clients& clients, double file_bytes,
                            const FileReadsResult& r) {
  std::ostringstream out;
  out << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"clients\": " << clients.nodes
      << ",\n  \"procs\": " << clients.procs << ",\n  \"file_bytes\": " << number(file_bytes)
      << ",\n  \"bytes_per_s\": " << number(r.bytes_per_s) << ",\n  \"files_per_s\": " << number(r.bytes_per_s / file_bytes)
      << ",\n  \"bottleneck\": " << json::quote(r.bottleneck) << ",\n  \"open_bytes_per_s\": " << number(r.open_bytes_per_s)
      << ",\n  \"utilisation\": " << stages_json(r.read.stages) << "\n}\n";
  return out.str();
}

std::string file_reads_table(const FileSystemSpec& fs, const Io500Clients& clients, double file_bytes,
                             const FileReadsResult& r) {
  std::ostringstream out;
  out << "files        " << format_quantity(file_bytes, Dimension::bytes) << " each, read whole by " << clients.procs
      << " readers on " << clients.nodes << " nodes, one at a time\n"
      << filesystem_line(fs) << "rate         " << number(r.bytes_per_s / 1e9) << " GB/s, "
      << number(r.bytes_per_s / file_bytes) << " files/s\n"
      << "bottleneck   " << r.bottleneck << "\n"
      << stages_table(r.read.stages);
  if (r.open_bytes_per_s > 0) out << "  metadata opens: " << number(100 * r.bytes_per_s / r.open_bytes_per_s) << "% of the open rate\n";
  return out.str();
}

std::string io500_json(const FileSystemSpec& fs, const Io500Clients& clients, const Io500Result& r) {
  std::ostringstream out;
  out << "{\n  \"filesystem\": " << json::quote(fs.name) << ",\n  \"type\": " << json::quote(kFileSystemTypeNames.name(fs.type))
      << ",\n  \"clients\": " << clients.nodes << ",\n  \"procs\": " << clients.procs << ",\n  \"phases\": [\n";
  for (std::size_t i = 0; i < r.phases.size(); ++i) {
    const Io500PhaseResult& p = r.phases[i];
    out << "    " << json::Line::object()
                             .field("phase", json::quote(kIo500PhaseNames.name(p.phase)))
                             .field(is_bandwidth_phase(p.phase) ? "bytes_per_s" : "ops_per_s", number(p.rate))
                             .field("bottleneck", json::quote(p.bottleneck))
                             .field("utilisation", stages_json(p.stages))
                             .str()
        << (i + 1 < r.phases.size() ? ",\n" : "\n");
  }
  out << "  ],\n  \"events\": " << r.events << "\n}\n";
  return out.str();
}

std::string io500_table(const FileSystemSpec& fs, const Io500Clients& clients, const Io500Result& r) {
  std::ostringstream out;
  out << "file system  " << fs.name << " (" << kFileSystemTypeNames.name(fs.type) << "): " << fs.data.count
      << " data servers x " << fs.data.devices << " " << fs.data.device_name << ", " << fs.metadata.count
      << " metadata servers, " << fs.network.name << "\n"
      << "clients      " << clients.nodes << " nodes, " << clients.procs << " processes\n";
  for (const Io500PhaseResult& p : r.phases)
    out << "  " << kIo500PhaseNames.name(p.phase) << std::string(20 - kIo500PhaseNames.name(p.phase).size(), ' ')
        << rate_text(p.phase, p.rate) << "  (" << p.bottleneck << ")\n";
  return out.str();
}

std::string mlperf_storage_json(const MlperfStorageView& v) {
  const DlioWorkload& w = v.workload;
  const DlioResult& r = v.result;
  std::ostringstream out;
  out << "{\n  \"filesystem\": " << json::quote(v.fs.name) << ",\n  \"workload\": " << json::quote(w.model)
      << ",\n  \"accelerator\": " << json::quote(w.accelerator) << ",\n  \"hosts\": " << v.hosts
      << ",\n  \"au_min\": " << number(w.au_min) << ",\n  \"max_accelerators\": " << v.largest
      << ",\n  \"accelerators\": " << v.accelerators << ",\n  \"au\": " << number(r.au)
      << ",\n  \"throughput_MiBps\": " << number(r.bytes_per_s / kMiB)
      << ",\n  \"samples_per_s\": " << number(r.samples_per_s)
      << ",\n  \"delivered_MiBps\": " << number(r.delivered_bytes_per_s / kMiB)
      << ",\n  \"read_threads\": " << w.read_threads << ",\n  \"host_cores\": " << v.host.cores
      << ",\n  \"host_clock_GHz\": " << number(v.host.clock_hz / 1e9)
      << ",\n  \"host_MiBps\": " << number(r.host_bytes_per_s / kMiB)
      << ",\n  \"open_MiBps\": " << number(r.open_bytes_per_s / kMiB)
      << ",\n  \"bottleneck\": " << json::quote(r.bottleneck) << ",\n  \"utilisation\": " << stages_json(r.read.stages)
      << "\n}\n";
  return out.str();
}

std::string mlperf_storage_table(const MlperfStorageView& v) {
  const DlioWorkload& w = v.workload;
  const DlioResult& r = v.result;
  std::ostringstream out;
  out << "workload     " << w.model << " on " << w.accelerator << ": " << w.batch << " x "
      << format_quantity(w.record_bytes, Dimension::bytes) << " per " << number(w.compute_s * 1e3)
      << " ms step, " << w.read_threads << " reader threads; asks " << number(w.asked_bytes_per_s() / kMiB)
      << " MiB/s per accelerator\n"
      << "file system  " << v.fs.name << " (" << kFileSystemTypeNames.name(v.fs.type) << "), " << v.hosts << " host(s)\n"
      << "largest      " << v.largest << " accelerators at AU >= " << number(100 * w.au_min) << "%\n"
      << "at " << v.accelerators << " accelerators: AU " << number(100 * r.au) << "%, " << number(r.bytes_per_s / kMiB)
      << " MiB/s, " << number(r.samples_per_s) << " samples/s (storage gives " << number(r.delivered_bytes_per_s / kMiB)
      << " MiB/s"
      << (r.open_bytes_per_s > 0 ? ", the metadata servers' opens " + number(r.open_bytes_per_s / kMiB) + " MiB/s"
                                 : std::string())
      << (v.host.cores ? ", the hosts' readers " + number(r.host_bytes_per_s / kMiB) + " MiB/s on " +
                             std::to_string(dlio_reader_cores(w, v.host, v.accelerators, v.hosts)) + " busy cores"
                       : std::string())
      << ")\n"
      << "bottleneck   " << r.bottleneck << "\n"
      << stages_table(r.read.stages);
  return out.str();
}

}  // namespace hpcsim
