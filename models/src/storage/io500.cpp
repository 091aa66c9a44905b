#include "models/storage/io500.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"

namespace hpcsim {

namespace {

// Per process: 1 GiB of ior data or 1,000 mdtest operations. IO500 runs each phase for a fixed time;
// the rates below are steady-state rates, which do not depend on the amount beyond the first latency.
constexpr double kBytesPerProc = 1073741824.0;
constexpr double kOpsPerProc = 1000.0;
// A stage at least this busy over the phase is saturated: it set the rate.
constexpr double kSaturated = 0.95;

// A request and its reply cross the client's port, one switch and the server's port; the network's
// per-message software latency is paid at each end of each direction (as storage_resources.cpp).
double round_trip_s(const NetworkSpec& net) { return 2 * (net.software_latency_s + net.switch_latency_s); }

struct Stage {
  std::string name;
  std::vector<ResourceId> members;
};

// Processes per client node, block placement: the first procs % nodes nodes hold one more.
std::vector<int> procs_per_node(const Io500Clients& c) {
  std::vector<int> out(c.nodes, c.procs / c.nodes);
  for (int n = 0; n < c.procs % c.nodes; ++n) ++out[n];
  return out;
}

void check_clients(const Io500Clients& clients) {
  if (clients.nodes < 1) throw std::invalid_argument("IO500 needs at least one client node");
  if (clients.procs < clients.nodes)
    throw std::invalid_argument("IO500 needs at least one process per client node (" + std::to_string(clients.procs) +
                                " processes on " + std::to_string(clients.nodes) + " nodes)");
}

class PhaseRun {
 public:
  PhaseRun() : share_(sim_) { stages_.reserve(8); }  // stage() hands out references

  Stage& stage(std::string name, int count, double capacity) {
    Stage s{std::move(name), {}};
    for (int i = 0; i < count; ++i) s.members.push_back(share_.add_resource(capacity, s.name + " " + std::to_string(i)));
    stages_.push_back(std::move(s));
    return stages_.back();
  }

  // A flow class (one flow standing for `amount` spread over several processes) loading path[k] with
  // weights[k] units per unit of its amount; it starts when the phase's first requests reach the servers.
  // `members` flows of `amount` each (a class of symmetric flows, all counted in the phase's total).
  void flow(std::span<const ResourceId> path, std::span<const double> weights, double amount, double cap,
            double members = 1) {
    total_ += amount * members;
    flows_.push_back({{path.begin(), path.end()}, {weights.begin(), weights.end()}, amount, cap});
  }

  Io500PhaseResult finish(Io500Phase phase, Time start, std::uint64_t& events) {
    sim_.schedule_at(start, [this] {
      for (const Pending& f : flows_)
        share_.start_flow_class(f.path, f.weights, f.amount, [this](FlowId) { end_ = sim_.now(); }, f.cap);
    });
    sim_.run();
    events += sim_.events_processed();
    Io500PhaseResult r;
    r.phase = phase;
    const double time_s = end_.to_seconds();
    r.rate = total_ / time_s;
    double busiest = 0;
    for (const Stage& s : stages_) {
      double use = 0;
      for (ResourceId id : s.members) {
        const ResourceStats st = share_.stats(id);
        use = std::max(use, st.carried / (st.capacity * time_s));
      }
      r.stages.push_back({s.name, use});
      if (use > busiest) {
        busiest = use;
        r.bottleneck = s.name;
      }
    }
    if (busiest < kSaturated) r.bottleneck = "client requests";
    return r;
  }

 private:
  struct Pending {
    std::vector<ResourceId> path;
    std::vector<double> weights;
    double amount;
    double cap;
  };
  Simulator sim_;
  FairShare share_;
  std::vector<Stage> stages_;
  std::vector<Pending> flows_;
  double total_ = 0;
  Time end_ = Time::zero();
};

// A node's processes' shares of the servers, only the servers they use, in server order: a dense row per
// node cost clients x servers (1,000,000 x 1,000,000 within the limits) before any flow ran.
using ShareRow = std::vector<std::pair<int, double>>;

class ShareRowBuilder {
 public:
  explicit ShareRowBuilder(int servers) : dense_(static_cast<std::size_t>(servers), 0.0) {}
  void add(int server, double share) {
    double& x = dense_[static_cast<std::size_t>(server)];
    if (x == 0) used_.push_back(server);
    x += share;
  }
  // The row so far, and a fresh start for the next node.
  ShareRow take() {
    std::sort(used_.begin(), used_.end());
    ShareRow row;
    row.reserve(used_.size());
    for (const int s : used_) {
      row.emplace_back(s, dense_[static_cast<std::size_t>(s)]);
      dense_[static_cast<std::size_t>(s)] = 0;
    }
    used_.clear();
    return row;
  }

