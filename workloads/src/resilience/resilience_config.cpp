#include "workloads/resilience/resilience_config.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "configs/config_error.h"
#include "configs/units.h"
#include "models/storage/filesystem_spec.h"
#include "workloads/resilience/checkpoint_interval.h"

namespace hpcsim {

namespace {

Schema time_at_least_zero() { return Schema::quantity(Dimension::time).at_least(0); }


}  // namespace

const Schema& resilience_schema() {
  static const Schema schema = Schema::map({
      required("reliability", Schema::string(), "the failure model: a name in configs/reliability"),
      optional("steps", Schema::integer().wide().at_least(1), "optimizer steps the run trains for (one of steps, tokens, compute_time)", "none"),
      optional("tokens", Schema::number().positive().at_most(1e18),
               "tokens the run trains on: steps = tokens / (global batch x seq_len), rounded up", "none"),
      optional("compute_time", Schema::quantity(Dimension::time).positive(),
               "the run's failure-free compute time instead of steps", "none"),
      optional("checkpoint", Schema::map({
                                 optional("interval", Schema::quantity(Dimension::time).positive(),
                                          "compute time between checkpoints; at least the checkpoint's write",
                                          "Daly's optimum for the failure model (at least the write)"),
                                 optional("mode", Schema::one_of(kCheckpointModeNames.names()),
                                          "sync: the job waits for the write; async: for a snapshot, the write runs behind",
                                          "sync"),
                                 optional("snapshot", Schema::quantity(Dimension::time).at_least(0),
                                          "async: the job's stall while its state is copied out", "0 s"),
                                 optional("state_bytes", Schema::quantity(Dimension::bytes).positive(),
                                          "the checkpoint's size", "parameters x (weight + optimizer state bytes per parameter)"),
                                 optional("write_bandwidth", Schema::quantity(Dimension::bandwidth).positive(),
                                          "the whole job's checkpoint write bandwidth",
                                          "the checkpoint's file system's, else cluster.storage's aggregate write bandwidth for the job's nodes"),
                                 optional("read_bandwidth", Schema::quantity(Dimension::bandwidth).positive(),
                                          "the whole job's checkpoint read bandwidth at restart",
                                          "the checkpoint's file system's, else cluster.storage's aggregate read bandwidth, else the write bandwidth"),
                                 optional("local", Schema::string(),
                                          "two-level checkpoints (SCR's multi-level scheme): each node writes its share of "
                                          "the state to this local device (a kind: local spec in configs/storage) while the "
                                          "job waits, then drains it to the file system behind the run (mode async, the "
                                          "snapshot the local write); restores read the file system",
                                          "none: the job writes to the file system"),
                                 optional("filesystem", Schema::string(),
                                          "a file system described as hardware (configs/filesystems): every GPU's rank "
                                          "writes its shard at once from the job's nodes (hpcsim io --checkpoint); "
                                          "write_bandwidth and read_bandwidth, when given, win",
                                          "cluster.filesystem, else cluster.storage's aggregate"),
                             }),
               "periodic checkpoints", "sync checkpoints at Daly's interval"),
      required("detection", time_at_least_zero(), "from a failure to the decision to restart"),
      required("restart", time_at_least_zero(), "relaunching every rank in place (a failure that took no node out)"),
      required("requeue", time_at_least_zero(), "back through the queue onto other nodes when nodes were lost and no spare is free"),
      optional("spares", Schema::integer().at_least(0), "hot spare nodes (at most the job's nodes)", "0"),
      optional("spare_swap", time_at_least_zero(), "swapping spares in for lost nodes and relaunching (needed with spares)", "none"),
      optional("repair", time_at_least_zero(), "a failed node's return to the spare pool (needed with spares)", "none"),
      optional("replicas", Schema::integer().at_least(1).at_most(1e6), "Monte Carlo replicas of the whole run", "1000"),
      optional("seed", Schema::integer().wide().at_least(0), "seed of the failure draws", "1"),
  });
  return schema;
}

double ResilienceConfig::mtti_s() const {
  double rate = 0;
  for (const JobFailureMode& m : job_modes) rate += m.rate_per_s;
  return 1.0 / rate;
}

double ResilienceConfig::young_interval_s() const { return young_interval(checkpoint_cost_s(), mtti_s()); }
double ResilienceConfig::daly_interval_s() const { return daly_interval(checkpoint_cost_s(), mtti_s()); }

double ResilienceConfig::chosen_interval_s() const {
  return interval_s ? *interval_s : std::max(daly_interval_s(), io.write_s);
}

double ResilienceConfig::work_s(double step_time_s) const {
  return compute_time_s ? *compute_time_s : static_cast<double>(*steps) * step_time_s;
}

LongRunModel ResilienceConfig::model(double step_time_s) const {
  LongRunModel m;
  m.work_s = work_s(step_time_s);
  m.interval_s = chosen_interval_s();
  m.mode = mode;
  m.checkpoint_write_s = io.write_s;
  m.snapshot_s = snapshot_s;
  m.restore_s = io.read_s;
  m.detection_s = detection_s, m.restart_s = restart_s, m.requeue_s = requeue_s;
  m.spare_swap_s = spare_swap_s, m.repair_s = repair_s, m.spares = spares;
  m.modes = job_modes;
  return m;
}

namespace {

// Two-level checkpoints (SCR, Moody et al., SC10 "Design, Modeling, and Evaluation of a Scalable Multi-level
// Checkpointing System"): every node writes its share of the state to its own device while the job waits (the
// snapshot), then drains the copy to the file system behind the run, reading it back from that device. A
// failure before the drain ends rolls back to the previous drained checkpoint, as an asynchronous write's does;
// a restore reads the file system (a failed node's device is gone with it).
void stage_locally(const ConfigNode& ck, const SpecCatalog& catalog, const ResilienceJob& job, double state_bytes,
                   ResilienceConfig& c) {
  const ConfigNode& name = ck.at("local");
  const StorageSpec local = parse_storage_spec(catalog.load("storage", name, "storage"), name.as_string(), catalog);
  if (local.kind != StorageKind::local) {
    throw ConfigError(name.loc(), "checkpoint.local must be a device in each node (kind: local); " + name.as_string() +
                                      " is a " + to_string(local.kind) + " system");
  }
  if (ck.has("mode") && c.mode == CheckpointMode::sync) {
    throw ConfigError(ck.at("mode").loc(), "checkpoint.local drains behind the run: mode is async (or leave it out)");
  }
  if (ck.has("snapshot")) {
    throw ConfigError(ck.at("snapshot").loc(), "with checkpoint.local the snapshot is the local write: leave it out");
  }
  const double per_node = state_bytes / job.nodes;
  c.mode = CheckpointMode::async;
  c.snapshot_s = local.device.latency_s + per_node / local.device.write_bandwidth;
  // The drain reads every node's device at once into the file system: the slower of the two sets its rate.
  const double drain = std::min(c.io.write_bandwidth, job.nodes * local.device.read_bandwidth);
  c.io.write_bandwidth = drain;
  c.io.write_s = state_bytes / drain;
  if (c.snapshot_s > c.io.write_s) {
    throw ConfigError(name.loc(), "writing to " + name.as_string() + " (" + format_quantity(c.snapshot_s, Dimension::time) +
                                      ") takes longer than draining to the file system (" +
                                      format_quantity(c.io.write_s, Dimension::time) + "): staging locally gains nothing");
  }
}

}  // namespace

ResilienceConfig parse_resilience(const ConfigNode& section, const SpecCatalog& catalog, const ResilienceJob& job) {
  resilience_schema().validate(section);
  ResilienceConfig c;
  const ConfigNode& name = section.at("reliability");
  c.reliability = parse_reliability_spec(catalog.load("reliability", name, "reliability spec"), name.as_string());

  // The job's units: GPUs, nodes, the leaf switches its nodes hang off.
  std::map<int, int> per_leaf;
  for (int leaf : job.node_leaf) ++per_leaf[leaf];
  c.leaves = std::max<int>(1, static_cast<int>(per_leaf.size()));
  c.nodes_per_leaf = 1;
  for (const auto& [leaf, n] : per_leaf) c.nodes_per_leaf = std::max(c.nodes_per_leaf, n);
  for (const FailureMode& mode : c.reliability.modes) {
    const double units = mode.per == FailureUnit::gpu    ? job.gpus
                         : mode.per == FailureUnit::node ? job.nodes
                         : mode.per == FailureUnit::leaf ? c.leaves
                                                         : 1;
    const int lost = mode.blast_radius == BlastRadius::job    ? 0
                     : mode.blast_radius == BlastRadius::node ? 1
                                                              : c.nodes_per_leaf;
    c.job_modes.push_back({mode.name, mode.fit * 1e-9 / 3600.0 * units, lost});
  }

  // The run's length.
  const int given = int{section.has("steps")} + int{section.has("tokens")} + int{section.has("compute_time")};
  if (given != 1) {
    throw ConfigError(section.loc(), given == 0 ? "resilience needs the run's length: steps, tokens or compute_time"
                                                : "resilience: give one of steps, tokens and compute_time, not several");
  }
  if (section.has("steps")) c.steps = section.get_int("steps");
  if (section.has("tokens")) {
    if (job.tokens_per_step <= 0) {
      throw ConfigError(section.at("tokens").loc(), "tokens needs a workload with a sequence length (workload.seq_len); give steps");
    }
    c.steps = static_cast<std::int64_t>(std::ceil(section.get_number("tokens") / job.tokens_per_step));
  }
  if (section.has("compute_time")) c.compute_time_s = section.get_quantity("compute_time", Dimension::time);

  // Checkpoints.
  const ConfigNode* ck = section.find("checkpoint");
  const auto opt_quantity = [&](std::string_view key, Dimension d) -> std::optional<double> {
    if (ck == nullptr || !ck->has(key)) return std::nullopt;
    return ck->get_quantity(key, d);
  };
  const double state_bytes = opt_quantity("state_bytes", Dimension::bytes).value_or(job.state_bytes);
  std::optional<double> write_bandwidth = opt_quantity("write_bandwidth", Dimension::bandwidth);
  std::optional<double> read_bandwidth = opt_quantity("read_bandwidth", Dimension::bandwidth);
  std::optional<FileSystemSpec> named;
  if (ck != nullptr && ck->has("filesystem")) {
    const ConfigNode& fs_name = ck->at("filesystem");
    named = parse_filesystem_spec(catalog.load("filesystems", fs_name, "file system"), fs_name.as_string(), catalog);
  }
  // The checkpoint's file system: its own, else the cluster's (cluster.filesystem), unless both bandwidths
  // are given.
  const FileSystemSpec* fs = named ? &*named : job.filesystem;
  if (fs != nullptr && !(write_bandwidth && read_bandwidth)) {
    if (job.gpus < job.nodes) {
      throw ConfigError(named ? ck->at("filesystem").loc() : section.loc(),
                        "a checkpoint to a file system needs at least one rank per node");
    }
    const FileSystemCheckpoint written = filesystem_checkpoint(*fs, job.nodes, job.gpus, state_bytes);
    if (!write_bandwidth) write_bandwidth = written.write_bandwidth;
    if (!read_bandwidth) read_bandwidth = written.read_bandwidth;
  }
  c.io = checkpoint_io(state_bytes, job.nodes, job.storage, write_bandwidth, read_bandwidth);
  if (c.io.write_bandwidth <= 0) {
    throw ConfigError(ck != nullptr ? ck->loc() : section.loc(),
                      "no checkpoint write bandwidth: set resilience.checkpoint.write_bandwidth, cluster.storage or "
                      "cluster.filesystem");
  }
  if (ck != nullptr && ck->has("mode")) c.mode = *kCheckpointModeNames.parse(ck->get_string("mode"));
  c.snapshot_s = opt_quantity("snapshot", Dimension::time).value_or(0.0);
  if (ck != nullptr && ck->has("local")) stage_locally(*ck, catalog, job, state_bytes, c);
  if (ck != nullptr && ck->has("snapshot") && c.mode == CheckpointMode::sync) {
    throw ConfigError(ck->at("snapshot").loc(), "snapshot is the stall of an asynchronous checkpoint: set mode: async");
  }
  c.interval_s = opt_quantity("interval", Dimension::time);
  if (c.interval_s && *c.interval_s < c.io.write_s) {
    throw ConfigError(ck->at("interval").loc(),
                      "checkpoint interval " + format_quantity(*c.interval_s, Dimension::time) + " is shorter than the checkpoint's write " +
                          format_quantity(c.io.write_s, Dimension::time) + " (" + std::to_string(static_cast<long long>(state_bytes)) +
                          " bytes at " + std::to_string(static_cast<long long>(c.io.write_bandwidth)) +
                          " B/s): a checkpoint would start before the last one is written");
  }
  if (c.mode == CheckpointMode::async && c.snapshot_s > c.io.write_s) {
    throw ConfigError(ck->at("snapshot").loc(), "the snapshot (" + format_quantity(c.snapshot_s, Dimension::time) +
                                                    ") takes longer than the whole write (" + format_quantity(c.io.write_s, Dimension::time) +
                                                    "): use mode: sync");
  }

  // Recovery.
  c.detection_s = section.get_quantity("detection", Dimension::time);
  c.restart_s = section.get_quantity("restart", Dimension::time);
  c.requeue_s = section.get_quantity("requeue", Dimension::time);
  c.spares = static_cast<int>(section.get_int_or("spares", 0));
  if (c.spares > job.nodes) {
    throw ConfigError(section.at("spares").loc(), "spares " + std::to_string(c.spares) + " is more than the job's " +
                                                      std::to_string(job.nodes) + " nodes");
  }
  for (const char* key : {"spare_swap", "repair"}) {
    if (c.spares > 0 && !section.has(key)) {
      throw ConfigError(section.at("spares").loc(), std::string("spares need resilience.") + key);
    }
  }
  c.spare_swap_s = section.get_quantity_or("spare_swap", Dimension::time, 0.0);
  c.repair_s = section.get_quantity_or("repair", Dimension::time, 0.0);
  c.replicas = section.get_int_or("replicas", 1000);
  c.seed = static_cast<std::uint64_t>(section.get_int_or("seed", 1));
  return c;
}

}  // namespace hpcsim
