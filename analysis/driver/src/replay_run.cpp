#include "driver/replay_run.h"

#include <fstream>
#include <memory>
#include <sstream>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/loader.h"
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

}  // namespace

ReplayRun run_replay(const ReplayRequest& r, const SpecCatalog& catalog) {
  if (r.ranks && *r.ranks < 1) throw ConfigError(SourceLoc{"--np"}, "must be >= 1");
  if (r.ranks) check_count(CountLimit::ranks, *r.ranks, SourceLoc{"--np " + std::to_string(*r.ranks)}, "--np");
  if (r.model != "" && r.model != "smpi" && r.model != "mpi") throw ConfigError(SourceLoc{"--model"}, "smpi or mpi");
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
    // Every pair of ranks that may talk needs a route: check now, at the platform file.
    for (int a : slots)
      for (int b : slots) {
        try {
          m->route(a, b);
        } catch (const std::invalid_argument& e) {
          throw ConfigError(SourceLoc{r.platform}, e.what());
        }
      }
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
  run.result = replay_ti_trace(trace, *machine, options);
  return run;
}

}  // namespace hpcsim
