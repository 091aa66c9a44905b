// Resilience (issue 40): the failure model as data, Young's and Daly's intervals against the published
// optima, and the long-run Monte Carlo against the closed forms, for determinism and for convergence.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <map>
#include <numeric>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/resilience/checkpoint_interval.h"
#include "workloads/resilience/checkpoint_io.h"
#include "workloads/resilience/long_run.h"
#include "workloads/resilience/reliability_spec.h"
#include "workloads/resilience/replica_timeline.h"
#include "workloads/stragglers/straggler_config.h"
#include "workloads/resilience/resilience_config.h"
#include "models/storage/io500.h"

using namespace hpcsim;

namespace {

const std::filesystem::path kData = std::filesystem::path(HPCSIM_TEST_DATA_DIR) / "resilience";

// lambda = 1 / 4 h, tau = 1 h, delta = 5 min, recovery 10 min, 100 h of work: about 30 failures a replica.
LongRunModel daly_model() {
  LongRunModel m;
  m.work_s = 100 * 3600.0;
  m.interval_s = 3600.0;
  m.checkpoint_write_s = 300.0;
  m.restart_s = 600.0;  // detection 0, restore 0: recovery is the restart alone
  m.modes = {{"a", 0.75 / (4 * 3600.0), 0}, {"b", 0.25 / (4 * 3600.0), 0}};
  return m;
}

double relative(double a, double b) { return std::abs(a - b) / std::abs(b); }

}  // namespace

TEST_CASE("resilience: Young's and Daly's optima match the published values", "[resilience]") {
  const ConfigNode cases = load_config_file(kData / "checkpoint-interval-reference.yaml");
  int checked = 0;
  for (const ConfigNode& c : cases.at("cases").items()) {
    const double m = c.get_number("mtbf_min") * 60, d = c.get_number("dump_min") * 60;
    const double tolerance = 0.5 * std::pow(10.0, -c.get_number("tau_digits"));
    INFO("MTBF " << c.get_number("mtbf_min") << " min");
    CHECK(std::abs(daly_interval(d, m) / 60 - c.get_number("tau_opt_min")) <= tolerance);
    // Young's as the file prints it (two decimals at most).
    CHECK(std::abs(young_interval(d, m) / 60 - c.get_number("young_first_order_min")) <= 0.005);
    ++checked;
  }
  CHECK(checked == 3);
  // Daly past delta >= 2M: the interval is M.
  CHECK(daly_interval(100.0, 40.0) == 40.0);
  // The availability optimum tends to Young's when delta << R << M.
  CHECK(relative(availability_optimal_interval(1.0, 1e7, 100.0), young_interval(1.0, 1e7)) < 1e-3);
}

TEST_CASE("resilience: the shipped failure model parses, every rate positive and sourced", "[resilience]") {
  const ReliabilitySpec spec =
      parse_reliability_spec(load_config_file(std::filesystem::path(HPCSIM_SOURCE_CONFIG_DIR) / "reliability" / "h200-crusoe.yaml"), "x");
  REQUIRE(spec.modes.size() == 6);
  double fit = 0;
  for (const FailureMode& m : spec.modes) {
    CHECK(m.fit > 0);
    CHECK_FALSE(m.source.empty());
    fit += m.fit;
  }
  // The shares add to 100 % of 205 failures / (1,600 GPUs x 4 x 730.5 h).
  CHECK(std::abs(fit - 205.0 / (1600 * 4 * 730.5) * 1e9) < 5);
  const ReliabilitySpec all = parse_reliability_spec(load_config_file(kData / "all-components.yaml"), "all");
  CHECK(all.modes.size() == kFailureComponentNames.entries.size() - 1);  // every kind but `other`
}

TEST_CASE("resilience: hostile failure models are errors at the key", "[resilience]") {
  CHECK_THROWS_WITH(parse_reliability_spec(load_config_file(kData / "zero-rate.yaml"), "z"),
                    Catch::Contains("zero-rate.yaml:5:") && Catch::Contains("must be > 0"));
  CHECK_THROWS_WITH(parse_reliability_spec(load_config_file(kData / "job-rate-node-blast.yaml"), "j"),
                    Catch::Contains("job-rate-node-blast.yaml:7:") && Catch::Contains("blast_radius must be job"));
}

