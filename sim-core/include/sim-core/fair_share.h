#pragma once
// Max-min fair sharing of resources (links, buses, ...) between flows that each carry an amount of units.
//
// Rates follow progressive filling: all flows rise together; a resource that fills up freezes its
// flows, and a flow that reaches its own rate cap freezes there. Changes (arrivals, departures,
// cancellations) made at one simulated time are coalesced and solved together by a zero-delay event,
// and only the part of the flow graph they can affect is re-solved. One simulator event is pending at a
// time: the earliest completion (or the pending re-solve).
#include <cstdint>
#include <limits>
#include <memory>
#include <span>
#include <string>

#include "sim-core/inline_function.h"
#include "sim-core/simulator.h"
#include "sim-core/time.h"

namespace hpcsim {

using ResourceId = std::uint32_t;
using FlowId = std::uint64_t;

struct ResourceStats {
  double capacity = 0;        // units per second; +infinity for an unconstrained resource
  double carried = 0;         // units carried so far
  Time busy_time;             // time during which at least one flow crossed the resource
  double utilisation = 0;     // current rate sum / capacity (0 for an infinite resource)
  std::size_t active_flows = 0;
};

class FairShare {
 public:
  using Callback = InlineFunction<void(FlowId), 48>;
  static constexpr double kNoCap = std::numeric_limits<double>::infinity();

  explicit FairShare(Simulator& sim);
  ~FairShare();
  FairShare(const FairShare&) = delete;
  FairShare& operator=(const FairShare&) = delete;

  // capacity must be > 0 (may be +infinity); otherwise std::invalid_argument.
  ResourceId add_resource(double capacity, std::string name = {});

  // Starts a flow of `amount` units over `path` now; on_done(id) runs when the last unit arrives.
  // Throws std::invalid_argument for a negative or non-finite amount, a non-positive rate cap, an
  // unknown or repeated resource, or a flow that nothing limits (only infinite resources, no cap).
  FlowId start_flow(std::span<const ResourceId> path, double amount, Callback on_done,
                    double rate_cap = kNoCap);
  // Starts a class of flows that max-min fairness gives equal rates (identical paths, amounts and caps;
  // or flows that a symmetry of the whole system maps onto each other) as one flow that loads resource
  // path[k] with weights[k] times its rate: a class of n identical flows passes n for every resource, and
  // a representative of n symmetric flows passes, per resource, how many members cross it (n / orbit size
  // on the quotient). Re-filled as one flow, so 16,000 flows in 100 classes cost what 100 flows cost.
  // rate() and remaining() are one member's; on_done runs once, when the members end (together).
  // Errors as start_flow, and for weights not one per resource, or not finite and > 0.
  FlowId start_flow_class(std::span<const ResourceId> path, std::span<const double> weights, double amount,
                          Callback on_done, double rate_cap = kNoCap);
  // Stops a flow without calling its callback; false if it is unknown or already finished.
  bool cancel_flow(FlowId id);

  // Applies pending changes now instead of waiting for the zero-delay event (rates are otherwise
  // those of the last solve: a flow started at this instant reports rate 0 until then).
  void settle();

  // Per-flow queries; an unknown or finished flow throws std::invalid_argument.
  double rate(FlowId id) const;
  double remaining(FlowId id) const;
  Time start_time(FlowId id) const;
  bool active(FlowId id) const;

  std::size_t active_flows() const;
  std::size_t resource_count() const;
  // Accounting up to the simulator's current time; an unknown id throws std::invalid_argument.
  ResourceStats stats(ResourceId id) const;
  // Whether stats() is kept (the default). An owner that never reads it turns it off before its first flow:
  // rates and completion times are the same either way, and each rate change no longer updates the loads
  // of its flow's resources. stats() then throws std::logic_error; so does turning it off with flows active.
  void keep_resource_stats(bool keep);
  // Whether flows that share one saturated resource equally, and no other resource with any other flow, move
  // as one group on a common clock (the default; only while resource statistics are off): an arrival or a
  // departure then costs a few heap operations instead of a re-fill of every such flow. Rates and amounts
  // are the same to rounding, so completion times can differ from the per-flow solve's by a picosecond,
  // and flows that complete at one picosecond may do so in another order. A group forms from a re-solve of at
  // least `min_flows` flows: it pays for its forming over many changes, and small re-solves cost little.
  // Switching either with flows active throws std::logic_error.
  static constexpr std::size_t kGroupMinFlows = 64;
  void group_equal_shares(bool group, std::size_t min_flows = kGroupMinFlows);
  double capacity(ResourceId id) const;  // stats(id).capacity without the accounting
  const std::string& name(ResourceId id) const;
  // Number of re-solves so far (coalesced changes count once), and the flows they re-filled in total:
  // the cost measure of the incremental solver.
  std::uint64_t solves() const;
  std::uint64_t refilled_flows() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace hpcsim
