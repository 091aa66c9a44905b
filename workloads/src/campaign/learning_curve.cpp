#include "workloads/campaign/learning_curve.h"

#include <cmath>

#include "sim-core/random.h"

namespace hpcsim {

double LearningCurve::loss(double budget_steps) const { return floor + scale * std::pow(budget_steps, -alpha); }

const Schema& learning_curve_schema() {
  // Defaults: LearningCurveModel's, which parse_learning_curve falls back to.
  static const Schema schema = Schema::map({
      optional("floor", Schema::number().at_least(0), "loss a trial with the best hyperparameters converges to", "1.0"),
      optional("floor_penalty", Schema::number().at_least(0),
               "floor added per unit of misfit (squared distance from the optimum)", "2.0"),
      optional("scale", Schema::number().positive(), "loss above the floor at 1 step: loss = floor + scale x steps^-alpha",
               "10"),
      optional("alpha", Schema::number().positive(), "how fast the loss falls with steps at the optimum", "0.5"),
      optional("skew", Schema::number(),
               "alpha is multiplied by exp(skew x offset from the optimum): rankings at small budgets can mislead",
               "0.5"),
      optional("noise", Schema::number().at_least(0).at_most(0.5),
               "relative noise of each observed loss (seeded, standard deviation)", "0.01"),
  });
  return schema;
}

LearningCurveModel parse_learning_curve(const ConfigNode& curve) {
  const LearningCurveModel d;
  LearningCurveModel m;
  m.floor = curve.get_number_or("floor", d.floor);
  m.floor_penalty = curve.get_number_or("floor_penalty", d.floor_penalty);
  m.scale = curve.get_number_or("scale", d.scale);
  m.alpha = curve.get_number_or("alpha", d.alpha);
  m.skew = curve.get_number_or("skew", d.skew);
  m.noise = curve.get_number_or("noise", d.noise);
  return m;
}

LearningCurve learning_curve(const LearningCurveModel& model, const SearchSpace& space, const TrialValues& values) {
  double misfit = 0, offset = 0;
  for (std::size_t k = 0; k < space.parameters.size(); ++k) {
    const SearchParameter& p = space.parameters[k];
    if (p.kind == SpaceKind::choice) {
      misfit += p.penalties[static_cast<std::size_t>(values[k].number)];
      continue;
    }
    const double d = p.position(values[k].number) - p.position(p.optimum);
    misfit += d * d;
    offset += d;
  }
  return LearningCurve{model.floor + model.floor_penalty * misfit, model.scale, model.alpha * std::exp(model.skew * offset)};
}

double observed_loss(const LearningCurveModel& model, const LearningCurve& curve, double budget_steps,
                     std::uint64_t seed, std::int64_t trial) {
  const std::uint64_t key = seeded_key({seed, static_cast<std::uint64_t>(trial),
                                        static_cast<std::uint64_t>(std::llround(budget_steps)), 0xc0c0ULL});
  return curve.loss(budget_steps) * (1.0 + model.noise * standard_normal(key));
}

}  // namespace hpcsim
