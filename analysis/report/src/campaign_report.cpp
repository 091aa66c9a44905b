#include "report/campaign_report.h"

#include <algorithm>
#include <numeric>
#include <sstream>

#include "configs/json_writer.h"
#include "report_format.h"

namespace hpcsim {

namespace {

std::string number(double v) { return json::number(v, 10); }

}  // namespace

CampaignSummary summarize_campaign(const CampaignSpec& spec, const CampaignResult& result) {
  CampaignSummary s;
  s.trials = static_cast<std::int64_t>(result.trials.size());
  s.jobs = static_cast<std::int64_t>(result.jobs.size());
  s.makespan_s = result.makespan_s;
  double busy_node_s = 0, wait = 0;
  for (const CampaignJob& job : result.jobs) {
    const ScheduledJob& j = job.run.scheduled;
    busy_node_s += (j.end_s - j.start_s) * j.job.nodes;
    wait += j.wait_s();
    s.killed += j.killed ? 1 : 0;
  }
  s.gpu_hours = busy_node_s * spec.gpus_per_node / 3600.0;
  s.mean_wait_s = result.jobs.empty() ? 0 : wait / static_cast<double>(result.jobs.size());
  s.utilization = s.makespan_s > 0 ? busy_node_s / (spec.cluster_nodes * s.makespan_s) : 0;
  s.rung_budgets = spec.rungs.budgets;
  s.trials_per_rung.assign(spec.rungs.budgets.size(), 0);
  for (const CampaignJob& job : result.jobs) {
    if (job.loss) ++s.trials_per_rung[static_cast<std::size_t>(job.rung)];
  }
  if (result.best_trial) {
    const CampaignTrial& best = result.trials[static_cast<std::size_t>(*result.best_trial)];
    s.best_trial = result.best_trial;
    s.best_loss = best.loss;
    s.time_to_best_s = best.known_s;
    s.best_values = describe(spec.space, best.values);
  }
  return s;
}

std::vector<Metric> campaign_metrics(const CampaignSummary& s) {
  const auto maybe = [](const std::optional<std::int64_t>& v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
  };
  std::vector<Metric> m{{"trials", static_cast<double>(s.trials), "count"},
                        {"jobs", static_cast<double>(s.jobs), "count"},
                        {"killed", static_cast<double>(s.killed), "count"},
                        {"best_trial", maybe(s.best_trial), "count"},
                        {"best_loss", s.best_loss, "loss"},
                        {"time_to_best_s", s.time_to_best_s, "s"},
                        {"makespan_s", s.makespan_s, "s"},
                        {"gpu_hours", s.gpu_hours, "GPU-h"},
                        {"mean_wait_s", s.mean_wait_s, "s"},
                        {"utilization", s.utilization, "ratio"}};
  for (std::size_t k = 0; k < s.trials_per_rung.size(); ++k) {
    m.push_back({"trials_per_rung[" + std::to_string(k) + "]", static_cast<double>(s.trials_per_rung[k]), "count"});
  }
  return m;
}

std::string campaign_to_json(const CampaignSpec& spec, const CampaignResult& result, const CampaignSummary& s) {
  std::ostringstream out;
  const auto optional_number = [](const std::optional<double>& v) { return v ? number(*v) : std::string("null"); };
  out << "{\n  \"name\": " << json::quote(spec.name) << ",\n  \"summary\": {\"trials\": " << s.trials
      << ", \"jobs\": " << s.jobs << ", \"killed\": " << s.killed << ", \"best_trial\": "
      << (s.best_trial ? std::to_string(*s.best_trial) : "null") << ", \"best_hyperparameters\": "
      << json::quote(s.best_values) << ", \"best_loss\": " << optional_number(s.best_loss)
      << ", \"time_to_best_s\": " << optional_number(s.time_to_best_s) << ", \"makespan_s\": " << number(s.makespan_s)
      << ", \"gpu_hours\": " << number(s.gpu_hours) << ", \"mean_wait_s\": " << number(s.mean_wait_s)
      << ", \"utilization\": " << number(s.utilization) << "},\n  \"rungs\": [";
  for (std::size_t k = 0; k < s.rung_budgets.size(); ++k) {
    out << (k == 0 ? "" : ", ") << "{\"budget_steps\": " << s.rung_budgets[k] << ", \"trials\": " << s.trials_per_rung[k]
        << "}";
  }
  out << "],\n  \"trials\": [";
  for (std::size_t i = 0; i < result.trials.size(); ++i) {
    const CampaignTrial& t = result.trials[i];
    out << (i == 0 ? "\n" : ",\n") << "    {\"id\": " << i << ", \"hyperparameters\": "
        << json::quote(describe(spec.space, t.values)) << ", \"rung\": " << t.rung
        << ", \"budget_steps\": " << (t.rung >= 0 ? spec.rungs.budgets[static_cast<std::size_t>(t.rung)] : 0)
        << ", \"loss\": " << optional_number(t.loss) << ", \"known_s\": " << (t.loss ? number(t.known_s) : "null") << "}";
  }
  out << (result.trials.empty() ? "]" : "\n  ]") << "\n}\n";
  return out.str();
}

std::string campaign_to_table(const CampaignSpec& spec, const CampaignResult& result, const CampaignSummary& s) {
  std::ostringstream out;
  // The leading trials: furthest rung first, then lowest loss.
  std::vector<std::size_t> order(result.trials.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const CampaignTrial &x = result.trials[a], &y = result.trials[b];
    if (x.rung != y.rung) return x.rung > y.rung;
    return x.loss && y.loss && *x.loss < *y.loss;
  });
  const std::size_t shown = std::min<std::size_t>(order.size(), 10);
  out << "trial  rung   steps        loss    known_s  hyperparameters\n";
  for (std::size_t i = 0; i < shown; ++i) {
    const CampaignTrial& t = result.trials[order[i]];
    if (t.rung < 0) break;
    char line[96];
    std::snprintf(line, sizeof line, "%5zu %5d %7lld %11.5f %10.0f  ", order[i], t.rung,
                  static_cast<long long>(spec.rungs.budgets[static_cast<std::size_t>(t.rung)]), *t.loss, t.known_s);
    out << line << describe(spec.space, t.values) << "\n";
  }
  if (order.size() > shown) out << "  ... " << order.size() - shown << " more (--format json lists every trial)\n";
  out << "\nrungs (budget steps: trials)";
  for (std::size_t k = 0; k < s.rung_budgets.size(); ++k) out << (k == 0 ? " " : ", ") << s.rung_budgets[k] << ": " << s.trials_per_rung[k];
  out << "\njobs " << s.jobs << ", killed at their limit " << s.killed << "\n";
  if (s.best_trial) {
    out << "best trial " << *s.best_trial << " (" << s.best_values << "): loss " << report_format::format("%.5f", *s.best_loss)
        << "\ntime to best " << report_format::value(*s.time_to_best_s) << " s ("
        << report_format::format("%.2f", *s.time_to_best_s / 3600) << " h)\n";
  } else {
    out << "no trial finished\n";
  }
  out << "makespan " << report_format::value(s.makespan_s) << " s (" << report_format::format("%.2f", s.makespan_s / 3600)
      << " h)\nGPU-hours " << report_format::format("%.1f", s.gpu_hours) << "\nmean wait "
      << report_format::value(s.mean_wait_s) << " s\nutilization " << report_format::percent(s.utilization, false) << "\n";
  return out.str();
}

std::string campaign_to_csv(const CampaignResult& result) {
  std::ostringstream out;
  out << "trial,rung,steps,budget_steps,submit_s,start_s,end_s,nodes,killed,loss\n";
  for (const CampaignJob& job : result.jobs) {
    const ScheduledJob& j = job.run.scheduled;
    out << job.trial << "," << job.rung << "," << job.steps << "," << job.budget << "," << number(j.job.submit_s) << ","
        << number(j.start_s) << "," << number(j.end_s) << "," << j.job.nodes << "," << (j.killed ? "true" : "false") << ","
        << (job.loss ? number(*job.loss) : "") << "\n";
  }
  return out.str();
}

}  // namespace hpcsim
