#include <cmath>
#include <cstdio>
#include <string>

#include "configs/count_limits.h"
#include "topology_graph.h"

namespace hpcsim {

namespace {

std::string str(long long v) { return std::to_string(v); }

[[noreturn]] void problem(std::string message) { throw TopologyProblem{std::move(message)}; }

// Switches and links are each a resource of the simulated fabric: counted before any is made and held to the
// `links` limit (a 2-level fat tree of radix 40,000,000 made 160,000,000 links for 32 nodes: a minute and 9.5 GB).
void check_fabric(double switches, double links) {
  char what[96];
  std::snprintf(what, sizeof what, "it (%.0f switches and %.0f links)", switches, links);
  if (std::string excess = count_limit_excess(CountLimit::links, switches + links, what); !excess.empty()) problem(excess);
}

}  // namespace

TopologyGraph build_crossbar(int endpoints) {
  TopologyGraph g;
  g.switches = 1;
  g.endpoint_switch.assign(static_cast<std::size_t>(endpoints), 0);
  return g;
}

// Leaves have `down` ports for endpoints and `up` ports, down:up = oversubscription. Two levels: every leaf
// links to each of `up` spines, so a spine's radix bounds the leaf count. Three levels: pods of radix/2
// leaves and `up` aggregation switches (radix/2 down, radix/2 up), aggregation switch j of every pod links
// to the radix/2 core switches of core group j, so a core's radix bounds the pod count. Rail-optimized
// puts one rail's NIC ports on each leaf: NIC i of the nodes of a leaf group all go to the rail-i leaf.
TopologyGraph build_fat_tree(const TopologySpec& spec, int nodes, int nics_per_node, int rails, bool rail_optimized) {
  const int k = spec.radix;
  const double r = spec.oversubscription;
  const double down_exact = k * r / (r + 1);
  const int down = static_cast<int>(std::lround(down_exact));
  if (std::abs(down_exact - down) > 1e-9 || down < 1 || down >= k) {
    problem("a radix-" + str(k) + " switch cannot split its ports " + std::to_string(r) +
            ":1 between endpoints and uplinks; pick a radix divisible by (ratio + 1)");
  }
  const int up = k - down;
  const long long endpoints = static_cast<long long>(nodes) * nics_per_node;
  TopologyGraph g;
  g.endpoint_switch.resize(static_cast<std::size_t>(endpoints));
  long long slots = endpoints;
  if (!rail_optimized) {
    for (long long e = 0; e < endpoints; ++e) g.endpoint_switch[e] = static_cast<int>(e / down);
  } else {
    if (rails < 1 || nics_per_node % rails != 0) {
      problem(str(nics_per_node) + " NICs per node do not split evenly over " + str(rails) + " rails");
    }
    const int per_rail = nics_per_node / rails;  // ports of one node on one rail
    const int group = down / per_rail;           // nodes that share one leaf per rail
    if (group < 1) problem("a leaf of " + str(down) + " endpoint ports cannot take a node's " + str(per_rail) + " ports of a rail");
    const long long groups = (nodes + group - 1) / group;
    for (long long n = 0; n < nodes; ++n) {
      for (int nic = 0; nic < nics_per_node; ++nic) {
        const long long leaf = (n / group) * rails + nic % rails;
        g.endpoint_switch[n * nics_per_node + nic] = static_cast<int>(leaf);
      }
    }
    slots = groups * rails * down;
  }
  const long long leaves = (slots + down - 1) / down;
  if (spec.levels == 2) {
    if (leaves > k) {
      problem("a 2-level fat-tree of radix " + str(k) + " holds at most " + str(k) + " leaves of " + str(down) +
              " endpoint ports (" + str(static_cast<long long>(k) * down) + " ports); the cluster needs " +
              str(leaves) + " leaves for " + str(endpoints) + " NIC ports");
    }
    check_fabric(static_cast<double>(leaves) + up, static_cast<double>(leaves) * up);
    g.switches = static_cast<int>(leaves + up);
    for (int leaf = 0; leaf < leaves; ++leaf) {
      for (int s = 0; s < up; ++s) g.links.emplace_back(leaf, static_cast<int>(leaves) + s);
    }
    g.endpoint_ports = down;
    g.route_divisor.assign(static_cast<std::size_t>(g.switches), 1);  // only leaves choose (an up-port)
    g.tree = {2, static_cast<int>(leaves), up, 0};
    return g;
  }
  if (k % 2 != 0) problem("a 3-level fat-tree needs an even radix, not " + str(k));
  const int half = k / 2;
  const long long pods = (leaves + half - 1) / half;
  if (pods > k) {
    problem("a 3-level fat-tree of radix " + str(k) + " holds at most " + str(k) + " pods of " + str(half) +
            " leaves of " + str(down) + " endpoint ports (" + str(static_cast<long long>(k) * half * down) +
            " ports); the cluster needs " + str(leaves) + " leaves for " + str(endpoints) + " NIC ports");
  }
  check_fabric(static_cast<double>(leaves) + static_cast<double>(pods) * up + static_cast<double>(up) * half,
               static_cast<double>(leaves) * up + static_cast<double>(pods) * up * half);
  const int aggs = static_cast<int>(pods * up);
  const int cores = up * half;
  g.switches = static_cast<int>(leaves) + aggs + cores;
  const int agg0 = static_cast<int>(leaves);
  const int core0 = agg0 + aggs;
  for (int leaf = 0; leaf < leaves; ++leaf) {
    const int pod = leaf / half;
    for (int j = 0; j < up; ++j) g.links.emplace_back(leaf, agg0 + pod * up + j);
  }
  for (int pod = 0; pod < pods; ++pod) {
    for (int j = 0; j < up; ++j) {
      for (int c = 0; c < half; ++c) g.links.emplace_back(agg0 + pod * up + j, core0 + j * half + c);
    }
  }
  // D-mod-K: a leaf picks its aggregation switch by destination mod up, an aggregation switch its core by
  // (destination / up) mod half; cores only go down.
  g.endpoint_ports = down;
  g.route_divisor.assign(static_cast<std::size_t>(g.switches), 1);
  for (int s = agg0; s < g.switches; ++s) g.route_divisor[static_cast<std::size_t>(s)] = static_cast<std::uint64_t>(up);
  g.tree = {3, static_cast<int>(leaves), up, half, core0};
  return g;
}

// Routers in groups, all-to-all inside a group; global port t of a group (router t / h) leads to group
// (G + 1 + t mod (groups - 1)): every pair of groups gets at least one direct link.
TopologyGraph build_dragonfly(const TopologySpec& spec, int nodes, int nics_per_node) {
  const int groups = spec.groups, a = spec.routers_per_group, h = spec.global_links_per_router;
  const long long routers = static_cast<long long>(groups) * a;
  if (routers * spec.nodes_per_router < nodes) {
    problem("a dragonfly of " + str(groups) + " groups x " + str(a) + " routers x " + str(spec.nodes_per_router) +
            " nodes holds " + str(routers * spec.nodes_per_router) + " nodes, not " + str(nodes));
  }
  const long long ports = static_cast<long long>(a) * h;  // in 64 bits: a and h are each up to 2^31-1
  if (groups > 1 && ports < groups - 1) {
    problem("a dragonfly group has " + str(ports) + " global ports but must reach " + str(groups - 1) + " other groups");
  }
  check_fabric(static_cast<double>(routers),
               static_cast<double>(groups) * a * (a - 1) / 2 + (groups > 1 ? static_cast<double>(groups) * ports / 2 : 0));
  TopologyGraph g;
  g.switches = static_cast<int>(routers);
  for (int grp = 0; grp < groups; ++grp) {
    for (int i = 0; i < a; ++i) {
      for (int j = i + 1; j < a; ++j) g.links.emplace_back(grp * a + i, grp * a + j);
    }
  }
  if (groups > 1) {
    for (int grp = 0; grp < groups; ++grp) {
      for (long long t = 0; t < ports; ++t) {
        const long long offset = t % (groups - 1), round = t / (groups - 1);
        const long long target = (grp + 1 + offset) % groups;
        if (target < grp) continue;  // made from the other side
        const long long back = round * (groups - 1) + (groups - 2 - offset);
        if (back >= ports) continue;
        g.links.emplace_back(static_cast<int>(grp * a + t / h), static_cast<int>(target * a + back / h));
      }
    }
  }
  for (long long e = 0; e < static_cast<long long>(nodes) * nics_per_node; ++e) {
    g.endpoint_switch.push_back(static_cast<int>(e / nics_per_node / spec.nodes_per_router));
  }
  return g;
}

TopologyGraph build_torus(const TopologySpec& spec, int nodes, int nics_per_node) {
  double routers_exact = 1;
  for (int d : spec.dims) routers_exact *= d;
  check_fabric(routers_exact, routers_exact * static_cast<double>(spec.dims.size()));  // at most one link per router and dimension
  long long routers = 1;
  for (int d : spec.dims) routers *= d;
  if (routers * spec.nodes_per_router < nodes) {
    problem("a torus of " + str(routers) + " routers x " + str(spec.nodes_per_router) + " nodes holds " +
            str(routers * spec.nodes_per_router) + " nodes, not " + str(nodes));
  }
  TopologyGraph g;
  g.switches = static_cast<int>(routers);
  long long stride = 1;
  for (int d : spec.dims) {
    for (long long r = 0; r < routers; ++r) {
      const long long coord = (r / stride) % d;
      // A ring of d routers; 2 routers need one link, not two.
      if (d < 2 || (d == 2 && coord == 1)) continue;
      const long long next = r + ((coord + 1) % d - coord) * stride;
      g.links.emplace_back(static_cast<int>(r), static_cast<int>(next));
    }
    stride *= d;
  }
  for (long long e = 0; e < static_cast<long long>(nodes) * nics_per_node; ++e) {
    g.endpoint_switch.push_back(static_cast<int>(e / nics_per_node / spec.nodes_per_router));
  }
  return g;
}

TopologyGraph build_edge_list(const TopologySpec& spec, int nodes, int nics_per_node) {
  if (static_cast<int>(spec.attach.size()) != nodes) {
    problem("attach lists " + str(static_cast<long long>(spec.attach.size())) + " switches but the cluster has " +
            str(nodes) + " nodes");
  }
  TopologyGraph g;
  g.switches = static_cast<int>(spec.switch_names.size());
  g.links = spec.links;
  for (int n = 0; n < nodes; ++n) {
    for (int i = 0; i < nics_per_node; ++i) g.endpoint_switch.push_back(spec.attach[n]);
  }
  return g;
}

}  // namespace hpcsim