TEST_CASE("resilience: the Monte Carlo matches the closed forms within 2 % at 10,000 replicas", "[resilience]") {
  const LongRunModel m = daly_model();
  const LongRunSummary s = simulate_long_run(m, 10000, 42);
  const double rate = m.failure_rate_per_s();
  const double wall = expected_wall_time(m.work_s, m.interval_s, m.checkpoint_write_s, m.restart_s, rate);
  const double lost = expected_lost_time(m.work_s, m.interval_s, m.checkpoint_write_s, rate);
  // Time in attempts a failure cut short: the work redone and the checkpoint time not followed by a
  // completed checkpoint.
  const double simulated_lost = s.recompute_s + s.checkpoint_s - s.checkpoints * m.checkpoint_write_s;
  CHECK(relative(s.mean_wall_s, wall) < 0.02);
  CHECK(relative(simulated_lost, lost) < 0.02);
  // ETTR below 1 and the buckets add up to the wall time.
  CHECK(s.ettr < 1.0);
  CHECK(relative(m.work_s + s.recompute_s + s.checkpoint_s + s.restart_s, s.mean_wall_s) < 1e-12);
  // Causes in proportion to their rates (3:1).
  CHECK(relative(s.interruptions_by_mode[0] / s.interruptions_by_mode[1], 3.0) < 0.05);
  // A failure-free run: work plus the checkpoints, exactly.
  LongRunModel calm = m;
  calm.modes = {{"never", 1e-30, 0}};
  const LongRunReplica r = simulate_long_run_replica(calm, 1, 0);
  CHECK(r.checkpoints == 99);
  CHECK(r.wall == Time::seconds(m.work_s) + Time::seconds(99 * m.checkpoint_write_s));
}

TEST_CASE("resilience: the same seed gives bit-identical runs, others converge as 1/sqrt(n)", "[resilience]") {
  const LongRunModel m = daly_model();
  const LongRunSummary a = simulate_long_run(m, 300, 7), b = simulate_long_run(m, 300, 7), c = simulate_long_run(m, 300, 8);
  CHECK(a.wall_s == b.wall_s);
  CHECK(a.mean_wall_s == b.mean_wall_s);
  CHECK(a.wall_s != c.wall_s);
  // Replica r's history does not depend on how many replicas run.
  CHECK(simulate_long_run(m, 100, 7).wall_s[99] == a.wall_s[99]);
  const double se_250 = simulate_long_run(m, 250, 3).stderr_wall_s;
  const double se_1000 = simulate_long_run(m, 1000, 3).stderr_wall_s;
  const double se_4000 = simulate_long_run(m, 4000, 3).stderr_wall_s;
  CHECK(se_250 / se_1000 == Approx(2.0).epsilon(0.2));
  CHECK(se_1000 / se_4000 == Approx(2.0).epsilon(0.2));
}

TEST_CASE("resilience: months of job time on the 128-bit clock, every picosecond accounted", "[resilience]") {
  LongRunModel m = daly_model();
  m.work_s = 200 * 86400.0;  // 200 days: past 2^63 ps (106.75 days)
  m.detection_s = 120, m.restore_s = 240, m.requeue_s = 1800, m.spare_swap_s = 300, m.repair_s = 86400;
  m.spares = 2;
  m.modes = {{"node", 1.0 / (6 * 3600.0), 1}, {"leaf", 1.0 / (240 * 3600.0), 4}, {"job", 1.0 / (8 * 3600.0), 0}};
  for (CheckpointMode mode : {CheckpointMode::sync, CheckpointMode::async}) {
    m.mode = mode;
    m.snapshot_s = 10;
    const LongRunReplica r = simulate_long_run_replica(m, 5, 3);
    CHECK(r.wall.picoseconds() > (Time::Rep{1} << 63));
    CHECK(r.wall == r.work + r.recompute + r.checkpoint + r.detection + r.restart + r.spare_wait + r.restore);
    CHECK(std::accumulate(r.interruptions.begin(), r.interruptions.end(), std::int64_t{0}) > 500);
  }
  // A leaf failure takes 4 nodes, more than the 2 spares: it re-queues; spares cut the time nodes cost.
  m.mode = CheckpointMode::sync;
  const double with_spares = simulate_long_run(m, 200, 1).mean_wall_s;
  m.spares = 0;
  const double without = simulate_long_run(m, 200, 1).mean_wall_s;
  CHECK(with_spares < without);
}

