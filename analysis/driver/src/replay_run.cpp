#include "driver/replay_run.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <iterator>
#include <memory>
#include <sstream>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/json_writer.h"
#include "configs/loader.h"
#include "configs/yaml_text.h"
#include "models/mpi/fabric_machine.h"
#include "models/mpi/simgrid_platform.h"
#include "models/platform/cluster_config.h"

namespace hpcsim {

namespace {

bool is_xml(const std::string& path) {
  return path.size() >= 4 && path.compare(path.size() - 4, 4, ".xml") == 0;
}

std::vector<int> hostfile_hosts(const std::string& path, const SimgridMachine& m) {
  std::ifstream in(path);
  if (!in) throw ConfigError(SourceLoc{path}, "cannot read the hostfile");
  std::vector<int> hosts;
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::size_t b = line.find_first_not_of(" \t\r");
    if (b == std::string::npos || line[b] == '#') continue;
    const std::size_t e = line.find_last_not_of(" \t\r");
    std::string name = line.substr(b, e - b + 1);
    int count = 1;
    if (const std::size_t colon = name.find(':'); colon != std::string::npos) {  // "host:slots"
      try {
        count = std::stoi(name.substr(colon + 1));
      } catch (const std::exception&) {
        count = 0;
      }
      if (count < 1 || count > 1 << 20)
        throw ConfigError(SourceLoc{path, n, static_cast<int>(b + colon) + 2}, "slots must be a whole number >= 1");
      name = name.substr(0, colon);
    }
    const int h = m.platform().host_index(name);
    if (h < 0) throw ConfigError(SourceLoc{path, n, static_cast<int>(b) + 1}, "the platform has no host '" + name + "'");
    for (int k = 0; k < count; ++k) hosts.push_back(h);
    if (hosts.size() > (1u << 20)) throw ConfigError(SourceLoc{path, n, 1}, "more than 1,048,576 slots");
  }
  if (hosts.empty()) throw ConfigError(SourceLoc{path}, "the hostfile names no host");
  return hosts;
}

CollSelector selector_of(const ReplayRequest& r, const std::string& rules) {
  CollSelector s(rules == "smpi" ? CollSelector::Rules::smpi : CollSelector::Rules::ompi);
  for (const std::string& o : r.coll) {
    const std::size_t eq = o.find('=');
    const auto op = mpi_collective_from_name(o.substr(0, eq));
    if (eq == std::string::npos || !op) throw ConfigError(SourceLoc{"--coll " + o}, "expected OPERATION=ALGORITHM with a known operation");
    const auto a = coll_algorithm_from_name(o.substr(eq + 1));
    if (!a || !implements(*a, *op))
      throw ConfigError(SourceLoc{"--coll " + o}, "'" + o.substr(eq + 1) + "' is not an algorithm of " + o.substr(0, eq));
    s.override_with(*op, *a);
  }
  return s;
}

std::string file_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return content_hash(std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()));
}

// What was replayed, as the stored scenario text: the request's files (with their contents' hashes, so that
// runs of changed files tell apart) and options.
std::string request_text(const ReplayRequest& r, const ReplaySummary& s, const TiTrace& trace) {
  const SourceLoc here{"replay"};
  auto scalar = [&](const std::string& text) { return ConfigNode::make_scalar(text, here, true); };
  ConfigNode replay = ConfigNode::make_map(here);
  replay.set("trace", scalar(r.trace));
  replay.set("trace_hash", scalar(file_hash(r.trace)));
  if (trace.files.size() != 1 || trace.files[0] != r.trace) {  // a description: the per-rank files it lists too
    std::string hashes;
    for (const std::string& f : trace.files) hashes += file_hash(f);
    replay.set("trace_files_hash", scalar(content_hash(hashes)));
  }
  replay.set("platform", scalar(r.platform));
  replay.set("platform_hash", scalar(file_hash(r.platform)));
  if (!r.hostfile.empty()) replay.set("hostfile", scalar(r.hostfile)), replay.set("hostfile_hash", scalar(file_hash(r.hostfile)));
  if (r.ranks_per_node) replay.set("ranks_per_node", scalar(std::to_string(*r.ranks_per_node)));
  if (r.oversubscribe) replay.set("oversubscribe", scalar("true"));
  replay.set("model", scalar(s.model));
  replay.set("collectives", scalar(s.selector));
  if (!r.coll.empty()) {
    ConfigNode coll = ConfigNode::make_sequence(here);
    for (const std::string& c : r.coll) coll.push_back(scalar(c));
    replay.set("coll", std::move(coll));
  }
  if (r.eager_bytes) replay.set("eager_bytes", scalar(json::number(*r.eager_bytes, 17)));
  ConfigNode root = ConfigNode::make_map(here);
  root.set("kind", scalar("replay"));
  root.set("name", scalar(r.trace));
  root.set("replay", std::move(replay));
  return to_yaml_text(root);
}

