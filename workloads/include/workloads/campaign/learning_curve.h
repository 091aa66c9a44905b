#pragma once
// A trial's score: a parametric learning curve in the training budget (steps), the validation loss
//   loss(b) = floor(h) + scale * b^-alpha(h)     (lower is better)
// with the curve's parameters set by the trial's hyperparameters h. Its misfit m is the sum over range
// parameters of (position - optimum position)^2 (positions in [0, 1], log scale for log_uniform) plus the
// penalties of its choices; its signed offset s is the sum over range parameters of (position - optimum).
//   floor(h) = floor + floor_penalty * m      (worse hyperparameters converge to a higher loss)
//   alpha(h) = alpha * exp(skew * s)          (e.g. a learning rate above its optimum learns faster early
//                                              but settles higher: rankings at small budgets can mislead,
//                                              which is what makes early stopping a real decision)
// Each evaluation is seen with seeded noise: observed = loss(b) * (1 + noise * z), z ~ N(0, 1) drawn
// from (seed, trial, budget), so it is the same for the same evaluation and independent between them.
#include <cstdint>

#include "configs/config_node.h"
#include "configs/schema.h"
#include "workloads/campaign/search_space.h"

namespace hpcsim {

struct LearningCurveModel {
  double floor = 1.0;
  double floor_penalty = 2.0;
  double scale = 10.0;
  double alpha = 0.5;
  double skew = 0.5;
  double noise = 0.01;
};

struct LearningCurve {
  double floor = 0, scale = 0, alpha = 0;
  double loss(double budget_steps) const;  // without noise; strictly decreasing in the budget
};

const Schema& learning_curve_schema();
LearningCurveModel parse_learning_curve(const ConfigNode& curve);  // the `curve:` section (validated)

LearningCurve learning_curve(const LearningCurveModel& model, const SearchSpace& space, const TrialValues& values);
// loss(budget) with the evaluation's noise.
double observed_loss(const LearningCurveModel& model, const LearningCurve& curve, double budget_steps,
                     std::uint64_t seed, std::int64_t trial);

}  // namespace hpcsim
