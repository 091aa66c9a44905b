#include "report/replay_report.h"

#include <algorithm>
#include <cstdio>

#include "configs/json_writer.h"

namespace hpcsim {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

}  // namespace

std::string replay_table(const ReplayResult& r, const ReplaySummary& s) {
  std::string out;
  out += "replay " + s.trace + " on " + s.platform + " (" + std::to_string(r.ranks.size()) + " ranks, " +
         std::to_string(r.actions) + " actions, " + std::to_string(r.messages) + " messages; model " + s.model +
         ", collectives " + s.selector + ")\n";
  out += "simulated time: " + fmt("%.6f", r.time_s) + " s\n";
  if (r.critical_path) {
    const ReplayCriticalPath& cp = *r.critical_path;
    out += "critical path: compute " + fmt("%.6f", cp.compute_s) + " s, communication " +
           fmt("%.6f", cp.communication_s) + " s, other " + fmt("%.6f", cp.other_s) + " s; " +
           std::to_string(cp.hops) + " messages between ranks; ends on rank " + std::to_string(cp.end_rank) + "\n";
    // The ranks it passes through, the longest first (the rest in the JSON).
    constexpr std::size_t kShownRanks = 8;
    std::string on;
    for (std::size_t i = 0; i < std::min(kShownRanks, cp.by_rank.size()); ++i)
      on += (i ? ", " : "") + std::string("rank ") + std::to_string(cp.by_rank[i].rank) + " " + fmt("%.6f", cp.by_rank[i].s) +
            " s (" + fmt("%.1f", r.time_s > 0 ? 100 * cp.by_rank[i].s / r.time_s : 0.0) + " %)";
    if (cp.by_rank.size() > kShownRanks) on += ", " + std::to_string(cp.by_rank.size() - kShownRanks) + " more";
    out += "critical path by rank: " + on + "\n";
  }
  std::size_t w = 4;
  for (const std::string& h : s.rank_hosts) w = std::max(w, h.size());
  char line[512];
  std::snprintf(line, sizeof line, "%6s  %-*s  %14s  %14s  %16s  %14s  %10s\n", "rank", static_cast<int>(w), "host",
                "end_s", "compute_s", "communication_s", "waiting_s", "actions");
  out += line;
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const RankTimes& t = r.ranks[i];
    std::snprintf(line, sizeof line, "%6zu  %-*s  %14.6f  %14.6f  %16.6f  %14.6f  %10llu\n", i, static_cast<int>(w),
                  s.rank_hosts[i].c_str(), t.end_s, t.compute_s, t.communication_s, t.waiting_s,
                  static_cast<unsigned long long>(t.actions));
    out += line;
  }
  return out;
}

std::string replay_json(const ReplayResult& r, const ReplaySummary& s) {
  json::Line ranks = json::Line::array();
  for (std::size_t i = 0; i < r.ranks.size(); ++i) {
    const RankTimes& t = r.ranks[i];
    ranks.item(json::Line::object()
                   .field("rank", json::integer(static_cast<std::int64_t>(i)))
                   .field("host", json::quote(s.rank_hosts[i]))
                   .field("end_s", json::number(t.end_s, 12))
                   .field("compute_s", json::number(t.compute_s, 12))
                   .field("communication_s", json::number(t.communication_s, 12))
                   .field("waiting_s", json::number(t.waiting_s, 12))
                   .field("actions", json::integer(static_cast<std::int64_t>(t.actions)))
                   .str());
  }
  json::Line out = json::Line::object();
  out.field("trace", json::quote(s.trace))
      .field("platform", json::quote(s.platform))
      .field("model", json::quote(s.model))
      .field("collectives", json::quote(s.selector))
      .field("simulated_time_s", json::number(r.time_s, 12))
      .field("actions", json::integer(static_cast<std::int64_t>(r.actions)))
      .field("messages", json::integer(static_cast<std::int64_t>(r.messages)))
      .field("ranks", ranks.str());
  if (r.critical_path) {
    const ReplayCriticalPath& cp = *r.critical_path;
    json::Line by_rank = json::Line::array();
    for (const CriticalPathRank& c : cp.by_rank)
      by_rank.item(json::Line::object().field("rank", json::integer(c.rank)).field("s", json::number(c.s, 12)).str());
    out.field("critical_path", json::Line::object()
                                   .field("compute_s", json::number(cp.compute_s, 12))
                                   .field("communication_s", json::number(cp.communication_s, 12))
                                   .field("other_s", json::number(cp.other_s, 12))
                                   .field("messages", json::integer(static_cast<std::int64_t>(cp.hops)))
                                   .field("end_rank", json::integer(cp.end_rank))
                                   .field("by_rank", by_rank.str())
                                   .str());
  }
  return out.str() + "\n";
}

}  // namespace hpcsim