TEST_CASE("resilience: asynchronous checkpoints cost the snapshot and roll back to the last written one", "[resilience]") {
  LongRunModel m = daly_model();
  m.mode = CheckpointMode::async;
  m.snapshot_s = 10;
  const LongRunSummary async = simulate_long_run(m, 2000, 9);
  m.mode = CheckpointMode::sync;
  const LongRunSummary sync = simulate_long_run(m, 2000, 9);
  CHECK(async.mean_wall_s < sync.mean_wall_s);
  // A failure during a write loses the interval before it too: more work redone per failure than sync
  // checkpoints at the same interval would lose with a free write.
  CHECK(async.recompute_s / async.interruptions > 0.5 * m.interval_s);
}

TEST_CASE("resilience: checkpoint write and read from the storage's aggregate bandwidth", "[resilience]") {
  const CheckpointIo given = checkpoint_io(1e12, 4, nullptr, 1e10, std::nullopt);
  CHECK(given.write_s == 100.0);
  CHECK(given.read_s == 100.0);  // no read bandwidth: the write's
  StorageSpec local;
  local.kind = StorageKind::local;
  local.device.write_bandwidth = 2e9, local.device.read_bandwidth = 4e9;
  const CheckpointIo nvme = checkpoint_io(8e11, 4, &local, std::nullopt, std::nullopt);
  CHECK(nvme.write_s == 100.0);  // each of 4 nodes writes its quarter at 2 GB/s
  CHECK(nvme.read_s == 50.0);
}

TEST_CASE("resilience: one replica's timeline is its history, phase by phase", "[resilience]") {
  LongRunModel m = daly_model();
  m.work_s = 30 * 86400.0;
  m.detection_s = 120, m.restore_s = 240, m.requeue_s = 1800, m.spare_swap_s = 300, m.repair_s = 86400;
  m.spares = 1;
  m.modes = {{"node", 1.0 / (6 * 3600.0), 1}, {"leaf", 1.0 / (240 * 3600.0), 4}, {"job", 1.0 / (8 * 3600.0), 0}};
  for (CheckpointMode mode : {CheckpointMode::sync, CheckpointMode::async}) {
    m.mode = mode;
    m.snapshot_s = 10;
    const LongRunReplica r = simulate_long_run_replica(m, 5, 2);
    const std::vector<TimelineOp> timeline = long_run_replica_timeline(m, 5, 2);
    double end = 0, compute = 0, checkpoint = 0, recovery = 0, writes = 0;
    std::int64_t failures = 0, stalls = 0;
    std::map<std::string, std::int64_t> by_name;
    for (const TimelineOp& op : timeline) {
      if (op.lane == "failures") {
        CHECK(op.category == "failure");
        CHECK(op.start_s == op.end_s);
        ++failures, ++by_name[op.name];
        continue;
      }
      if (op.lane == "checkpoint writes") {
        CHECK(mode == CheckpointMode::async);
        writes += op.end_s - op.start_s;
        continue;
      }
      REQUIRE(op.lane == "job");
      CHECK(op.start_s == Approx(end).margin(1e-6));  // the job's phases follow one another without a gap
      end = op.end_s;
      (op.category == "compute" ? compute : op.category == "checkpoint" ? checkpoint : recovery) += op.end_s - op.start_s;
      if (op.category == "checkpoint" && op.name == (mode == CheckpointMode::sync ? "checkpoint" : "snapshot")) ++stalls;
    }
    CHECK(end == Approx(r.wall.to_seconds()).epsilon(1e-12));
    CHECK(compute == Approx((r.work + r.recompute).to_seconds()).epsilon(1e-9));
    CHECK(checkpoint == Approx(r.checkpoint.to_seconds()).epsilon(1e-9));
    CHECK(recovery == Approx((r.detection + r.restart + r.spare_wait + r.restore).to_seconds()).epsilon(1e-9));
    CHECK(stalls >= r.checkpoints);  // every completed checkpoint, and those a failure cut short
    CHECK(failures == std::accumulate(r.interruptions.begin(), r.interruptions.end(), std::int64_t{0}));
    for (std::size_t i = 0; i < m.modes.size(); ++i) CHECK(by_name[m.modes[i].name] == r.interruptions[i]);
    CHECK((mode == CheckpointMode::async) == (writes > 0));
  }
}

