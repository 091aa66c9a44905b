#include "workloads/pricing/node_price.h"

#include <cmath>
#include <cstdlib>

#include "configs/config_error.h"
#include "configs/schema.h"

namespace hpcsim {

namespace {

const Schema& price_schema() {
  static const Schema schema = Schema::map({
      required("node", Schema::string()),
      optional("cloud", Schema::map({required("per_hour", Schema::string()), optional("source", Schema::string()),
                                     optional("date", Schema::string()), optional("example", Schema::boolean()),
                                     optional("note", Schema::string())})),
      optional("purchase", Schema::map({required("price", Schema::string()),
                                        required("amortization_years", Schema::number().positive()),
                                        optional("source", Schema::string()), optional("date", Schema::string()),
                                        optional("example", Schema::boolean()), optional("note", Schema::string())})),
  });
  return schema;
}

// A price needs its source and date, or `example: true`.
void require_provenance(const ConfigNode& section, const std::string& what) {
  if (section.get_bool_or("example", false)) return;
  for (const char* key : {"source", "date"}) {
    if (!section.has(key)) {
      throw ConfigError(section.loc(), what + ": a price needs its '" + key + "' (or example: true)");
    }
  }
}

}  // namespace

NodePrice load_price(const SpecCatalog& catalog, const ConfigNode& name_node, Pricing pricing) {
  const ConfigNode root = catalog.load("prices", name_node, "node price (configs/prices)");
  price_schema().validate(root);
  const std::string name = name_node.as_string();
  NodePrice p;
  if (const ConfigNode* cloud = root.find("cloud")) {
    require_provenance(*cloud, "prices/" + name + ".yaml cloud");
    p.cloud_per_hour = parse_usd(cloud->at("per_hour"), "cloud.per_hour");
    if (pricing == Pricing::cloud) p.example = cloud->get_bool_or("example", false);
  }
  if (const ConfigNode* purchase = root.find("purchase")) {
    require_provenance(*purchase, "prices/" + name + ".yaml purchase");
    p.purchase = parse_usd(purchase->at("price"), "purchase.price");
    p.amortization_years = purchase->get_number("amortization_years");
    if (pricing == Pricing::purchase) p.example = purchase->get_bool_or("example", false);
  }
  const bool has = pricing == Pricing::cloud ? p.cloud_per_hour > 0 : p.purchase > 0;
  if (!has) {
    throw ConfigError(name_node.loc(), "configs/prices/" + name + ".yaml has no " +
                                           (pricing == Pricing::cloud ? "cloud" : "purchase") + " price");
  }
  return p;
}

double parse_usd(const ConfigNode& node, const std::string& key) {
  const std::string text = node.as_string();
  std::string number = text;
  if (const auto space = text.find_first_of(" \t"); space != std::string::npos) {
    const std::string unit = text.substr(text.find_first_not_of(" \t", space));
    if (unit != "USD") {
      throw ConfigError(node.loc(), key + ": unknown currency '" + unit + "' in '" + text + "'; prices are in USD, e.g. '2e6 USD'");
    }
    number = text.substr(0, space);
  }
  char* end = nullptr;
  const double value = std::strtod(number.c_str(), &end);
  if (number.empty() || end == nullptr || *end != '\0' || !std::isfinite(value) || value <= 0) {
    throw ConfigError(node.loc(), key + ": expected an amount of money like '2e6 USD', got '" + text + "'");
  }
  return value;
}

}  // namespace hpcsim
