#include "models/mpi/mpi_world.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <unordered_map>

namespace hpcsim {

namespace {

struct Request {
  int rank = 0;
  bool done = false;
  bool released = false;
  std::uint32_t message = 0;
};

struct Message {
  int src = 0, dst = 0, tag = 0;
  double bytes = 0;
  RequestId send = kNoRequest, recv = kNoRequest;
  bool buffered = false;  // data leaves before the match
  bool arrived = false;
  bool matched = false;
  bool freed = false;
  Time start = Time::max();
};

struct PendingRecv {
  int src, tag;
  RequestId request;
};

// The flow of a route with its weights, cached per host pair and size class.
struct FlowShape {
  std::vector<ResourceId> path;
  std::vector<double> load;  // resource capacity per unit of flow rate
};

}  // namespace

struct MpiWorld::Impl {
  MpiMachine& m;
  MessageModel model;
  std::vector<int> host;
  Listener& listener;
  Simulator& sim;
  FairShare& fs;
  std::vector<Request> requests;
  std::vector<RequestId> free_requests;
  std::vector<Message> messages;
  std::vector<std::uint32_t> free_messages;
  std::vector<std::vector<std::uint32_t>> unmatched_sends;  // per destination rank, in posting order
  std::vector<std::vector<PendingRecv>> unmatched_recvs;    // per receiving rank, in posting order
  std::vector<ResourceId> cpu;                              // per host, when oversubscribed
  std::vector<char> shared_cpu;                             // more ranks than cores on the host
  std::vector<int> ranks_on_host;
  std::unordered_map<std::uint64_t, FlowShape> shapes;      // (from, to) -> path and loads
  std::uint64_t matched = 0;

  Impl(MpiMachine& machine, MessageModel mm, std::vector<int> rh, Listener& l)
      : m(machine), model(std::move(mm)), host(std::move(rh)), listener(l), sim(machine.sim()), fs(machine.fair_share()) {}

  RequestId new_request(int rank, std::uint32_t msg) {
    RequestId id;
    if (!free_requests.empty()) {
      id = free_requests.back();
      free_requests.pop_back();
      requests[id] = Request{};
    } else {
      id = static_cast<RequestId>(requests.size());
      requests.emplace_back();
    }
    requests[id].rank = rank;
    requests[id].message = msg;
    return id;
  }
  std::uint32_t new_message() {
    if (!free_messages.empty()) {
      const std::uint32_t id = free_messages.back();
      free_messages.pop_back();
      messages[id] = Message{};
      return id;
    }
    messages.emplace_back();
    return static_cast<std::uint32_t>(messages.size() - 1);
  }
  void maybe_free_message(std::uint32_t id) {
    Message& g = messages[id];
    if (!g.freed && g.matched && g.arrived && g.send == kNoRequest && g.recv == kNoRequest) {
      g.freed = true;
      free_messages.push_back(id);
    }
  }
  void finish(RequestId id) {
    requests[id].done = true;
    notify(id);
  }
  void notify(RequestId id) {
    Request& r = requests[id];
    if (r.released) {
      drop(id);
      return;
    }
    listener.request_done(r.rank, id);
  }
  // The request's slot is free; its message forgets it.
  void drop(RequestId id) {
    Request& r = requests[id];
    if (r.message < messages.size()) {
      Message& g = messages[r.message];
      if (g.send == id || g.recv == id) {
        if (g.send == id) g.send = kNoRequest;
        if (g.recv == id) g.recv = kNoRequest;
        maybe_free_message(r.message);
      }
    }
    free_requests.push_back(id);
  }