TEST_CASE("stragglers: the chance a job holds a slow GPU grows with its size", "[resilience][stragglers]") {
  StragglerConfig c;
  c.slow_gpus = 0.01, c.gpu_clock = 0.8, c.slow_links = 0.001, c.link_bandwidth = 0.5;
  CHECK(straggler_odds(c, 1, 1).slow_gpu == Approx(0.01).epsilon(1e-14));
  CHECK(straggler_odds(c, 8, 1).slow_gpu == Approx(1 - std::pow(0.99, 8)).epsilon(1e-13));
  CHECK(straggler_odds(c, 1024, 128).slow_gpu == Approx(1 - std::pow(0.99, 1024)).epsilon(1e-13));
  CHECK(straggler_odds(c, 1024, 128).slow_link == Approx(1 - std::pow(0.999, 128)).epsilon(1e-13));
  c.slow_gpus = 1e-12;  // accurate where 1 - (1 - f)^n would cancel
  CHECK(straggler_odds(c, 16384, 1).slow_gpu == Approx(16384e-12).epsilon(1e-6));
  c.slow_gpus = 1;
  CHECK(straggler_odds(c, 3, 1).slow_gpu == 1);
  c.slow_gpus = 0;
  CHECK(straggler_odds(c, 16384, 1).slow_gpu == 0);
}

TEST_CASE("resilience: checkpoint time from a file system described as hardware", "[resilience]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const ConfigNode name = ConfigNode::make_scalar("lustre-nvme-opa", SourceLoc{"fs", 0, 0});
  const FileSystemSpec fs = parse_filesystem_spec(catalog.load("filesystems", name, "file system"), "lustre-nvme-opa",
                                                  catalog);
  // 1,024 ranks on 128 nodes write 5.537 GB each: the servers' ports bind (examples/checkpoint).
  const double state = 5.537e9 * 1024;
  const FileSystemCheckpoint ck = filesystem_checkpoint(fs, 128, 1024, state);
  CHECK(ck.write_bottleneck == "server ports");
  const CheckpointResult direct = simulate_checkpoint(fs, {128, 1024}, 5.537e9, IoOp::write);
  CHECK(state / ck.write_bandwidth == Approx(direct.time_s).epsilon(1e-12));
  // No stage is exceeded: at most the 24 servers' ports.
  CHECK(ck.write_bandwidth <= 24 * fs.server_port_bandwidth() * (1 + 1e-9));
  // The resilience section takes it; an explicit write bandwidth wins.
  ResilienceJob job;
  job.nodes = 128, job.gpus = 1024, job.state_bytes = state, job.node_leaf.assign(128, 0);
  const std::string head = "reliability: h200-crusoe\ncompute_time: 2592000 s\ndetection: 1 min\nrestart: 5 min\n"
                           "requeue: 30 min\ncheckpoint:\n  filesystem: lustre-nvme-opa\n";
  const ResilienceConfig c = parse_resilience(parse_config_text(head, "r.yaml"), catalog, job);
  CHECK(c.io.write_s == Approx(direct.time_s).epsilon(1e-12));
  CHECK(c.io.read_s > 0);
  const ResilienceConfig given =
      parse_resilience(parse_config_text(head + "  write_bandwidth: 1 TB/s\n", "r.yaml"), catalog, job);
  CHECK(given.io.write_s == Approx(state / 1e12));
  try {
    parse_resilience(parse_config_text(head.substr(0, head.size() - 16) + "lustre-nvme-op\n", "r.yaml"), catalog, job);
    FAIL("an unknown file system is an error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("r.yaml:7:15:") != std::string::npos);
  }
}

TEST_CASE("resilience: checkpoints go to cluster.filesystem unless the section names another", "[resilience]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const auto fs_named = [&](const std::string& n) {
    return parse_filesystem_spec(catalog.load("filesystems", ConfigNode::make_scalar(n, SourceLoc{"fs", 0, 0}), "file system"),
                                 n, catalog);
  };
  const FileSystemSpec disks = fs_named("lustre-hdd-edr");
  ResilienceJob job;
  job.nodes = 128, job.gpus = 1024, job.state_bytes = 5.537e9 * 1024, job.node_leaf.assign(128, 0);
  job.filesystem = &disks;  // cluster.filesystem
  const std::string head = "reliability: h200-crusoe\ncompute_time: 2592000 s\ndetection: 1 min\nrestart: 5 min\n"
                           "requeue: 30 min\n";
  const ResilienceConfig c = parse_resilience(parse_config_text(head, "r.yaml"), catalog, job);
  const FileSystemCheckpoint on_disks = filesystem_checkpoint(disks, 128, 1024, job.state_bytes);
  CHECK(c.io.write_bandwidth == on_disks.write_bandwidth);
  CHECK(c.io.read_bandwidth == on_disks.read_bandwidth);
  // The section's own file system wins over the cluster's.
  const ResilienceConfig other =
      parse_resilience(parse_config_text(head + "checkpoint:\n  filesystem: lustre-nvme-opa\n", "r.yaml"), catalog, job);
  CHECK(other.io.write_bandwidth == filesystem_checkpoint(fs_named("lustre-nvme-opa"), 128, 1024, job.state_bytes).write_bandwidth);
  CHECK(other.io.write_bandwidth != c.io.write_bandwidth);
}

