#include "models/mpi/simgrid_platform.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include "configs/config_error.h"
#include "configs/input_limits.h"
#include "simgrid_graph_routing.h"
#include "xml_reader.h"

namespace hpcsim {

namespace {

// A number with a unit suffix from `units` (suffix -> multiplier); a bare number takes the base unit.
double quantity(const xml::Attribute& a, const std::vector<std::pair<const char*, double>>& units, const char* what) {
  const char* b = a.value.c_str();
  char* end = nullptr;
  const double v = std::strtod(b, &end);
  if (end == b || !std::isfinite(v)) throw ConfigError(a.where, std::string("expected a ") + what + ", got '" + a.value + "'");
  std::string suffix(end);
  while (!suffix.empty() && suffix.back() == ' ') suffix.pop_back();
  if (suffix.empty()) return v;
  for (const auto& [name, mult] : units)
    if (suffix == name) return v * mult;
  std::string known;
  for (const auto& [name, mult] : units) known += (known.empty() ? "" : ", ") + std::string(name);
  throw ConfigError(a.where, std::string("unknown ") + what + " unit '" + suffix + "' (known: " + known + ")");
}

const std::vector<std::pair<const char*, double>>& speed_units() {
  static const std::vector<std::pair<const char*, double>> u = {
      {"f", 1}, {"kf", 1e3}, {"Mf", 1e6}, {"Gf", 1e9}, {"Tf", 1e12}, {"Pf", 1e15}, {"Ef", 1e18},
      {"flops", 1}, {"kflops", 1e3}, {"Mflops", 1e6}, {"Gflops", 1e9}, {"Tflops", 1e12}, {"Pflops", 1e15}};
  return u;
}
const std::vector<std::pair<const char*, double>>& bandwidth_units() {
  static const std::vector<std::pair<const char*, double>> u = {
      {"Bps", 1},         {"kBps", 1e3},          {"KBps", 1e3},          {"MBps", 1e6},
      {"GBps", 1e9},      {"TBps", 1e12},         {"PBps", 1e15},         {"KiBps", 1024.0},
      {"MiBps", 1048576.0}, {"GiBps", 1073741824.0}, {"TiBps", 1099511627776.0}, {"bps", 0.125},
      {"kbps", 125.0},    {"Kbps", 125.0},        {"Mbps", 1.25e5},       {"Gbps", 1.25e8},
      {"Tbps", 1.25e11},  {"Kibps", 128.0},       {"Mibps", 131072.0},    {"Gibps", 134217728.0}};
  return u;
}
const std::vector<std::pair<const char*, double>>& time_units() {
  static const std::vector<std::pair<const char*, double>> u = {
      {"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}, {"ps", 1e-12}, {"m", 60}, {"h", 3600}, {"d", 86400}};
  return u;
}

const xml::Attribute& need(const xml::Element& e, const char* name) {
  const xml::Attribute* a = e.find(name);
  if (!a) throw ConfigError(e.where, "<" + e.name + "> needs a '" + name + "' attribute");
  return *a;
}

void only(const xml::Element& e, std::initializer_list<const char*> allowed) {
  for (const xml::Attribute& a : e.attributes) {
    bool ok = false;
    for (const char* n : allowed) ok = ok || a.name == n;
    if (!ok) throw ConfigError(a.where, "<" + e.name + "> has no attribute '" + a.name + "' here");
  }
}

double positive(const xml::Attribute& a, double v, const char* what, bool zero_ok) {
  if (!(v > 0 || (zero_ok && v == 0)) || !std::isfinite(v))
    throw ConfigError(a.where, std::string(what) + " must be " + (zero_ok ? ">= 0" : "> 0") + ", got '" + a.value + "'");
  if (!zero_ok && v < input_limits::min_positive_rate)
    throw ConfigError(a.where, std::string(what) + " must be at least 1 per second, got '" + a.value + "'");
  if (zero_ok && v > input_limits::max_time_s) throw ConfigError(a.where, std::string(what) + " is above 1e9 s");
  return v;
}

int whole(const xml::Attribute& a, int lo, int hi, const char* what) {
  char* end = nullptr;
  const long v = std::strtol(a.value.c_str(), &end, 10);
  if (end == a.value.c_str() || *end != '\0' || v < lo || v > hi)
    throw ConfigError(a.where, std::string(what) + " must be a whole number in [" + std::to_string(lo) + ", " +
                                   std::to_string(hi) + "], got '" + a.value + "'");
  return static_cast<int>(v);
}

std::string format_count(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, v < 1e15 ? "%.0f" : "%.3g", v);
  return buf;
}

class Builder {
 public:
  explicit Builder(SimgridPlatform& p) : p_(p) {}

  void platform(const xml::Element& root) {
    if (root.name != "platform") throw ConfigError(root.where, "expected <platform>, got <" + root.name + ">");
    int zones = 0;
    for (const xml::Element& c : root.children) {
      if (c.name == "config") {
        for (const xml::Element& prop : c.children) {
          if (prop.name != "prop") throw ConfigError(prop.where, "<config> holds only <prop>");
          p_.config.push_back({need(prop, "id").value, need(prop, "value").value, prop.where});
        }
      } else if (c.name == "zone" || c.name == "AS") {
        if (++zones > 1) throw ConfigError(c.where, "only one zone is supported (nested or sibling zones are not)");
        zone(c);
      } else if (c.name == "cluster") {
        cluster(c);
      } else {
        element(c);
      }
    }
    resolve_routes();
  }

 private:
  void zone(const xml::Element& z) {
    if (const xml::Attribute* r = z.find("routing")) {
      if (r->value == "Floyd") {
        p_.routing = SimgridRouting::floyd;
      } else if (r->value == "Dijkstra" || r->value == "DijkstraCache") {
        p_.routing = SimgridRouting::dijkstra;
      } else if (r->value != "Full" && r->value != "None") {
        throw ConfigError(r->where, "routing '" + r->value + "' is not supported (Full, Floyd, Dijkstra, DijkstraCache)");
      }
    }
    for (const xml::Element& c : z.children) {
      if (c.name == "zone" || c.name == "AS") throw ConfigError(c.where, "nested zones are not supported");
      if (c.name == "cluster") {
        if (p_.routing != SimgridRouting::full)
          throw ConfigError(c.where, "a <cluster> in a Floyd or Dijkstra zone is a zone of its own, reached by zone "
                                     "routes, which are not supported");
        cluster(c);
      } else {
        element(c);
      }
    }
  }

  void element(const xml::Element& c) {
    if (c.name == "host") {
      host(c);
    } else if (c.name == "link") {
      link(c);
    } else if (c.name == "router") {
      only(c, {"id", "coordinates"});
      add_point(need(c, "id").value, c.where);
    } else if (c.name == "route") {
      pending_.push_back(&c);
    } else if (c.name == "prop" || c.name == "trace" || c.name == "trace_connect") {
      // host/link properties and availability traces: not modelled
    } else {
      throw ConfigError(c.where, "<" + c.name + "> is not supported in a platform hpcsim imports");
    }
  }

  // A host or router: a point of a Floyd or Dijkstra zone's graph, numbered in declaration order.
  int add_point(const std::string& name, const SourceLoc& where) {
    if (point_ids_.count(name)) throw ConfigError(where, "'" + name + "' is declared twice (as a host or a router)");
    const int id = static_cast<int>(point_ids_.size());
    point_ids_[name] = id;
    return id;
  }

  int add_host(const std::string& name, double speed, int cores, const SourceLoc& where) {
    if (host_ids_.count(name)) throw ConfigError(where, "host '" + name + "' is declared twice");
    p_.graph.host_point.push_back(add_point(name, where));
    host_ids_[name] = static_cast<int>(p_.hosts.size());
    p_.hosts.push_back({name, speed, cores, where});
    return host_ids_[name];
  }
  int add_link(const std::string& name, double bw, double lat, LinkSharing sharing, const SourceLoc& where) {
    if (link_ids_.count(name)) throw ConfigError(where, "link '" + name + "' is declared twice");
    link_ids_[name] = static_cast<int>(p_.links.size());
    p_.links.push_back({name, bw, lat, sharing});
    return link_ids_[name];
  }

  void host(const xml::Element& c) {
    only(c, {"id", "speed", "core", "coordinates", "availability_file", "state_file", "pstate"});
    const xml::Attribute& s = need(c, "speed");
    // "1Gf,500Mf": per-pstate speeds; the first is the default pstate.
    xml::Attribute first = s;
    first.value = s.value.substr(0, s.value.find(','));
    const double speed = positive(s, quantity(first, speed_units(), "speed"), "speed", false);
    int cores = 1;
    if (const xml::Attribute* k = c.find("core")) cores = whole(*k, 1, 1 << 20, "core");
    add_host(need(c, "id").value, speed, cores, c.where);
  }

  LinkSharing sharing_of(const xml::Element& c) {
    const xml::Attribute* a = c.find("sharing_policy");
    if (!a || a->value == "SHARED") return LinkSharing::shared;
    if (a->value == "FATPIPE") return LinkSharing::fatpipe;
    if (a->value == "SPLITDUPLEX") return LinkSharing::splitduplex;
    throw ConfigError(a->where, "sharing_policy '" + a->value + "' is not supported (SHARED, FATPIPE, SPLITDUPLEX)");
  }

  void link(const xml::Element& c) {
    only(c, {"id", "bandwidth", "latency", "sharing_policy", "bandwidth_file", "latency_file", "state_file"});
    const xml::Attribute& bw = need(c, "bandwidth");
    const double b = positive(bw, quantity(bw, bandwidth_units(), "bandwidth"), "bandwidth", false);
    double lat = 0;
    if (const xml::Attribute* l = c.find("latency")) lat = positive(*l, quantity(*l, time_units(), "latency"), "latency", true);
    add_link(need(c, "id").value, b, lat, sharing_of(c), c.where);
  }

  // <cluster id prefix suffix radical speed core bw lat [bb_bw bb_lat] [sharing_policy]>: host i has a
  // private link (bw, lat); with a backbone, a route crosses src's link, the backbone and dst's link.
  void cluster(const xml::Element& c) {
    only(c, {"id", "prefix", "suffix", "radical", "speed", "core", "bw", "lat", "bb_bw", "bb_lat",
             "sharing_policy", "bb_sharing_policy", "router_id", "topology", "topo_parameters", "loopback_bw",
             "loopback_lat", "limiter_link"});
    std::vector<int> dims;
    if (const xml::Attribute* t = c.find("topology")) {
      if (t->value == "TORUS") {
        const xml::Attribute& params = need(c, "topo_parameters");
        std::stringstream in(params.value);
        std::string d;
        while (std::getline(in, d, ',')) {
          xml::Attribute one = params;
          one.value = d;
          dims.push_back(whole(one, 1, 1 << 20, "a torus dimension"));
        }
        if (dims.empty()) throw ConfigError(params.where, "a torus needs its dimensions, e.g. topo_parameters=\"4,4,4\"");
        for (const char* unsupported : {"bb_bw", "limiter_link"})
          if (const xml::Attribute* a = c.find(unsupported))
            throw ConfigError(a->where, std::string(unsupported) + " with a TORUS topology is not supported");
      } else if (t->value != "FLAT") {
        throw ConfigError(t->where, "cluster topology '" + t->value + "' is not supported (FLAT, TORUS)");
      }
    }
    const std::string id = need(c, "id").value;
    const std::string prefix = c.find("prefix") ? c.find("prefix")->value : "";
    const std::string suffix = c.find("suffix") ? c.find("suffix")->value : "";
    const xml::Attribute& radical = need(c, "radical");
    const xml::Attribute& sp = need(c, "speed");
    const double speed = positive(sp, quantity(sp, speed_units(), "speed"), "speed", false);
    int cores = 1;
    if (const xml::Attribute* k = c.find("core")) cores = whole(*k, 1, 1 << 20, "core");
    const xml::Attribute& bw = need(c, "bw");
    const double b = positive(bw, quantity(bw, bandwidth_units(), "bandwidth"), "bandwidth", false);
    const xml::Attribute& la = need(c, "lat");
    const double lat = positive(la, quantity(la, time_units(), "latency"), "latency", true);
    const LinkSharing sharing = sharing_of(c);
    int backbone = -1;
    if (const xml::Attribute* bb = c.find("bb_bw")) {
      const double bbw = positive(*bb, quantity(*bb, bandwidth_units(), "bandwidth"), "bandwidth", false);
      double blat = 0;
      if (const xml::Attribute* bl = c.find("bb_lat")) blat = positive(*bl, quantity(*bl, time_units(), "latency"), "latency", true);
      LinkSharing bs = LinkSharing::shared;
      if (const xml::Attribute* bsp = c.find("bb_sharing_policy"); bsp && bsp->value == "FATPIPE") bs = LinkSharing::fatpipe;
      backbone = add_link(id + "_backbone", bbw, blat, bs, c.where);
    }
    // SimGrid's cluster (its AsCluster/ClusterZone): a loopback link per host when loopback_bw or loopback_lat is
    // given (FATPIPE, the host's route to itself), and a limiter link per host when limiter_link is (SHARED, no
    // latency, crossed by every route from and to the host).
    const xml::Attribute* loop_bw = c.find("loopback_bw");
    const xml::Attribute* loop_lat = c.find("loopback_lat");
    const xml::Attribute* limiter = c.find("limiter_link");
    double loopback_bw = 0, loopback_lat = 0, limiter_bw = 0;
    if (loop_bw) loopback_bw = positive(*loop_bw, quantity(*loop_bw, bandwidth_units(), "bandwidth"), "loopback bandwidth", false);
    if (loop_lat) loopback_lat = positive(*loop_lat, quantity(*loop_lat, time_units(), "latency"), "loopback latency", true);
    if (loop_lat && !loop_bw) throw ConfigError(loop_lat->where, "loopback_lat needs loopback_bw (the loopback link's bandwidth)");
    if (limiter) limiter_bw = positive(*limiter, quantity(*limiter, bandwidth_units(), "bandwidth"), "limiter bandwidth", false);
    std::vector<int> ids, private_links, loopbacks, limiters;
    std::stringstream parts(radical.value);
    std::string part;
    while (std::getline(parts, part, ',')) {
      const std::size_t dash = part.find('-');
      xml::Attribute lo_a = radical, hi_a = radical;
      lo_a.value = part.substr(0, dash);
      hi_a.value = dash == std::string::npos ? lo_a.value : part.substr(dash + 1);
      const int lo = whole(lo_a, 0, 1 << 24, "radical"), hi = whole(hi_a, 0, 1 << 24, "radical");
      if (hi < lo || hi - lo > (1 << 20)) throw ConfigError(radical.where, "radical range '" + part + "' is empty or too large");
      for (int i = lo; i <= hi; ++i) {
        const std::string name = prefix + std::to_string(i) + suffix;
        ids.push_back(add_host(name, speed, cores, c.where));
        const std::string link = id + "_link_" + std::to_string(i);
        if (dims.empty()) private_links.push_back(add_link(link, b, lat, sharing, c.where));
        if (loop_bw) loopbacks.push_back(add_link(link + "_loopback", loopback_bw, loopback_lat, LinkSharing::fatpipe, c.where));
        if (limiter) limiters.push_back(add_link(link + "_limiter", limiter_bw, 0, LinkSharing::shared, c.where));
      }
    }
    if (!dims.empty()) {
      // SimGrid's TorusZone: host r's link in dimension j goes to the next host in that dimension.
      double total = 1;  // a double: dimensions of up to 2^20 each overflow a 64-bit product in four
      for (const int d : dims) total *= d;
      if (total != static_cast<double>(ids.size()))
        throw ConfigError(need(c, "topo_parameters").where, "the torus holds " + format_count(total) +
                                                                " hosts but the radical names " + std::to_string(ids.size()));
      for (std::size_t r = 0; r < ids.size(); ++r) {
        long product = 1;
        for (const int d : dims) {
          const long at = (static_cast<long>(r) / product) % d;
          const long next = at == d - 1 ? static_cast<long>(r) - (d - 1) * product : static_cast<long>(r) + product;
          private_links.push_back(
              add_link(id + "_link_from_" + std::to_string(r) + "_to_" + std::to_string(next), b, lat, sharing, c.where));
          product *= d;
        }
      }
    }
    p_.clusters.push_back({ids, private_links, backbone, sharing == LinkSharing::splitduplex, loopbacks, limiters, dims});
  }

  void resolve_routes() {
    for (const xml::Element* r : pending_) {
      only(*r, {"src", "dst", "symmetrical"});
      const xml::Attribute& src = need(*r, "src");
      const xml::Attribute& dst = need(*r, "dst");
      const bool graph = p_.routing != SimgridRouting::full;
      // A Full zone keeps the routes between hosts; one from or to a router (SimGrid's
      // small_platform_with_routers.xml declares them) is checked and serves no host pair.
      if (!graph && (!host_ids_.count(src.value) || !host_ids_.count(dst.value)) && point_ids_.count(src.value) &&
          point_ids_.count(dst.value))
        continue;
      const int a = graph ? point_of(src) : host_of(src), b = graph ? point_of(dst) : host_of(dst);
      bool sym = true;
      if (const xml::Attribute* s = r->find("symmetrical")) {
        if (s->value == "YES" || s->value == "yes") {
          sym = true;
        } else if (s->value == "NO" || s->value == "no") {
          sym = false;
        } else {
          throw ConfigError(s->where, "symmetrical must be YES or NO, got '" + s->value + "'");
        }
      }
      std::vector<SimgridLinkUse> uses;
      for (const xml::Element& ctn : r->children) {
        if (ctn.name != "link_ctn") throw ConfigError(ctn.where, "<route> holds only <link_ctn>");
        only(ctn, {"id", "direction"});
        const xml::Attribute& id = need(ctn, "id");
        auto it = link_ids_.find(id.value);
        if (it == link_ids_.end()) throw ConfigError(id.where, "no link '" + id.value + "' is declared");
        SimgridLinkUse u{it->second, false};
        if (const xml::Attribute* d = ctn.find("direction")) {
          if (d->value == "DOWN") {
            u.down = true;
          } else if (d->value != "UP" && d->value != "NONE") {
            throw ConfigError(d->where, "direction must be UP or DOWN, got '" + d->value + "'");
          }
        }
        uses.push_back(u);
      }
      if (graph) {
        add_edge(a, b, uses, *r, src.value, dst.value);
        if (sym && a != b) add_edge(b, a, reversed(uses), *r, dst.value, src.value);
        continue;
      }
      if (p_.routes.count({a, b})) throw ConfigError(r->where, "a route from '" + src.value + "' to '" + dst.value + "' is declared twice");
      p_.routes[{a, b}] = std::move(uses);
      p_.symmetric[{a, b}] = sym;
    }
    if (p_.routing == SimgridRouting::floyd) {
      // SimGrid's Floyd is cubic in the points: 1,024 take a second or two; past that it runs toward minutes.
      constexpr std::size_t kMaxFloydPoints = 1024;
      if (point_ids_.size() > kMaxFloydPoints)
        throw ConfigError(SourceLoc{p_.file}, "Floyd routing over " + std::to_string(point_ids_.size()) +
                                                  " hosts and routers (at most " + std::to_string(kMaxFloydPoints) +
                                                  "; Dijkstra routing finds the same routes without the cubic table)");
      simgrid_routing::floyd(static_cast<int>(point_ids_.size()), p_.graph);
    } else if (p_.routing == SimgridRouting::dijkstra) {
      simgrid_routing::dijkstra(static_cast<int>(point_ids_.size()), first_seen_, p_.graph.host_point, p_.graph);
    }
    // Cluster routes are computed by links_between (they take precedence over declared ones there).
    p_.cluster_of.assign(p_.hosts.size(), {-1, -1});
    for (std::size_t c = 0; c < p_.clusters.size(); ++c)
      for (std::size_t i = 0; i < p_.clusters[c].hosts.size(); ++i)
        p_.cluster_of[p_.clusters[c].hosts[i]] = {static_cast<int>(c), static_cast<int>(i)};
  }

  int point_of(const xml::Attribute& a) const {
    auto it = point_ids_.find(a.value);
    if (it == point_ids_.end()) throw ConfigError(a.where, "no host or router '" + a.value + "' is declared");
    return it->second;
  }

  std::vector<SimgridLinkUse> reversed(const std::vector<SimgridLinkUse>& uses) const {
    std::vector<SimgridLinkUse> back(uses.rbegin(), uses.rend());
    for (SimgridLinkUse& u : back) u.down = !u.down && p_.links[u.link].sharing == LinkSharing::splitduplex;
    return back;
  }

  void add_edge(int a, int b, std::vector<SimgridLinkUse> uses, const xml::Element& r, const std::string& from,
                const std::string& to) {
    if (p_.graph.edges.count({a, b}))
      throw ConfigError(r.where, "a route from '" + from + "' to '" + to + "' is declared twice (routes are symmetrical "
                                 "unless symmetrical=\"NO\")");
    for (const int point : {a, b})
      if (std::find(first_seen_.begin(), first_seen_.end(), point) == first_seen_.end()) first_seen_.push_back(point);
    p_.graph.edges[{a, b}] = std::move(uses);
    p_.graph.edge_order.emplace_back(a, b);
  }

  int host_of(const xml::Attribute& a) const {
    auto it = host_ids_.find(a.value);
    if (it == host_ids_.end()) throw ConfigError(a.where, "no host '" + a.value + "' is declared");
    return it->second;
  }

  SimgridPlatform& p_;
  std::unordered_map<std::string, int> host_ids_, link_ids_, point_ids_;
  std::vector<int> first_seen_;  // points in order of first appearance in a route (Dijkstra's node order)
  std::vector<const xml::Element*> pending_;
};

double number_prop(const SimgridPlatform::Prop& p) {
  char* end = nullptr;
  const double v = std::strtod(p.value.c_str(), &end);
  if (end == p.value.c_str() || *end != '\0' || !std::isfinite(v) || v < 0)
    throw ConfigError(p.where, p.id + ": expected a number >= 0, got '" + p.value + "'");
  return v;
}

// SimGrid's TorusZone route from the cluster's host src to dst: dimension by dimension, in the direction the
// *source's* coordinate chooses (as TorusZone decides it), over the link of the current host (going up) or of
// the next one (coming down, its DOWN direction when split).
std::vector<SimgridLinkUse> torus_route(const SimgridCluster& c, int src, int dst) {
  const std::size_t dims = c.dims.size();
  std::vector<long> mine(dims), target(dims);
  long product = 1;
  for (std::size_t j = 0; j < dims; ++j) {
    mine[j] = (src / product) % c.dims[j];
    target[j] = (dst / product) % c.dims[j];
    product *= c.dims[j];
  }
  std::vector<SimgridLinkUse> uses;
  for (long cur = src; cur != dst;) {
    long next = cur, step = 1;
    SimgridLinkUse use{};
    for (std::size_t j = 0; j < dims; ++j) {
      const long d = c.dims[j];
      if ((cur / step) % d != (dst / step) % d) {
        if ((target[j] > mine[j] && target[j] <= mine[j] + d / 2) || (mine[j] > d / 2 && (mine[j] + d / 2) % d >= target[j])) {
          next = (cur / step) % d == d - 1 ? cur + step - step * d : cur + step;
          use = {c.links[static_cast<std::size_t>(cur) * dims + j], false};
        } else {
          next = (cur / step) % d == 0 ? cur - step + step * d : cur - step;
          use = {c.links[static_cast<std::size_t>(next) * dims + j], c.split};
        }
        break;
      }
      step *= d;
    }
    uses.push_back(use);
    cur = next;
  }
  return uses;
}

}  // namespace

int SimgridPlatform::host_index(const std::string& name) const {
  for (std::size_t i = 0; i < hosts.size(); ++i)
    if (hosts[i].name == name) return static_cast<int>(i);
  return -1;
}

std::optional<std::vector<SimgridLinkUse>> SimgridPlatform::links_between(int a, int b) const {
  if (a == b && static_cast<std::size_t>(a) < cluster_of.size() && cluster_of[a].first >= 0) {
    const SimgridCluster& c = clusters[static_cast<std::size_t>(cluster_of[a].first)];
    if (!c.loopbacks.empty()) return std::vector<SimgridLinkUse>{{c.loopbacks[static_cast<std::size_t>(cluster_of[a].second)], false}};
  }
  if (routing != SimgridRouting::full) {
    const int s = graph.host_point.at(static_cast<std::size_t>(a)), d = graph.host_point.at(static_cast<std::size_t>(b));
    if (a == b) {
      auto self = graph.edges.find({s, s});
      return self == graph.edges.end() ? std::nullopt : std::optional(self->second);
    }
    const std::vector<int>& pred = graph.pred[static_cast<std::size_t>(s)];
    if (pred.empty() || pred[static_cast<std::size_t>(d)] < 0) return std::nullopt;
    std::vector<const std::vector<SimgridLinkUse>*> hops;  // from the destination back
    for (int cur = d; cur != s;) {
      const int before = pred[static_cast<std::size_t>(cur)];
      if (before < 0 || hops.size() > pred.size()) return std::nullopt;  // no chain back to the source
      hops.push_back(&graph.edges.at({before, cur}));
      cur = before;
    }
    std::vector<SimgridLinkUse> uses;
    for (auto it = hops.rbegin(); it != hops.rend(); ++it) uses.insert(uses.end(), (*it)->begin(), (*it)->end());
    return uses;
  }
  if (a != b && static_cast<std::size_t>(a) < cluster_of.size() && static_cast<std::size_t>(b) < cluster_of.size()) {
    const auto [ca, i] = cluster_of[a];
    const auto [cb, j] = cluster_of[b];
    if (ca >= 0 && ca == cb) {
      const SimgridCluster& c = clusters[ca];
      if (!c.dims.empty()) return torus_route(c, i, j);
      std::vector<SimgridLinkUse> uses;
      if (!c.limiters.empty()) uses.push_back({c.limiters[i], false});
      uses.push_back({c.links[i], false});
      if (c.backbone >= 0) uses.push_back({c.backbone, false});
      uses.push_back({c.links[j], c.split});
      if (!c.limiters.empty()) uses.push_back({c.limiters[j], false});
      return uses;
    }
  }
  if (auto it = routes.find({a, b}); it != routes.end()) return it->second;
  if (auto it = routes.find({b, a}); it != routes.end() && symmetric.at({b, a})) {
    std::vector<SimgridLinkUse> back(it->second.rbegin(), it->second.rend());
    for (SimgridLinkUse& u : back) u.down = !u.down && links[u.link].sharing == LinkSharing::splitduplex;
    return back;
  }
  return std::nullopt;
}

bool SimgridPlatform::has_route(int a, int b) const {
  if (a == b) return true;
  if (routing != SimgridRouting::full) {
    const std::vector<int>& pred = graph.pred[static_cast<std::size_t>(graph.host_point.at(static_cast<std::size_t>(a)))];
    return !pred.empty() && pred[static_cast<std::size_t>(graph.host_point.at(static_cast<std::size_t>(b)))] >= 0;
  }
  if (static_cast<std::size_t>(a) < cluster_of.size() && static_cast<std::size_t>(b) < cluster_of.size() &&
      cluster_of[a].first >= 0 && cluster_of[a].first == cluster_of[b].first)
    return true;
  if (routes.count({a, b})) return true;
  auto it = symmetric.find({b, a});
  return it != symmetric.end() && it->second;
}

SimgridPlatform parse_simgrid_platform(const std::string& text, const std::string& file) {
  SimgridPlatform p;
  p.file = file;
  const xml::Element root = xml::parse(text, file);
  Builder(p).platform(root);
  if (p.hosts.empty()) throw ConfigError(SourceLoc{file}, "the platform declares no host");
  return p;
}

SimgridPlatform read_simgrid_platform(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(SourceLoc{path}, "cannot read the platform file");
  check_trace_size(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_simgrid_platform(ss.str(), path);
}

void apply_simgrid_config(const SimgridPlatform& platform, MessageModel& m) {
  for (const SimgridPlatform::Prop& p : platform.config) {
    try {
      if (p.id == "smpi/bw-factor" || p.id == "smpi/bw_factor") {
        m.bandwidth_factor = SizeFactor::parse(p.value);
      } else if (p.id == "smpi/lat-factor" || p.id == "smpi/lat_factor") {
        m.latency_factor = SizeFactor::parse(p.value);
      } else if (p.id == "smpi/send-is-detached-thresh") {
        m.eager_threshold = number_prop(p);
      } else if (p.id == "smpi/async-small-thresh") {
        m.buffered_threshold = number_prop(p);
      } else if (p.id == "network/crosstraffic") {
        if (p.value != "yes" && p.value != "no" && p.value != "1" && p.value != "0")
          throw ConfigError(p.where, p.id + ": expected yes or no, got '" + p.value + "'");
        m.crosstraffic = (p.value == "yes" || p.value == "1") ? 0.05 : 0;
      } else if (p.id == "network/weight-S") {
        m.weight_s = number_prop(p);
      } else if (p.id == "network/TCP-gamma" || p.id == "network/TCP_gamma") {
        m.tcp_gamma = number_prop(p);
      } else if (p.id == "smpi/test") {
        m.test_sleep_s = number_prop(p);
      }
    } catch (const std::invalid_argument& e) {
      throw ConfigError(p.where, p.id + ": " + e.what());
    }
  }
}

// ---------------------------------------------------------------------------------------------------

struct SimgridMachine::Impl {
  SimgridPlatform p;
  Simulator sim;
  FairShare fs{sim};
  std::vector<ResourceId> up, down;  // per link; down only for SPLITDUPLEX; kNone for FATPIPE
  std::unordered_map<std::uint64_t, MpiRoute> routes;  // (from, to) -> route, built when first asked
  static constexpr ResourceId kNone = std::numeric_limits<ResourceId>::max();

  void uses(const std::vector<SimgridLinkUse>& links, std::vector<ResourceId>& out) const {
    for (const SimgridLinkUse& u : links) {
      const ResourceId r = u.down && down[u.link] != kNone ? down[u.link] : up[u.link];
      if (r != kNone) out.push_back(r);
    }
  }
};

SimgridMachine::SimgridMachine(SimgridPlatform platform) : impl_(std::make_unique<Impl>()) {
  impl_->fs.keep_resource_stats(false);  // an MPI run reads no link statistics
  impl_->p = std::move(platform);
  for (const SimgridLink& l : impl_->p.links) {
    if (l.sharing == LinkSharing::fatpipe) {
      impl_->up.push_back(Impl::kNone);
      impl_->down.push_back(Impl::kNone);
    } else {
      impl_->up.push_back(impl_->fs.add_resource(l.bandwidth, l.name + (l.sharing == LinkSharing::splitduplex ? "_UP" : "")));
      impl_->down.push_back(l.sharing == LinkSharing::splitduplex ? impl_->fs.add_resource(l.bandwidth, l.name + "_DOWN")
                                                                  : Impl::kNone);
    }
  }
}

SimgridMachine::~SimgridMachine() = default;
int SimgridMachine::hosts() const { return static_cast<int>(impl_->p.hosts.size()); }
const std::string& SimgridMachine::host_name(int h) const { return impl_->p.hosts.at(h).name; }
double SimgridMachine::host_speed(int h) const { return impl_->p.hosts.at(h).speed; }
int SimgridMachine::host_cores(int h) const { return impl_->p.hosts.at(h).cores; }
Simulator& SimgridMachine::sim() { return impl_->sim; }
FairShare& SimgridMachine::fair_share() { return impl_->fs; }
const SimgridPlatform& SimgridMachine::platform() const { return impl_->p; }

const MpiRoute& SimgridMachine::route(int from, int to) {
  const int h = hosts();
  if (from < 0 || to < 0 || from >= h || to >= h) throw std::invalid_argument("route: host out of range");
  const std::uint64_t k = static_cast<std::uint64_t>(from) * static_cast<std::uint64_t>(h) + static_cast<std::uint64_t>(to);
  auto [it, fresh] = impl_->routes.try_emplace(k);
  MpiRoute& r = it->second;
  if (!fresh) return r;
  const SimgridPlatform& p = impl_->p;
  auto links = p.links_between(from, to);
  if (!links) {
    if (from != to) {
      impl_->routes.erase(it);  // asked again, it throws again
      throw std::invalid_argument("the platform has no route from '" + p.hosts[from].name + "' to '" + p.hosts[to].name + "'");
    }
    // SimGrid's default loopback: network/loopback-bw 10 GBps, network/loopback-lat 0, FATPIPE.
    r.latency_s = 0;
    r.bandwidth = 1e10;
    r.cap = 1e10;
    r.inverse_bandwidth_sum = 1e-10;
  } else {
    impl_->uses(*links, r.forward);
    for (const SimgridLinkUse& u : *links) {
      const SimgridLink& l = p.links[u.link];
      r.latency_s += l.latency_s;
      r.bandwidth = std::min(r.bandwidth, l.bandwidth);
      if (l.sharing == LinkSharing::fatpipe) r.cap = std::min(r.cap, l.bandwidth);
      r.inverse_bandwidth_sum += 1 / l.bandwidth;
    }
    if (auto back = p.links_between(to, from)) impl_->uses(*back, r.reverse);
  }
  return r;
}

}  // namespace hpcsim