  const FlowShape& shape(int from, int to, const MpiRoute& route) {
    const std::uint64_t key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(from)) << 32) | static_cast<std::uint32_t>(to);
    auto it = shapes.find(key);
    if (it != shapes.end()) return it->second;
    FlowShape s;
    for (ResourceId r : route.forward) {
      auto f = std::find(s.path.begin(), s.path.end(), r);
      if (f == s.path.end()) {
        s.path.push_back(r);
        s.load.push_back(1);
      } else {
        s.load[f - s.path.begin()] += 1;
      }
    }
    if (model.crosstraffic > 0)
      for (ResourceId r : route.reverse) {
        auto f = std::find(s.path.begin(), s.path.end(), r);
        if (f == s.path.end()) {
          s.path.push_back(r);
          s.load.push_back(model.crosstraffic);
        } else {
          s.load[f - s.path.begin()] += model.crosstraffic;
        }
      }
    return shapes.emplace(key, std::move(s)).first->second;
  }

  // The data of message `id` starts to move now.
  void start(std::uint32_t id) {
    Message& g = messages[id];
    g.start = sim.now();
    ++matched;
    const MpiRoute& route = m.route(host[g.src], host[g.dst]);
    // o belongs to the network path: a shared-memory route's latency is an end-to-end figure that holds it.
    const bool local = host[g.src] == host[g.dst];
    double latency = route.latency_s * model.latency_factor.at(g.bytes) + (local ? 0.0 : model.send_overhead_s + model.recv_overhead_s);
    if (!g.buffered && g.bytes >= model.eager_threshold) latency += model.rendezvous_handshakes * route.latency_s;
    sim.schedule_in(Time::seconds(latency), [this, id] { transmit(id); });
  }

  void transmit(std::uint32_t id) {
    Message& g = messages[id];
    if (g.bytes <= 0) {
      arrive(id);
      return;
    }
    const MpiRoute& route = m.route(host[g.src], host[g.dst]);
    const FlowShape& s = shape(host[g.src], host[g.dst], route);
    const double bwf = model.bandwidth_factor.at(g.bytes);
    double cap = std::min(route.cap, route.bandwidth * bwf);
    if (model.tcp_gamma > 0 && route.latency_s > 0) cap = std::min(cap, model.tcp_gamma / (2 * route.latency_s));
    if (s.path.empty()) {  // nothing shared: the message moves at its cap
      if (!std::isfinite(cap)) {
        arrive(id);
        return;
      }
      sim.schedule_in(Time::seconds(g.bytes / cap), [this, id] { arrive(id); });
      return;
    }
    // SimGrid's sharing: a flow's rate x loads resource k with load_k x / bwf (the size factor scales the
    // capacity it sees), and flows share by the penalty p (rates ~ 1/p): in units y = x p all flows rise
    // together, as FairShare's progressive filling does.
    double p = 1;
    if (model.weight_s > 0) p = route.latency_s + model.weight_s * route.inverse_bandwidth_sum;
    if (!(p > 0)) p = 1;
    thread_local std::vector<double> w;
    w.resize(s.load.size());
    for (std::size_t k = 0; k < w.size(); ++k) w[k] = s.load[k] / bwf / p;
    fs.start_flow_class(s.path, w, g.bytes * p, [this, id](FlowId) { arrive(id); },
                        std::isfinite(cap) ? cap * p : FairShare::kNoCap);
  }

  void arrive(std::uint32_t id) {
    Message& g = messages[id];
    g.arrived = true;
    const RequestId send = g.send, recv = g.recv;
    const bool s = send != kNoRequest && !requests[send].done;
    const bool r = recv != kNoRequest && !requests[recv].done;
    if (s) requests[send].done = true;
    if (r) requests[recv].done = true;
    if (s) notify(send);
    if (r) notify(recv);
    maybe_free_message(id);
  }

  void match(std::uint32_t id, RequestId recv) {
    Message& g = messages[id];
    g.recv = recv;
    g.matched = true;
    requests[recv].message = id;
    if (g.buffered) {
      if (g.arrived) requests[recv].done = true;  // the caller sees it done at once; no callback
    } else {
      start(id);
    }
  }
};

MpiWorld::MpiWorld(MpiMachine& machine, MessageModel model, std::vector<int> rank_host, Listener& listener)
    : impl_(std::make_unique<Impl>(machine, std::move(model), std::move(rank_host), listener)) {
  const int hosts = machine.hosts();
  impl_->ranks_on_host.assign(hosts, 0);
  for (int h : impl_->host) {
    if (h < 0 || h >= hosts) throw std::invalid_argument("a rank is placed on host " + std::to_string(h) + " of " + std::to_string(hosts));
    ++impl_->ranks_on_host[h];
  }
  impl_->cpu.assign(hosts, 0);
  impl_->shared_cpu.assign(hosts, 0);
  for (int h = 0; h < hosts; ++h)
    if (impl_->ranks_on_host[h] > machine.host_cores(h)) {
      impl_->shared_cpu[h] = 1;
      impl_->cpu[h] = impl_->fs.add_resource(machine.host_speed(h) * machine.host_cores(h), machine.host_name(h) + ".cpu");
    }
  impl_->unmatched_sends.resize(impl_->host.size());
  impl_->unmatched_recvs.resize(impl_->host.size());
}

