#include "models/storage/dataset_read.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim-core/fair_share.h"
#include "sim-core/simulator.h"
#include "storage_resources.h"

namespace hpcsim {

namespace {

using storage_detail::kNoResource;
using storage_detail::Server;
using storage_detail::StorageResources;

struct Part {
  int server;
  double bytes;
};

// The per-server pieces of one sample file. A striped file puts chunk j of stripe_size bytes on the
// (j mod stripe_count)-th of its targets; files start on successive targets round-robin, as Lustre's
// round-robin allocator places them. Anything else is one request to the node's device or the server.
std::vector<Part> parts_of(const StorageSpec& spec, int stripe_count, std::int64_t sample, int node, double bytes) {
  if (spec.kind == StorageKind::local) return {{node, bytes}};
  if (spec.kind != StorageKind::pfs) return {{0, bytes}};
  const double full_chunks = std::floor(bytes / spec.stripe_size);
  const double tail = bytes - full_chunks * spec.stripe_size;
  const auto count = static_cast<std::int64_t>(full_chunks);
  const std::int64_t start = (sample * stripe_count) % spec.targets;
  std::vector<Part> parts;
  for (int k = 0; k < stripe_count; ++k) {
    double on_target = static_cast<double>(count / stripe_count + (k < count % stripe_count ? 1 : 0)) * spec.stripe_size;
    if (k == count % stripe_count) on_target += tail;
    if (on_target > 0) parts.push_back({static_cast<int>((start + k) % spec.targets), on_target});
  }
  return parts;
}

class Reading {
 public:
  Reading(Simulator& sim, FairShare& fs, const StorageSpec& spec, const DatasetRead& job, StorageResources& res)
      : sim_(sim), fs_(fs), spec_(spec), job_(job), res_(res),
        stripe_count_(job.stripe_count.value_or(spec.stripe_count)), pending_parts_(job.readers, 0),
        sample_start_(job.readers, Time::zero()) {}

  void start() {
    for (int r = 0; r < job_.readers; ++r) next_sample(r);
  }
  Time finished() const { return finished_; }
  const ReaderTime& reader_time() const { return time_; }

 private:
  struct Request {
    int reader = 0;
    int server = 0;
    double bytes = 0;
    int flows_left = 0;
    Time queued = Time::zero();  // when it asked for a queue slot
    Time waited = Time::zero();  // how long it waited for one
  };

  void next_sample(int reader) {
    if (next_ == job_.samples) return;
    const std::int64_t sample = next_++;
    sample_start_[reader] = sim_.now();
    if (res_.metadata == kNoResource) return read_data(reader, sample);
    // Opening the file costs the metadata server one operation before any data is asked for.
    sim_.schedule_in(metadata_latency_, [this, reader, sample] {
      const ResourceId path[] = {res_.metadata};
      fs_.start_flow(path, 1.0, [this, reader, sample](FlowId) { read_data(reader, sample); });
    });
  }

  void read_data(int reader, std::int64_t sample) {
    const std::vector<Part> parts = parts_of(spec_, stripe_count_, sample, node_of(reader), job_.sample_bytes);
    pending_parts_[reader] = static_cast<int>(parts.size());
    for (const Part& part : parts) {
      const auto id = allocate({reader, part.server, part.bytes, 2, sim_.now(), Time::zero()});
      Server& server = res_.servers[part.server];
      if (server.free_slots > 0) {
        --server.free_slots;
        serve(id);
      } else {
        server.waiting.push_back(id);
      }
    }
  }

  // The request holds a queue slot: the access latency passes, then its bytes cross the server, the
  // network ports and the client's port while its one operation passes the server's IOPS resource.
  // It ends when both are through: a request costs max(bytes/bandwidth, 1/IOPS) when alone.
  void serve(std::uint32_t id) {
    requests_[id].waited = sim_.now() - requests_[id].queued;
    sim_.schedule_in(request_latency_, [this, id] {
      const Request& req = requests_[id];
      const Server& server = res_.servers[req.server];
      ResourceId path[3];
      std::size_t len = 0;
      path[len++] = server.bytes;
      if (server.uplink != kNoResource) path[len++] = server.uplink;
      if (!res_.client_ports.empty()) path[len++] = res_.client_ports[node_of(req.reader)];
      fs_.start_flow(std::span<const ResourceId>(path, len), req.bytes, [this, id](FlowId) { flow_done(id); });
      const ResourceId ops[] = {server.ops};
      fs_.start_flow(ops, 1.0, [this, id](FlowId) { flow_done(id); });
    });
  }