TEST_CASE("resilience: two-level checkpoints wait for the local write and drain behind the run", "[resilience]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const FileSystemSpec disks = parse_filesystem_spec(
      catalog.load("filesystems", ConfigNode::make_scalar("lustre-hdd-edr", SourceLoc{"fs", 0, 0}), "file system"),
      "lustre-hdd-edr", catalog);
  ResilienceJob job;
  job.nodes = 128, job.gpus = 1024, job.state_bytes = 5.537e9 * 1024, job.node_leaf.assign(128, 0);
  job.filesystem = &disks;
  const std::string head = "reliability: h200-crusoe\ncompute_time: 2592000 s\ndetection: 1 min\nrestart: 5 min\n"
                           "requeue: 30 min\ncheckpoint:\n";
  const ResilienceConfig direct = parse_resilience(parse_config_text(head + "  mode: sync\n", "r.yaml"), catalog, job);
  const ResilienceConfig staged =
      parse_resilience(parse_config_text(head + "  local: dgx-a100-nvme-raid0\n", "r.yaml"), catalog, job);
  CHECK(staged.mode == CheckpointMode::async);
  // Each DGX A100 writes its 44.3 GB to its four NVMe drives (17.2 GB/s) while the job waits.
  CHECK(staged.snapshot_s == Approx(85e-6 + 5.537e9 * 8 / 17.2e9).epsilon(1e-9));
  // The drain is the file system's write (128 nodes' drives read at 28 GB/s each are faster).
  CHECK(staged.io.write_s == Approx(direct.io.write_s).epsilon(1e-12));
  CHECK(staged.io.read_s == direct.io.read_s);  // restores read the file system
  CHECK(staged.snapshot_s < direct.io.write_s / 10);
  // Daly's interval shrinks with the stall it is computed from.
  CHECK(staged.daly_interval_s() < direct.daly_interval_s());

  const auto error_of = [&](const std::string& tail) {
    try {
      parse_resilience(parse_config_text(head + tail, "r.yaml"), catalog, job);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(error_of("  local: dgx-a100-nvme-raid0\n  mode: sync\n"), Catch::Contains("r.yaml:8:") && Catch::Contains("async"));
  CHECK_THAT(error_of("  local: dgx-a100-nvme-raid0\n  snapshot: 1 s\n"),
             Catch::Contains("r.yaml:8:") && Catch::Contains("local write"));
  CHECK_THAT(error_of("  local: lustre-hdd\n"), Catch::Contains("r.yaml:7:") && Catch::Contains("kind: local"));
  // A local disk slower than the drain gains nothing.
  CHECK_THAT(error_of("  local: hdd-7200rpm\n"), Catch::Contains("r.yaml:7:") && Catch::Contains("gains nothing"));
}
