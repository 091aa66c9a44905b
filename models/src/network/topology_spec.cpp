#include "models/network/topology_spec.h"

#include <algorithm>
#include <map>

#include "configs/config_error.h"

namespace hpcsim {

namespace {

const std::vector<std::pair<std::string, TopologyKind>>& kinds() {
  static const std::vector<std::pair<std::string, TopologyKind>> k = {
      {"crossbar", TopologyKind::crossbar},   {"fat-tree", TopologyKind::fat_tree},
      {"rail-optimized", TopologyKind::rail_optimized}, {"dragonfly", TopologyKind::dragonfly},
      {"torus", TopologyKind::torus},         {"edge-list", TopologyKind::edge_list}};
  return k;
}

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (const auto& [name, kind] : kinds()) names.push_back(name);
  return names;
}

// The keys each kind accepts besides `kind`.
std::vector<std::string> keys_of(TopologyKind kind) {
  switch (kind) {
    case TopologyKind::crossbar: return {};
    case TopologyKind::fat_tree:
    case TopologyKind::rail_optimized: return {"levels", "radix", "oversubscription"};
    case TopologyKind::dragonfly:
      return {"groups", "routers_per_group", "nodes_per_router", "global_links_per_router"};
    case TopologyKind::torus: return {"dims", "nodes_per_router"};
    case TopologyKind::edge_list: return {"switches", "links", "attach"};
  }
  return {};
}

int index_of(const std::map<std::string, int>& names, const ConfigNode& name) {
  auto it = names.find(name.as_string());
  if (it == names.end()) throw ConfigError(name.loc(), "unknown switch '" + name.as_string() + "' (not in switches)");
  return it->second;
}

}  // namespace

std::string topology_kind_name(TopologyKind kind) {
  for (const auto& [name, k] : kinds()) {
    if (k == kind) return name;
  }
  return "?";
}

const Schema& topology_spec_schema() {
  static const Schema schema = Schema::map({
      required("kind", Schema::one_of(kind_names()),
               "the layout; each kind takes only its own keys below (crossbar: none, one ideal switch)"),
      optional("levels", Schema::integer().at_least(2).at_most(3), "fat-tree, rail-optimized: switch levels", "2"),
      optional("radix", Schema::integer().at_least(2), "fat-tree, rail-optimized: ports per switch",
               "none: required for these kinds"),
      optional("oversubscription", Schema::number().at_least(1),
               "fat-tree, rail-optimized: leaf down:up port ratio", "1 (non-blocking)"),
      optional("groups", Schema::integer().at_least(1), "dragonfly: router groups", "none: required for dragonfly"),
      optional("routers_per_group", Schema::integer().at_least(1), "dragonfly: routers in each group",
               "none: required for dragonfly"),
      optional("nodes_per_router", Schema::integer().at_least(1), "dragonfly, torus: nodes attached to each router",
               "1"),
      optional("global_links_per_router", Schema::integer().at_least(1),
               "dragonfly: links from each router to other groups", "none: required for dragonfly"),
      optional("dims", Schema::list(Schema::integer().at_least(1)).non_empty(),
               "torus: the size of each of its 2 or 3 dimensions", "none: required for torus"),
      optional("switches", Schema::list(Schema::string()).non_empty(), "edge-list: switch names",
               "none: required for edge-list"),
      optional("links", Schema::list(Schema::list(Schema::string())).non_empty(),
               "edge-list: links as [switch, switch]", "none: required for edge-list"),
      optional("attach", Schema::list(Schema::string()).non_empty(),
               "edge-list: the switch each node attaches to, one per node in order", "none: required for edge-list"),
  });
  return schema;
}

TopologySpec parse_topology_spec(const ConfigNode& node) {
  topology_spec_schema().validate(node);
  TopologySpec t;
  t.where = node.loc();
  const std::string kind = node.get_string("kind");
  for (const auto& [name, k] : kinds()) {
    if (name == kind) t.kind = k;
  }
  const std::vector<std::string> allowed = keys_of(t.kind);
  for (const ConfigNode::Entry& e : node.entries()) {
    if (e.key != "kind" && std::find(allowed.begin(), allowed.end(), e.key) == allowed.end()) {
      throw ConfigError(e.key_loc, "'" + e.key + "' is not a parameter of a " + kind + " topology");
    }
  }
  auto need = [&](const char* key) -> const ConfigNode& {
    if (!node.has(key)) throw ConfigError(node.loc(), "a " + kind + " topology needs '" + key + "'");
    return node.at(key);
  };
  switch (t.kind) {
    case TopologyKind::crossbar: break;
    case TopologyKind::fat_tree:
    case TopologyKind::rail_optimized:
      t.levels = static_cast<int>(node.get_int_or("levels", 2));
      t.radix = static_cast<int>(need("radix").as_int());
      t.oversubscription = node.get_number_or("oversubscription", 1);
      break;
    case TopologyKind::dragonfly:
      t.groups = static_cast<int>(need("groups").as_int());
      t.routers_per_group = static_cast<int>(need("routers_per_group").as_int());
      t.global_links_per_router = static_cast<int>(need("global_links_per_router").as_int());
      t.nodes_per_router = static_cast<int>(node.get_int_or("nodes_per_router", 1));
      break;
    case TopologyKind::torus: {
      const ConfigNode& dims = need("dims");
      if (dims.items().size() < 2 || dims.items().size() > 3) {
        throw ConfigError(dims.loc(), "a torus has 2 or 3 dimensions, not " + std::to_string(dims.items().size()));
      }
      for (const ConfigNode& d : dims.items()) t.dims.push_back(static_cast<int>(d.as_int()));
      t.nodes_per_router = static_cast<int>(node.get_int_or("nodes_per_router", 1));
      break;
    }
    case TopologyKind::edge_list: {
      std::map<std::string, int> names;
      for (const ConfigNode& s : need("switches").items()) {
        if (!names.emplace(s.as_string(), static_cast<int>(t.switch_names.size())).second) {
          throw ConfigError(s.loc(), "switch '" + s.as_string() + "' is listed twice");
        }
        t.switch_names.push_back(s.as_string());
      }
      for (const ConfigNode& link : need("links").items()) {
        if (link.items().size() != 2) {
          throw ConfigError(link.loc(), "a link is [switch, switch], got " + std::to_string(link.items().size()) +
                                            " names");
        }
        const int a = index_of(names, link.items()[0]);
        const int b = index_of(names, link.items()[1]);
        if (a == b) throw ConfigError(link.loc(), "a link joins two different switches");
        t.links.emplace_back(a, b);
      }
      for (const ConfigNode& s : need("attach").items()) t.attach.push_back(index_of(names, s));
      break;
    }
  }
  return t;
}

}  // namespace hpcsim