Report replay_report(const ReplayResult& res, const std::string& name) {
  Report rep;
  rep.scenario = name;
  rep.kind = "replay";
  auto add = [&rep](std::string metric, double value, std::string unit) {
    rep.metrics.push_back({std::move(metric), value, std::move(unit)});
  };
  add("time_s", res.time_s, "s");
  add("ranks", static_cast<double>(res.ranks.size()), "count");
  add("actions", static_cast<double>(res.actions), "count");
  add("messages", static_cast<double>(res.messages), "count");
  double compute = 0, communication = 0, waiting = 0;
  for (const RankTimes& t : res.ranks) compute += t.compute_s, communication += t.communication_s, waiting += t.waiting_s;
  const double n = res.ranks.empty() ? 1.0 : static_cast<double>(res.ranks.size());
  add("mean_rank.compute_s", compute / n, "s");
  add("mean_rank.communication_s", communication / n, "s");
  add("mean_rank.waiting_s", waiting / n, "s");
  if (res.critical_path) {
    const ReplayCriticalPath& cp = *res.critical_path;
    add("critical_path.compute_s", cp.compute_s, "s");
    add("critical_path.communication_s", cp.communication_s, "s");
    add("critical_path.other_s", cp.other_s, "s");
    add("critical_path.messages", static_cast<double>(cp.hops), "count");
    add("critical_path.end_rank", cp.end_rank, "count");
  }
  return rep;
}

}  // namespace

std::vector<int> timeline_ranks(int ranks, int lanes) {
  std::vector<int> out;
  if (ranks < 1 || lanes < 1) return out;
  if (lanes >= ranks || lanes == 1) {
    for (int r = 0; r < std::min(ranks, lanes); ++r) out.push_back(r);
    return out;
  }
  for (int i = 0; i < lanes; ++i)
    out.push_back(static_cast<int>((static_cast<std::int64_t>(i) * (ranks - 1)) / (lanes - 1)));
  return out;
}

