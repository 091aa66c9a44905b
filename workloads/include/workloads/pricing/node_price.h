#pragma once
// What a node costs (configs/prices/<node>.yaml), read once for every user: capacity plans price configurations
// with it, inference reports the cost of a served million requests. Amounts are US dollars.
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"

namespace hpcsim {

// configs/prices/<node>.yaml: what one node costs, in US dollars.
struct NodePrice {
  double cloud_per_hour = 0;      // on-demand, per node-hour
  double purchase = 0;            // per node
  double amortization_years = 0;  // the purchase is spread over this many years of 8,766 hours
  bool example = false;           // a number marked as an example, not a sourced price
  double purchase_per_hour() const { return purchase / (amortization_years * 8766.0); }
};

enum class Pricing { cloud, purchase };

// configs/prices/<name_node>.yaml, validated; a missing file, or one without the asked pricing, is a
// ConfigError at name_node. Prices carry their source and date (or example: true).
NodePrice load_price(const SpecCatalog& catalog, const ConfigNode& name_node, Pricing pricing);

// "2e6 USD", "250000 USD" or a bare number: US dollars. ConfigError at the node naming `key` otherwise.
double parse_usd(const ConfigNode& node, const std::string& key);

}  // namespace hpcsim
