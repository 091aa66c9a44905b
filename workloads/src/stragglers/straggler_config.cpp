#include "workloads/stragglers/straggler_config.h"

#include <cmath>

#include "configs/config_error.h"

namespace hpcsim {

const Schema& straggler_schema() {
  static const Schema schema = Schema::map({
      optional("slow_gpus", Schema::number().at_least(0).at_most(1),
               "fraction of the fleet's GPUs that run slow (thermal throttling), 0 to 1; needs gpu_clock", "0"),
      optional("gpu_clock", Schema::number().positive().at_most(1),
               "a slow GPU's clocks (boost and tensor) as a fraction of its own, above 0 and at most 1", "none"),
      optional("slow_links", Schema::number().at_least(0).at_most(1),
               "fraction of the fleet's nodes whose network link is degraded, 0 to 1; needs link_bandwidth", "0"),
      optional("link_bandwidth", Schema::number().positive().at_most(1),
               "a degraded link's rate as a fraction of the network's, above 0 and at most 1", "none"),
  });
  return schema;
}

StragglerConfig parse_stragglers(const ConfigNode& section) {
  straggler_schema().validate(section);
  StragglerConfig c;
  const auto pair = [&](const char* fraction, const char* speed, double& f, double& s) {
    if (section.has(fraction) != section.has(speed)) {
      const char* given = section.has(fraction) ? fraction : speed;
      throw ConfigError(section.at(given).loc(), std::string("stragglers.") + given + " needs stragglers." +
                                                     (section.has(fraction) ? speed : fraction));
    }
    if (section.has(fraction)) f = section.get_number(fraction), s = section.get_number(speed);
  };
  pair("slow_gpus", "gpu_clock", c.slow_gpus, c.gpu_clock);
  pair("slow_links", "link_bandwidth", c.slow_links, c.link_bandwidth);
  if (!(c.slow_gpus > 0 && c.gpu_clock < 1) && !(c.slow_links > 0 && c.link_bandwidth < 1)) {
    throw ConfigError(section.loc(), "stragglers: nothing is slow: give slow_gpus above 0 with gpu_clock below 1, or "
                                     "slow_links above 0 with link_bandwidth below 1");
  }
  return c;
}

StragglerOdds straggler_odds(const StragglerConfig& c, int gpus, int nodes) {
  // 1 - (1 - f)^n, accurately for small f.
  const auto any = [](double f, int n) { return f >= 1 ? 1.0 : -std::expm1(n * std::log1p(-f)); };
  return {any(c.slow_gpus, gpus), any(c.slow_links, nodes)};
}

}  // namespace hpcsim