ReplayRun run_replay(const ReplayRequest& r, const SpecCatalog& catalog) {
  if (r.ranks && *r.ranks < 1) throw ConfigError(SourceLoc{"--np"}, "must be >= 1");
  if (r.ranks) check_count(CountLimit::ranks, *r.ranks, SourceLoc{"--np " + std::to_string(*r.ranks)}, "--np");
  if (r.model != "" && r.model != "smpi" && r.model != "mpi") throw ConfigError(SourceLoc{"--model"}, "smpi or mpi");
  if (r.timeline_lanes < 0) throw ConfigError(SourceLoc{"--trace-ranks"}, "must not be negative (0: no timeline)");
  const auto wall_start = std::chrono::steady_clock::now();
  const TiTrace trace = read_ti_trace(r.trace, r.ranks);
  ReplayRun run;
  run.summary.trace = r.trace;
  run.summary.platform = r.platform;
  ReplayOptions options;
  std::unique_ptr<MpiMachine> machine;
  const bool xml = is_xml(r.platform);
  run.summary.model = r.model.empty() ? (xml ? "smpi" : "mpi") : r.model;
  run.summary.selector = r.selector.empty() ? (run.summary.model == "smpi" ? "smpi" : "ompi") : r.selector;
  // --eager, else (on an hpcsim cluster, below) the network spec's eager_threshold, else Open MPI's TCP
  // BTL eager limit.
  const double eager = r.eager_bytes.value_or(NetworkSpec::kDefaultEagerThreshold);
  options.model = run.summary.model == "smpi" ? smpi_message_model() : mpi_message_model(eager);
  if (xml) {
    SimgridPlatform p = read_simgrid_platform(r.platform);
    apply_simgrid_config(p, options.model);
    auto m = std::make_unique<SimgridMachine>(std::move(p));
    std::vector<int> slots;
    if (!r.hostfile.empty()) {
      slots = hostfile_hosts(r.hostfile, *m);
    } else {
      for (int h = 0; h < m->hosts(); ++h) slots.push_back(h);
    }
    for (int k = 0; k < trace.ranks; ++k) options.rank_host.push_back(slots[k % slots.size()]);
    // Every pair of ranks that may talk needs a route: check now, at the platform file, between the hosts that
    // hold ranks (not every host of the platform: a 2-rank trace on a 4,096-host cluster built 16 M routes,
    // 3 GB, before it started), and without building the routes, which the replay builds as pairs talk.
    std::vector<int> used(options.rank_host);
    std::sort(used.begin(), used.end());
    used.erase(std::unique(used.begin(), used.end()), used.end());
    const SimgridPlatform& platform = m->platform();
    for (int a : used)
      for (int b : used)
        if (!platform.has_route(a, b))
          throw ConfigError(SourceLoc{r.platform}, "the platform has no route from '" + platform.hosts[a].name + "' to '" +
                                                       platform.hosts[b].name + "'");
    machine = std::move(m);
  } else {
    if (!r.hostfile.empty()) throw ConfigError(SourceLoc{"--hostfile"}, "only for SimGrid (.xml) platforms");
    const ConfigNode doc = load_config(r.platform, {});
    const ConfigNode* c = doc.find("cluster");
    if (!c) throw ConfigError(SourceLoc{r.platform}, "expected a SimGrid .xml platform or a YAML file with a cluster: section");
    const ClusterConfig cluster = parse_cpu_cluster(*c, catalog);
    if (run.summary.model == "mpi" && cluster.network) {  // the network spec's threshold and o; --eager overrides
      options.model = mpi_message_model(*cluster.network);
      if (r.eager_bytes) options.model.eager_threshold = options.model.buffered_threshold = *r.eager_bytes;
    }
    std::unique_ptr<FabricMachine> m;
    try {
      m = std::make_unique<FabricMachine>(cluster);
    } catch (const std::invalid_argument& e) {
      throw ConfigError(c->loc(), e.what());
    }
    const int cores = m->host_cores(0);
    const int per_node = r.ranks_per_node.value_or(cores);
    if (per_node < 1) throw ConfigError(SourceLoc{"--ranks-per-node"}, "must be >= 1");
    if (per_node > cores && !r.oversubscribe)
      throw ConfigError(SourceLoc{"--ranks-per-node"}, std::to_string(per_node) + " ranks per node but a node has " +
                                                           std::to_string(cores) + " cores (--oversubscribe allows it)");
    if (static_cast<long>(per_node) * m->hosts() < trace.ranks)
      throw ConfigError(SourceLoc{r.trace}, "the trace has " + std::to_string(trace.ranks) + " ranks but the cluster holds " +
                                                std::to_string(per_node * m->hosts()) + " (" + std::to_string(m->hosts()) +
                                                " nodes x " + std::to_string(per_node) + " ranks per node)");
    for (int k = 0; k < trace.ranks; ++k) options.rank_host.push_back(k / per_node);
    machine = std::move(m);
  }
  options.selector = selector_of(r, run.summary.selector);
  for (int h : options.rank_host) run.summary.rank_hosts.push_back(machine->host_name(h));
  options.timeline_ranks = timeline_ranks(trace.ranks, r.timeline_lanes);
  options.critical_path = r.critical_path;
  options.progress = r.progress;
  run.result = replay_ti_trace(trace, *machine, options);
  run.record.report = replay_report(run.result, r.trace);
  run.record.scenario_text = request_text(r, run.summary, trace);
  run.record.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return run;
}

}  // namespace hpcsim