 private:
  std::vector<double> dense_;
  std::vector<int> used_;
};

// How each process of an ior-easy-like phase reads whole files (a data loader's workers): its request size
// and how many it keeps in flight, and the time each file costs before its first request (its open).
// Absent: ior's own streams (the client's RPC pipeline, files opened once).
struct FileRequests {
  double file_bytes = 0;
  double request_bytes = 0;
  int in_flight = 1;
  double per_file_s = 0;
};

Io500PhaseResult run_ior(const FileSystemSpec& fs, const Io500Clients& c, Io500Phase phase, std::uint64_t& events,
                         double bytes_per_proc = kBytesPerProc, double* time_s = nullptr,
                         const FileRequests* files = nullptr) {
  const bool hard = phase == Io500Phase::ior_hard_write || phase == Io500Phase::ior_hard_read;
  const IoOp op = phase == Io500Phase::ior_easy_write || phase == Io500Phase::ior_hard_write ? IoOp::write : IoOp::read;
  const int servers = fs.data.count;
  const int targets = fs.total_targets();
  const double port = fs.network.payload_bandwidth();
  const double rtt = round_trip_s(fs.network);

  // ior-hard spreads every process evenly over every server: the servers are alike, so one stands for all
  // (each node's flow to it carries the node's port `servers` times and counts once per server).
  const int modelled = hard ? 1 : servers;
  const int alike = servers / modelled;  // servers the modelled one stands for
  PhaseRun run;
  const Stage& clients = run.stage("client ports", c.nodes, port * fs.client.ports);
  const Stage& server_ports = run.stage("server ports", modelled, fs.server_port_bandwidth());
  const Stage& devices = run.stage("devices", modelled, fs.server_device_bandwidth(op));
  // ior-hard: every record is one request to a target. A write smaller than a parity group's stripe
  // reads and rewrites the data chunk and each parity chunk; otherwise a record is one device operation.
  // ior-easy: the processes' streams interleave on every device, so each request's piece on a device is
  // one positioning (one operation at the device's IOPS): an RPC on a parity-protected target is a
  // full-stripe access, one piece per data device (reads) or per data and parity device (writes).
  const Stage& iops = run.stage("device IOPS", modelled, fs.data.devices * fs.data.device.iops(op));
  const Protection& prot = fs.data.protection;
  // Replicated writes (Ceph): each byte is stored on `replicas` servers, the primary forwarding the copies;
  // each copy enters another server's port and costs its devices' operations.
  const double copies = op == IoOp::write ? fs.data.replicas : 1;
  double ops_per_byte = copies * (op == IoOp::write ? prot.data + prot.parity : prot.data) / fs.client.rpc_size;
  if (files && op == IoOp::read) {
    // A request smaller than an RPC touches only the data chunks it covers (an RPC, a full stripe, has one
    // chunk on each data device), at least one.
    const double chunk = fs.client.rpc_size / prot.data;
    const double pieces = std::clamp(std::ceil(files->request_bytes / chunk), 1.0, static_cast<double>(prot.data));
    ops_per_byte = pieces / files->request_bytes;
  }
  const Stage* locks = nullptr;
  double handoffs_per_byte = 0;
  const std::vector<int> ppn = procs_per_node(c);
  if (hard) {
    const double ops = op == IoOp::write && prot.parity > 0 ? 2.0 * (1 + prot.parity) : 1.0;
    ops_per_byte = copies * ops / kIorHardRecordBytes;
    // Extent locks: a stripe chunk's records come from consecutive ranks, so the lock passes to another
    // node every procs-per-node records (ranks are placed block-wise); one node alone never hands it off.
    if (op == IoOp::write && takes_shared_file_locks(fs.type) && fs.lock_handoff_s > 0 && c.nodes > 1) {
      locks = &run.stage("extent locks", modelled, fs.data.targets / fs.lock_handoff_s);
      const double mean_ppn = static_cast<double>(c.procs) / c.nodes;
      handoffs_per_byte = std::max(1.0 / mean_ppn, kIorHardRecordBytes / fs.stripe_size) / kIorHardRecordBytes;
    }
  }
  // One process's requests in flight: ior-easy keeps the client's RPC pipeline full; ior-hard issues one
  // record at a time. Each request waits the round trip and the device's access latency, then moves.
  const double request = hard ? kIorHardRecordBytes : files ? files->request_bytes : fs.client.rpc_size;
  const int in_flight = hard ? 1 : files ? files->in_flight : fs.client.rpcs_in_flight;
  const double latency = rtt + fs.data.device.latency_s;
  double proc_cap = in_flight * request / (latency + request / port);
  if (files) {
    // Each file: its open, then its bytes in windows of in_flight requests.
    const double windows = std::ceil(files->file_bytes / (in_flight * request));
    proc_cap = files->file_bytes / (files->per_file_s + windows * (latency + request / port));
  }

  // Share of each node's processes' bytes per server. ior-easy: process g's file is striped over
  // stripe_count targets from target g * stripe_count on (round-robin allocation), target t on server
  // t mod servers; ior-hard: the shared file is striped over every target, its records evenly.
  // Nodes whose processes spread over the servers alike are symmetric: max-min fairness gives them equal
  // rates, so one representative flow class per (node group, server) carries the group, crossing its own
  // client port once and each server resource once per member (FairShare::start_flow_class).
  std::map<ShareRow, std::pair<int, int>> groups;  // share row -> (first node, members)
  ShareRowBuilder row(modelled);
  int rank = 0;
  for (int n = 0; n < c.nodes; ++n) {
    for (int k = 0; k < ppn[n]; ++k, ++rank) {
      if (hard) {
        row.add(0, 1.0 / servers);
        continue;
      }
      for (int j = 0; j < fs.stripe_count; ++j) {
        const int target = static_cast<int>((static_cast<std::int64_t>(rank) * fs.stripe_count + j) % targets);
        row.add(target % servers, 1.0 / fs.stripe_count);
      }
    }
    auto [it, fresh] = groups.try_emplace(row.take(), n, 0);
    ++it->second.second;
  }
  const Time start = Time::seconds(latency);
  for (const auto& [row, group] : groups) {
    const auto [n, members] = group;
    for (const auto& [s, procs] : row) {
      ResourceId path[5] = {clients.members[n], server_ports.members[s], devices.members[s], iops.members[s]};
      double weights[5] = {1.0 * alike, copies * members, 1.0 * members, ops_per_byte * members};
      std::size_t len = 4;
      if (locks) path[len] = locks->members[s], weights[len++] = handoffs_per_byte * members;
      run.flow({path, len}, {weights, len}, procs * bytes_per_proc, procs * proc_cap, 1.0 * members * alike);
    }
  }
  Io500PhaseResult r = run.finish(phase, start, events);
  if (time_s) *time_s = c.procs * bytes_per_proc / r.rate;
  return r;
}

Io500PhaseResult run_mdtest(const FileSystemSpec& fs, const Io500Clients& c, Io500Phase phase, std::uint64_t& events) {
  const bool hard = phase == Io500Phase::mdtest_hard_create || phase == Io500Phase::mdtest_hard_stat ||
                    phase == Io500Phase::mdtest_hard_delete;
  const int mds = fs.metadata.count;
  // Each process runs one operation at a time: a round trip and the server's service time.
  const double latency = round_trip_s(fs.network) + fs.metadata.latency_s;
  const double proc_cap = 1.0 / latency;
  // Which server a process's operations go to. mdtest easy: the process's own directory, placed on the
  // servers in turn when the file system distributes directories, else on the first. mdtest hard: the one
  // shared directory, on every server when the file system shards directories, else on the first.
  const bool spread = hard ? fs.metadata.shards_directories : false;
  const bool by_rank = !hard && fs.metadata.distributes_directories;
  // The servers modelled: a sharded directory spreads every process evenly over every server, so one stands
  // for all (its flows counted once per server); by rank, the servers a process lands on; else the first.
  const int modelled = spread ? 1 : by_rank ? std::min(mds, c.procs) : 1;
  const int alike = spread ? mds : 1;
  PhaseRun run;
  const Stage& servers = run.stage("metadata servers", modelled, fs.metadata.ops_per_s);
  const std::vector<int> ppn = procs_per_node(c);
  // Per node, its processes' share of each server; nodes alike are one flow class per server (as ior).
  std::map<ShareRow, int> groups;  // share row -> members
  ShareRowBuilder row(modelled);
  int rank = 0;
  for (int n = 0; n < c.nodes; ++n) {
    for (int k = 0; k < ppn[n]; ++k, ++rank) row.add(by_rank ? rank % mds : 0, 1.0 / alike);
    ++groups[row.take()];
  }
  for (const auto& [row, members] : groups) {
    for (const auto& [m, share] : row) {
      const ResourceId path[] = {servers.members[m]};
      const double weights[] = {1.0 * members};
      run.flow(path, weights, share * kOpsPerProc, share * proc_cap, 1.0 * members * alike);
    }
  }
  return run.finish(phase, Time::seconds(latency), events);
}

}  // namespace

bool is_bandwidth_phase(Io500Phase phase) {
  return phase == Io500Phase::ior_easy_write || phase == Io500Phase::ior_easy_read ||
         phase == Io500Phase::ior_hard_write || phase == Io500Phase::ior_hard_read;
}

Io500PhaseResult simulate_io500_phase(const FileSystemSpec& fs, const Io500Clients& clients, Io500Phase phase,
                                      std::uint64_t& events) {
  check_clients(clients);
  return is_bandwidth_phase(phase) ? run_ior(fs, clients, phase, events) : run_mdtest(fs, clients, phase, events);
}

CheckpointResult simulate_checkpoint(const FileSystemSpec& fs, const Io500Clients& clients, double bytes_per_proc,
                                     IoOp op) {
  if (!(bytes_per_proc > 0)) throw std::invalid_argument("a checkpoint needs at least one byte per process");
  std::uint64_t events = 0;
  CheckpointResult out;
  check_clients(clients);
  out.rate = run_ior(fs, clients, op == IoOp::write ? Io500Phase::ior_easy_write : Io500Phase::ior_easy_read, events,
                     bytes_per_proc, &out.time_s);
  return out;
}

double open_limited_bytes_per_s(const FileSystemSpec& fs, const Io500Clients& readers, double bytes_per_open) {
  if (!(fs.metadata.open_ops_per_s > 0)) return 0;
  FileSystemSpec opens = fs;
  opens.metadata.ops_per_s = fs.metadata.open_ops_per_s;
  std::uint64_t events = 0;
  check_clients(readers);
  return run_mdtest(opens, readers, Io500Phase::mdtest_hard_stat, events).rate * bytes_per_open;
}

FileReadsResult simulate_file_reads(const FileSystemSpec& fs, const Io500Clients& readers, double file_bytes) {
  if (!(file_bytes > 0)) throw std::invalid_argument("a file to read needs at least one byte");
  check_clients(readers);
  FileRequests files;
  files.file_bytes = file_bytes;
  files.request_bytes = std::min(file_bytes, fs.client.rpc_size);
  // A file within one RPC is one request; a larger one streams through the client's RPC pipeline.
  files.in_flight = file_bytes <= fs.client.rpc_size ? 1 : fs.client.rpcs_in_flight;
  // Its open: a round trip to a metadata server and the server's service time.
  files.per_file_s = round_trip_s(fs.network) + fs.metadata.latency_s;
  std::uint64_t events = 0;
  FileReadsResult out;
  out.read = run_ior(fs, readers, Io500Phase::ior_easy_read, events, kBytesPerProc, nullptr, &files);
  out.bytes_per_s = out.read.rate;
  out.bottleneck = out.read.bottleneck;
  out.open_bytes_per_s = open_limited_bytes_per_s(fs, readers, file_bytes);
  if (out.open_bytes_per_s > 0 && out.open_bytes_per_s < out.bytes_per_s) {
    out.bytes_per_s = out.open_bytes_per_s;
    out.bottleneck = "metadata opens";
  }
  return out;
}

Io500Result simulate_io500(const FileSystemSpec& fs, const Io500Clients& clients) {
  Io500Result out;
  for (const auto& [phase, name] : kIo500PhaseNames.entries)
    out.phases.push_back(simulate_io500_phase(fs, clients, phase, out.events));
  return out;
}

}  // namespace hpcsim