MpiWorld::~MpiWorld() = default;
int MpiWorld::ranks() const { return static_cast<int>(impl_->host.size()); }
int MpiWorld::host_of(int rank) const { return impl_->host.at(rank); }
const MessageModel& MpiWorld::model() const { return impl_->model; }
MpiMachine& MpiWorld::machine() { return impl_->m; }

RequestId MpiWorld::isend(int rank, int dst, int tag, double bytes) {
  Impl& d = *impl_;
  if (dst < 0 || dst >= ranks()) throw std::invalid_argument("send to rank " + std::to_string(dst) + " of " + std::to_string(ranks()));
  const std::uint32_t id = d.new_message();
  Message& g = d.messages[id];
  g.src = rank;
  g.dst = dst;
  g.tag = tag;
  g.bytes = bytes;
  g.buffered = bytes < d.model.buffered_threshold;
  const RequestId req = d.new_request(rank, id);
  g.send = req;
  // Eager: the sender is free once the message is posted (plus its overhead).
  if (bytes < d.model.eager_threshold) {
    if (d.model.send_overhead_s > 0 && d.host[rank] != d.host[dst]) {
      d.sim.schedule_in(Time::seconds(d.model.send_overhead_s), [this, req] {
        if (!impl_->requests[req].done) impl_->finish(req);
      });
    } else {
      d.requests[req].done = true;
    }
  }
  auto& recvs = d.unmatched_recvs[dst];
  for (std::size_t k = 0; k < recvs.size(); ++k)
    if (recvs[k].src == rank && recvs[k].tag == tag) {
      const RequestId r = recvs[k].request;
      recvs.erase(recvs.begin() + static_cast<std::ptrdiff_t>(k));
      if (g.buffered) d.start(id);
      d.match(id, r);
      return req;
    }
  d.unmatched_sends[dst].push_back(id);
  if (g.buffered) d.start(id);
  return req;
}

RequestId MpiWorld::irecv(int rank, int src, int tag, double /*bytes*/) {
  Impl& d = *impl_;
  if (src < 0 || src >= ranks()) throw std::invalid_argument("receive from rank " + std::to_string(src) + " of " + std::to_string(ranks()));
  const RequestId req = d.new_request(rank, 0);
  auto& sends = d.unmatched_sends[rank];
  for (std::size_t k = 0; k < sends.size(); ++k) {
    const Message& g = d.messages[sends[k]];
    if (g.src == src && g.tag == tag) {
      const std::uint32_t id = sends[k];
      sends.erase(sends.begin() + static_cast<std::ptrdiff_t>(k));
      d.match(id, req);
      return req;
    }
  }
  d.unmatched_recvs[rank].push_back({src, tag, req});
  return req;
}

bool MpiWorld::done(RequestId r) const { return impl_->requests.at(r).done; }

Time MpiWorld::transfer_start(RequestId r) const {
  const Request& q = impl_->requests.at(r);
  if (q.message >= impl_->messages.size()) return Time::max();
  const Message& g = impl_->messages[q.message];
  return (g.send == r || g.recv == r) ? g.start : Time::max();
}

void MpiWorld::release(RequestId r) {
  Request& q = impl_->requests.at(r);
  q.released = true;
  if (q.done) impl_->drop(r);
}

void MpiWorld::compute(int rank, double flops) {
  Impl& d = *impl_;
  const int h = d.host.at(rank);
  if (flops <= 0) {
    d.sim.schedule_in(Time::zero(), [this, rank] { impl_->listener.compute_done(rank); });
    return;
  }
  const double speed = d.m.host_speed(h);
  if (!d.shared_cpu[h]) {
    d.sim.schedule_in(Time::seconds(flops / speed), [this, rank] { impl_->listener.compute_done(rank); });
    return;
  }
  const ResourceId r = d.cpu[h];
  d.fs.start_flow(std::span<const ResourceId>(&r, 1), flops, [this, rank](FlowId) { impl_->listener.compute_done(rank); }, speed);
}

void MpiWorld::sleep(int rank, double seconds) {
  impl_->sim.schedule_in(Time::seconds(std::max(0.0, seconds)), [this, rank] { impl_->listener.compute_done(rank); });
}

std::size_t MpiWorld::unmatched() const {
  std::size_t n = 0;
  for (const auto& v : impl_->unmatched_sends) n += v.size();
  for (const auto& v : impl_->unmatched_recvs) n += v.size();
  return n;
}

std::uint64_t MpiWorld::messages() const { return impl_->matched; }

}  // namespace hpcsim