  void flow_done(std::uint32_t id) {
    Request& req = requests_[id];
    if (--req.flows_left > 0) return;
    const int reader = req.reader;
    const Time waited = req.waited;
    Server& server = res_.servers[req.server];
    free_.push_back(id);
    if (server.waiting.empty()) {
      ++server.free_slots;
    } else {
      const std::uint32_t next = server.waiting.front();
      server.waiting.pop_front();
      serve(next);
    }
    if (--pending_parts_[reader] > 0) return;
    // The part that finished last set the sample's time: its queue wait, the latencies, the rest moving data.
    const double latency_s = metadata_latency_.to_seconds() + request_latency_.to_seconds();
    const double wait_s = waited.to_seconds();
    time_.queue_s += wait_s;
    time_.latency_s += latency_s;
    time_.transfer_s += (sim_.now() - sample_start_[reader]).to_seconds() - wait_s - latency_s;
    finished_ = sim_.now();
    if (job_.progress) job_.progress(++done_, job_.samples);
    next_sample(reader);
  }

  std::uint32_t allocate(Request req) {
    if (free_.empty()) {
      requests_.push_back(req);
      return static_cast<std::uint32_t>(requests_.size() - 1);
    }
    const std::uint32_t id = free_.back();
    free_.pop_back();
    requests_[id] = req;
    return id;
  }

  int node_of(int reader) const { return reader % job_.nodes; }

  Simulator& sim_;
  FairShare& fs_;
  const StorageSpec& spec_;
  const DatasetRead& job_;
  StorageResources& res_;
  const int stripe_count_;
  const Time request_latency_ = Time::seconds(res_.request_latency_s);
  const Time metadata_latency_ = res_.metadata == kNoResource ? Time::zero() : Time::seconds(res_.metadata_latency_s);
  std::vector<int> pending_parts_;  // per reader: requests of its current sample still in flight
  std::vector<Time> sample_start_;  // per reader
  ReaderTime time_;
  std::vector<Request> requests_;
  std::vector<std::uint32_t> free_;
  std::int64_t next_ = 0;
  std::int64_t done_ = 0;  // samples finished
  Time finished_ = Time::zero();
};

void check_job(const StorageSpec& spec, const DatasetRead& job) {
  if (job.samples < 1) throw std::invalid_argument("the dataset needs at least one sample");
  if (!(job.sample_bytes > 0) || !std::isfinite(job.sample_bytes))
    throw std::invalid_argument("the sample size must be positive");
  if (job.readers < 1) throw std::invalid_argument("at least one reader is needed");
  if (job.nodes < 1) throw std::invalid_argument("at least one client node is needed");
  if (job.stripe_count && spec.kind != StorageKind::pfs)
    throw std::invalid_argument("a stripe count applies only to a parallel file system");
  if (job.stripe_count && (*job.stripe_count < 1 || *job.stripe_count > spec.targets))
    throw std::invalid_argument("the stripe count must be between 1 and the " + std::to_string(spec.targets) +
                                " targets");
}

// How busy a kind of resource was: the larger of its busiest member's load over the whole run and the load
// of all members together over the time (at most the run's) any of them was in use. The second catches
// work that moves from member to member, such as successive files each on its own storage target.
double group_utilisation(const FairShare& fs, const std::vector<ResourceId>& members, double time_s) {
  double busiest = 0, saturated_s = 0, busy_s = 0;
  for (ResourceId id : members) {
    const ResourceStats stats = fs.stats(id);
    const double full_s = stats.carried / stats.capacity;  // time it would take at full capacity
    busiest = std::max(busiest, full_s / time_s);
    saturated_s += full_s;
    busy_s += stats.busy_time.to_seconds();
  }
  const double together = busy_s > 0 ? saturated_s / std::max(busy_s, time_s) : 0;
  return std::max(busiest, together);
}

}  // namespace

DatasetReadResult simulate_dataset_read(const StorageSpec& spec, const DatasetRead& job) {
  check_job(spec, job);
  Simulator sim;
  FairShare fs(sim);
  StorageResources res = storage_detail::build_storage_resources(fs, spec, job.nodes, job.op);
  Reading reading(sim, fs, spec, job, res);
  reading.start();
  sim.run();

  DatasetReadResult out;
  out.time_s = reading.finished().to_seconds();
  out.samples_per_s = static_cast<double>(job.samples) / out.time_s;
  out.bytes_per_s = out.samples_per_s * job.sample_bytes;
  out.events = sim.events_processed();
  out.reader_time = reading.reader_time();
  const ResourceUse* busiest = nullptr;
  for (const storage_detail::ResourceGroup& group : res.groups)
    out.utilisation.push_back({group.name, group_utilisation(fs, group.members, out.time_s)});
  for (const ResourceUse& use : out.utilisation)
    if (!busiest || use.utilisation > busiest->utilisation) busiest = &use;
  const ReaderTime& t = out.reader_time;
  if (t.latency_s >= t.transfer_s && t.latency_s >= t.queue_s) out.bottleneck = "request latency";
  else if (t.queue_s >= t.transfer_s) out.bottleneck = "queue depth";
  else out.bottleneck = busiest->name;
  return out;
}

}  // namespace hpcsim
