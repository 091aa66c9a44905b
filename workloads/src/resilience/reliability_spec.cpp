#include "workloads/resilience/reliability_spec.h"

#include "configs/config_error.h"

namespace hpcsim {

namespace {
// A FIT above 1e12 is a failure every hour of every unit: not a reliability figure.
constexpr double kMaxFit = 1e12;
}  // namespace

const Schema& reliability_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("name", Schema::string(), "the failure model's name", "the file's name"),
      optional("description", Schema::string(), "free text (not read)", "none"),
      required("modes",
               Schema::map_of(Schema::map({
                                  required("component", Schema::one_of(kFailureComponentNames.names()),
                                           "the component that fails (the cause reports group by the mode's name)"),
                                  required("fit", Schema::number().positive().at_most(kMaxFit),
                                           "the failure rate in FIT: failures per 10^9 unit-hours (> 0)"),
                                  required("per", Schema::one_of(kFailureUnitNames.names()),
                                           "what the rate counts per: each gpu, node or leaf switch of the job, or the job"),
                                  required("blast_radius", Schema::one_of(kBlastRadiusNames.names()),
                                           "what one failure takes out: job (restart in place), node or leaf (those "
                                           "nodes leave the job until repaired: a spare or a re-queue replaces them)"),
                                  required("source", Schema::string(), "where the rate comes from"),
                              }))
                   .non_empty(),
               "failure modes by name: each a component's rate and blast radius"),
  });
  return schema;
}

ReliabilitySpec parse_reliability_spec(const ConfigNode& node, std::string name) {
  reliability_spec_schema().validate(node);
  ReliabilitySpec spec;
  spec.name = node.get_string_or("name", std::move(name));
  for (const auto& entry : node.at("modes").entries()) {
    const ConfigNode& m = entry.value;
    FailureMode mode;
    mode.name = entry.key;
    mode.component = *kFailureComponentNames.parse(m.get_string("component"));
    mode.fit = m.get_number("fit");
    mode.per = *kFailureUnitNames.parse(m.get_string("per"));
    mode.blast_radius = *kBlastRadiusNames.parse(m.get_string("blast_radius"));
    mode.source = m.get_string("source");
    mode.loc = m.loc();
    if (mode.per == FailureUnit::job && mode.blast_radius != BlastRadius::job) {
      throw ConfigError(m.at("blast_radius").loc(),
                        "a rate per job has no hardware to take out: blast_radius must be job, not " +
                            m.get_string("blast_radius"));
    }
    spec.modes.push_back(std::move(mode));
  }
  return spec;
}

}  // namespace hpcsim
