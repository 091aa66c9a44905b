#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "report/report_csv.h"
#include "report/report_data.h"
#include "report/report_html.h"
#include "store/results_store.h"
#include "analysis/temp_path.h"

using namespace hpcsim;
using hpcsim::test::TempPath;

namespace {

std::string scenario(const std::string& network, int nodes) {
  return "name: qs\ncluster:\n  node: dgx-a100-80gb\n  nodes: " + std::to_string(nodes) + "\n  network: " + network +
         "\nworkload:\n  model: gpt\nparallelism:\n  dp: " + std::to_string(8 * nodes) + "\n";
}

StoredRun stored(std::int64_t id, const std::string& kind, const std::string& text, const std::string& status = "ok") {
  StoredRun r;
  r.id = id;
  r.kind = kind;
  r.status = status;
  r.scenario_text = text;
  return r;
}

struct Runs {
  std::vector<StoredRun> runs;
  std::vector<std::vector<Metric>> metrics;
  void add(const std::string& text, double gpus, double samples_per_s, const std::string& kind = "training",
           const std::string& status = "ok") {
    runs.push_back(stored(static_cast<std::int64_t>(runs.size()) + 1, kind, text, status));
    metrics.push_back({{"gpus", gpus, "count"},
                       {"throughput.samples_per_s", samples_per_s, "1/s"},
                       {"throughput.tokens_per_s", samples_per_s * 2048, "1/s"}});
  }
};

}  // namespace

TEST_CASE("scaling lines group training runs by everything but their GPU count", "[analysis][report]") {
  Runs r;
  r.add(scenario("ib-hdr", 1), 8, 100);
  r.add(scenario("ib-hdr", 2), 16, 190);
  r.add(scenario("eth-100g-tcp", 1), 8, 90);
  r.add(scenario("eth-100g-tcp", 2), 16, 120);
  r.add(scenario("ib-hdr", 4), 32, 360);
  r.add(scenario("ib-hdr", 2), 16, 180);                 // a later run of the same point replaces the first
  r.add(scenario("ib-hdr", 8), 64, 700, "training", "oom");  // not ok: not plotted
  r.add(scenario("ib-hdr", 8), 64, 700, "schedule");         // not training: not plotted
  r.add(scenario("eth-200g", 1), 8, 95);                     // a single GPU count is no scaling line
  r.add("{not: [yaml", 8, 95);                               // unreadable scenario text: skipped

  const ScalingFigure figure = scaling_figure(r.runs, r.metrics);
  CHECK(figure.legend_title == "cluster.network");
  REQUIRE(figure.lines.size() == 2);
  const ScalingLine& ib = figure.lines[0];
  CHECK(ib.label == "ib-hdr");
  REQUIRE(ib.points.size() == 3);
  CHECK(ib.points[0].gpus == 8);
  CHECK(ib.points[1].run_id == 6);
  CHECK(ib.points[1].samples_per_s == 180);
  CHECK(ib.points[1].tokens_per_s == Approx(180 * 2048));
  CHECK(ib.points[0].scaling_efficiency == 1.0);
  CHECK(ib.points[1].scaling_efficiency == Approx((180.0 / 16) / (100.0 / 8)));
  CHECK(ib.points[2].scaling_efficiency == Approx((360.0 / 32) / (100.0 / 8)));
  CHECK(figure.lines[1].label == "eth-100g-tcp");
  CHECK(figure.lines[1].points[1].scaling_efficiency == Approx((120.0 / 16) / (90.0 / 8)));
}

TEST_CASE("a single scaling line is labelled by its node type and network", "[analysis][report]") {
  Runs r;
  r.add(scenario("ib-hdr", 1), 8, 100);
  r.add(scenario("ib-hdr", 2), 16, 190);
  const ScalingFigure figure = scaling_figure(r.runs, r.metrics);
  CHECK(figure.legend_title == "cluster.node, cluster.network");
  REQUIRE(figure.lines.size() == 1);
  CHECK(figure.lines[0].label == "dgx-a100-80gb, ib-hdr");
}

TEST_CASE("collect_report_data reads the largest study's breakdown, the plan's front and every run",
          "[analysis][report]") {
  TempPath db("report.db");
  ResultsStore store(db.str());
  Study study;
  study.name = "qs sweep";
  study.base_scenario_text = scenario("ib-hdr", 1);
  for (const char* nodes : {"1", "2"}) {
    StudyPoint point;
    point.values = {{"cluster.network", "ib-hdr"}, {"cluster.nodes", nodes}};
    study.points.push_back(point);
  }
  study.parameters = varied_parameters(study.points);
  const std::int64_t study_id = store.record_study(study);
  for (std::size_t i = 0; i < 2; ++i) {
    RunRecord run;
    run.report = Report{"qs", "training",
                        {{"step_time_s", 1.5 + static_cast<double>(i), "s"},
                         {"throughput.samples_per_s", 100.0 * static_cast<double>(i + 1), "1/s"},
                         {"gpus", 8.0 * static_cast<double>(i + 1), "count"},
                         {"breakdown_s.compute", 1.0, "s"},
                         {"breakdown_s.communication_exposed", 0.25 + static_cast<double>(i), "s"},
                         {"breakdown_s.optimizer", 0.125, "s"},
                         {"breakdown_s.other", 0.125, "s"}}};
    run.scenario_text = scenario("ib-hdr", static_cast<int>(i) + 1);
    store.record_study_point(study_id, i, run);
  }
  RunRecord plan;
  plan.report = Report{"plan", "plan",
                       {{"pareto.time_to_train_s[0]", 86400.0, "s"}, {"pareto.cost_usd[0]", 2e6, "USD"},
                        {"pareto.energy_kwh[0]", 1.5e5, "kWh"}, {"pareto.time_to_train_s[1]", 172800.0, "s"},
                        {"pareto.cost_usd[1]", 1.2e6, "USD"}, {"pareto.nodes[0]", 16.0, "count"},
                        {"pareto.node_index[0]", 1.0, "count"}, {"pareto.network_index[0]", 0.0, "count"},
                        {"pareto.tp[0]", 8.0, "count"}, {"pareto.pp[0]", 2.0, "count"}, {"pareto.dp[0]", 8.0, "count"}}};
  plan.scenario_text = "kind: plan\nhardware:\n  nodes: [dgx-a100-80gb, dgx-h100]\n  networks: [{network: ib-ndr}]\n";
  store.record_run(plan);
  RunRecord schedule;
  schedule.report = Report{"queue", "schedule", {{"mean_wait_s", 12.0, "s"}}};
  schedule.scenario_text = "jobs: []\n";
  schedule.status = "ok";
  store.record_run(schedule);

  const ReportData data = collect_report_data(store);
  REQUIRE(data.breakdown.bars.size() == 2);
  CHECK(data.breakdown.source == "study 1: qs sweep");
  CHECK(data.breakdown.bars[1].label == "network=ib-hdr, nodes=2");
  CHECK(data.breakdown.bars[1].step_time_s == 2.5);
  CHECK(data.breakdown.bars[1].communication_exposed_s == 1.25);
  CHECK(data.breakdown.bars[1].pipeline_bubble_s == 0.0);
  REQUIRE(data.scaling.lines.size() == 1);
  CHECK(data.scaling.lines[0].points[1].scaling_efficiency == Approx(1.0));

  REQUIRE(data.pareto.size() == 2);
  CHECK(data.pareto[0].run_id == 3);
  CHECK(data.pareto[0].energy_kwh == 1.5e5);
  CHECK_FALSE(data.pareto[1].energy_kwh.has_value());  // missing, not zero
  // Each point is labelled with its configuration: node name and network from the plan's lists.
  CHECK(data.pareto[0].label == "16 x dgx-h100, ib-ndr, tp 8 pp 2 dp 8");
  CHECK(data.pareto[1].label == "? x nodes, tp ? pp ? dp ?");  // what the metrics do not give stays unknown

  REQUIRE(data.runs.size() == 4);
  CHECK(data.runs[3].run.kind == "schedule");
  CHECK_FALSE(data.runs[3].gpus.has_value());
  CHECK(data.runs[1].step_time_s == 2.5);
  // Runs of a sweep are told apart by their study point.
  CHECK(data.runs[0].study_point == "study 1: network=ib-hdr, nodes=1");
  CHECK(data.runs[1].study_point == "study 1: network=ib-hdr, nodes=2");
  CHECK(data.runs[3].study_point.empty());
}

TEST_CASE("the CSVs hold the stored values exactly, quoted where needed", "[analysis][report]") {
  CHECK(csv_number(0.1) == "0.1");
  CHECK(std::stod(csv_number(1.0 / 3.0)) == 1.0 / 3.0);
  CHECK(csv_field("a, b") == "\"a, b\"");
  CHECK(csv_field("say \"hi\"") == "\"say \"\"hi\"\"\"");
  CHECK(csv_field("plain") == "plain");

  ScalingFigure figure{"cluster.network", {{"ib-hdr", {{4, 8, 100, 204800.0, 1}, {5, 16, 150, std::nullopt, 0.75}}}}};
  CHECK(scaling_csv(figure) ==
        "line,line_keys,gpus,run_id,samples_per_s,tokens_per_s,scaling_efficiency\n"
        "ib-hdr,cluster.network,8,4,100,204800,1\n"
        "ib-hdr,cluster.network,16,5,150,,0.75\n");
  CHECK(pareto_csv({{7, 86400, 2e6, std::nullopt, "2 x dgx-a100, ib-hdr, tp 8 pp 2 dp 1"}}) ==
        "run_id,time_to_train_s,cost_usd,energy_kwh,label\n7,86400,2e+06,,\"2 x dgx-a100, ib-hdr, tp 8 pp 2 dp 1\"\n");  // shortest form
}

TEST_CASE("the HTML report embeds each figure as a data URI and counts the loaded images", "[analysis][report]") {
  CHECK(base64("") == "");
  CHECK(base64("f") == "Zg==");
  CHECK(base64("fo") == "Zm8=");
  CHECK(base64("foobar") == "Zm9vYmFy");
  CHECK(html_escape("<a & \"b\">") == "&lt;a &amp; &quot;b&quot;&gt;");

  RunRow row;
  row.run.id = 1;
  row.run.scenario_name = "qs [cluster.nodes=<2>]";
  row.run.kind = "training";
  row.run.status = "ok";
  row.gpus = 16;
  row.study_point = "study 1: nodes=2";
  const std::string html =
      report_html("results.db", {{"Throughput", "caption", "\x89PNG", "scaling.csv"}}, {"No Pareto front."}, {row});
  CHECK(html.find("src=\"data:image/png;base64,iVBORw==\"") != std::string::npos);
  CHECK(html.find("href=\"scaling.csv\"") != std::string::npos);
  CHECK(html.find("qs [cluster.nodes=&lt;2&gt;]") != std::string::npos);
  CHECK(html.find("<td>study 1: nodes=2</td>") != std::string::npos);
  CHECK(html.find("data-images-loaded") != std::string::npos);
  CHECK(html.find("No Pareto front.") != std::string::npos);
  CHECK(html == report_html("results.db", {{"Throughput", "caption", "\x89PNG", "scaling.csv"}}, {"No Pareto front."},
                            {row}));  // deterministic: no clock in the page
}

namespace {

std::string resilient(const std::string& name, const std::string& interval) {
  return "name: " + name + "\ncluster:\n  node: dgx-a100-80gb\n  nodes: 2\nresilience:\n  compute_time: 168 h\n"
         "  checkpoint:\n" + (interval.empty() ? std::string("    mode: sync\n") : "    interval: " + interval + "\n    mode: sync\n");
}

void add_resilient(Runs& r, const std::string& text, double interval_s, double mean_s) {
  r.add(text, 16, 100);
  auto& m = r.metrics.back();
  m.push_back({"resilience.checkpoint.interval_s", interval_s, "s"});
  m.push_back({"resilience.time_to_train_s.mean", mean_s, "s"});
  m.push_back({"resilience.time_to_train_s.p5", mean_s - 1, "s"});
  m.push_back({"resilience.time_to_train_s.p95", mean_s + 1, "s"});
  m.push_back({"resilience.lost_s.recompute", interval_s / 2, "s"});
  m.push_back({"resilience.checkpoint.young_interval_s", 600, "s"});
  m.push_back({"resilience.checkpoint.daly_interval_s", 590, "s"});
}

}  // namespace

TEST_CASE("the checkpoint-interval figure: runs that differ only in their interval", "[analysis][report]") {
  Runs r;
  add_resilient(r, resilient("a", "60 s"), 60, 1000);
  add_resilient(r, resilient("a", "10 min"), 600, 900);
  add_resilient(r, resilient("a", ""), 590, 899);        // Daly's: the same scenario without an interval
  add_resilient(r, resilient("b", "60 s"), 60, 50);      // another scenario, fewer intervals
  add_resilient(r, resilient("b", "1 h"), 3600, 60);
  add_resilient(r, resilient("a", "60 s"), 60, 1001);    // a later run of an interval replaces the first
  r.add(resilient("a", "2 h"), 16, 100);                 // no resilience metrics: not a point
  add_resilient(r, resilient("a", "3 h"), 10800, 2000);
  r.runs.back().status = "oom";                          // not ok: not a point

  const IntervalFigure figure = interval_figure(r.runs, r.metrics);
  CHECK(figure.label == "a");
  CHECK(figure.young_s == 600);
  CHECK(figure.daly_s == 590);
  REQUIRE(figure.points.size() == 3);
  CHECK(figure.points[0].interval_s == 60);
  CHECK(figure.points[0].run_id == 6);
  CHECK(figure.points[0].time_to_train_s == 1001);
  CHECK(figure.points[1].interval_s == 590);
  CHECK(figure.points[1].p95_s == 900);
  CHECK(figure.points[2].lost_recompute_s == 300);
  const std::string csv = interval_csv(figure);
  CHECK(csv.rfind("run_id,label,interval_s,time_to_train_s,p5_s,p95_s,ettr,lost_checkpoint_s,lost_recompute_s,young_s,daly_s\n6,a,60,1001,1000,1002,0,0,30,600,590\n", 0) == 0);

  Runs one;  // a single interval is no trade-off
  add_resilient(one, resilient("a", "60 s"), 60, 1000);
  CHECK(interval_figure(one.runs, one.metrics).points.empty());
}

namespace {

// A stored kind: mpi run: a stencil on `nodes` nodes of `network` over `grid`^3 cells.
std::string mpi_scenario(const std::string& network, int nodes, int grid, const std::string& app = "stencil") {
  return "kind: mpi\nname: st\ncluster:\n  node: epyc-7763-2s\n  nodes: " + std::to_string(nodes) + "\n  network: " + network +
         "\nmpi:\n  ranks_per_node: 2\nworkload:\n  app: " + app + "\n  grid: [" + std::to_string(grid) + ", " +
         std::to_string(grid) + ", " + std::to_string(grid) + "]\n";
}

struct MpiRuns {
  std::vector<StoredRun> runs;
  std::vector<std::vector<Metric>> metrics;
  // gflops < 0: the run reports no rate.
  void add(const std::string& text, double nodes, double time_s, double gflops, const std::string& status = "ok",
           const std::string& kind = "mpi") {
    runs.push_back(stored(static_cast<std::int64_t>(runs.size()) + 1, kind, text, status));
    metrics.push_back({{"time_s", time_s, "s"}, {"placement.nodes", nodes, "count"}});
    if (gflops >= 0) metrics.back().push_back({"gflops", gflops, "count"});
  }
};

}  // namespace

TEST_CASE("MPI application lines: node counts of one scenario, strong or weak by the work done", "[analysis][report]") {
  MpiRuns r;
  // Strong scaling on two networks: 1,000 GFLOP of work at every node count.
  r.add(mpi_scenario("ib-hdr", 1, 512), 1, 10.0, 100.0);
  r.add(mpi_scenario("ib-hdr", 2, 512), 2, 5.5, 1000.0 / 5.5);
  r.add(mpi_scenario("eth-100g-tcp", 1, 512), 1, 10.0, 100.0);
  r.add(mpi_scenario("eth-100g-tcp", 2, 512), 2, 6.0, 1000.0 / 6.0);
  r.add(mpi_scenario("ib-hdr", 4, 512), 4, 4.0, 1000.0 / 4.0);
  r.add(mpi_scenario("ib-hdr", 8, 512), 8, 1.0, 1000.0, "error");        // not ok: not plotted
  r.add(mpi_scenario("ib-hdr", 8, 512), 8, 1.0, 1000.0, "ok", "training"); // not mpi: not plotted
  r.add("{not: [yaml", 2, 1.0, 1.0);                                        // unreadable: skipped
  const AppScalingFigure figure = app_scaling_figure(r.runs, r.metrics);
  CHECK(figure.legend_title == "cluster.network");
  REQUIRE(figure.lines.size() == 2);
  const AppScalingLine& ib = figure.lines[0];
  CHECK(ib.label == "ib-hdr");
  CHECK(ib.app == "stencil");
  CHECK(ib.scaling == "strong");
  REQUIRE(ib.points.size() == 3);
  CHECK(ib.points[2].run_id == 5);
  CHECK(*ib.points[0].efficiency == 1.0);
  CHECK(*ib.points[1].efficiency == Approx((1000.0 / 5.5 / 2) / 100.0));  // = 10 x 1 / (5.5 x 2)
  CHECK(*ib.points[2].efficiency == Approx(10.0 / (4.0 * 4)));
  CHECK(figure.lines[1].label == "eth-100g-tcp");

  // Weak scaling: the grid grows with the nodes (each count one size), the work per node the same.
  MpiRuns w;
  w.add(mpi_scenario("ib-hdr", 1, 256), 1, 2.0, 50.0);
  w.add(mpi_scenario("ib-hdr", 8, 512), 8, 2.5, 8 * 100.0 / 2.5);
  const AppScalingFigure weak = app_scaling_figure(w.runs, w.metrics);
  REQUIRE(weak.lines.size() == 1);
  CHECK(weak.lines[0].scaling == "weak");
  CHECK(*weak.lines[0].points[1].efficiency == Approx(2.0 / 2.5));  // weak: T1 / Tn
  CHECK(weak.lines[0].label == "epyc-7763-2s, ib-hdr");

  // Two sizes at one node count: a strong line per size, labelled by it.
  w.add(mpi_scenario("ib-hdr", 8, 256), 8, 0.5, 100.0 / 0.5);
  w.add(mpi_scenario("ib-hdr", 1, 512), 1, 16.0, 800.0 / 16.0);
  const AppScalingFigure split = app_scaling_figure(w.runs, w.metrics);
  REQUIRE(split.lines.size() == 2);
  CHECK(split.legend_title == "workload size");
  CHECK(split.lines[0].label == "grid [256, 256, 256]");
  CHECK(split.lines[0].scaling == "strong");
  CHECK(split.lines[1].label == "grid [512, 512, 512]");

  // A line whose points report no rate has no efficiency and no known kind.
  MpiRuns none;
  none.add(mpi_scenario("ib-hdr", 1, 512), 1, 10.0, -1);
  none.add(mpi_scenario("ib-hdr", 2, 512), 2, 6.0, 0.0);
  const AppScalingFigure unrated = app_scaling_figure(none.runs, none.metrics);
  REQUIRE(unrated.lines.size() == 1);
  CHECK(unrated.lines[0].scaling == "unknown");
  CHECK_FALSE(unrated.lines[0].points[1].efficiency);
  CHECK(app_scaling_csv(unrated) ==
        "line,line_keys,app,scaling,nodes,run_id,time_s,gflops,efficiency\n"
        "\"epyc-7763-2s, ib-hdr\",\"cluster.node, cluster.network\",stencil,unknown,1,1,10,,\n"
        "\"epyc-7763-2s, ib-hdr\",\"cluster.node, cluster.network\",stencil,unknown,2,2,6,,\n");
}

namespace {

std::string serve_scenario(double rate, int max_batch) {
  std::string text = "kind: serve\nname: ep\ncluster:\n  node: g5-2xlarge\nserving:\n  max_batch: " + std::to_string(max_batch) + "\n";
  if (rate > 0) text += "  rate_rps: " + std::to_string(static_cast<int>(rate)) + "\n";
  return text;
}

}  // namespace

TEST_CASE("serving latency lines: runs that differ only in their rate, and --sweep-load runs", "[analysis][report]") {
  std::vector<StoredRun> runs;
  std::vector<std::vector<Metric>> metrics;
  const auto add = [&](const std::string& text, double p99, const std::string& status = "ok", const std::string& kind = "serve") {
    runs.push_back(stored(static_cast<std::int64_t>(runs.size()) + 1, kind, text, status));
    metrics.push_back({{"latency_s.p99", p99, "s"}, {"latency_s.p50", p99 / 2, "s"}, {"throughput_rps", 100, "1/s"},
                       {"dropped", 0, "count"}});
  };
  add(serve_scenario(200, 1), 0.002);
  add(serve_scenario(800, 1), 0.005);
  add(serve_scenario(200, 8), 0.0015);
  add(serve_scenario(800, 8), 0.0025);
  add(serve_scenario(800, 1), 0.006);                  // the latest run at a rate counts
  add(serve_scenario(1600, 1), 0.1, "error");           // not ok: left out
  add(serve_scenario(0, 4), 0.001);                     // offline: no offered rate
  add(serve_scenario(400, 2), 0.001);                   // one rate is no line
  add(serve_scenario(1600, 8), 0.004, "ok", "training");  // not serve
  // A --sweep-load run: its rates as parallel arrays.
  runs.push_back(stored(10, "serve", serve_scenario(0, 16)));
  metrics.push_back({{"latency_s.p99", 1, "s"},
                     {"sweep.rate_rps[0]", 100, "1/s"}, {"sweep.latency_p99_s[0]", 0.001, "s"}, {"sweep.latency_p50_s[0]", 0.0005, "s"},
                     {"sweep.rate_rps[1]", 300, "1/s"}, {"sweep.latency_p99_s[1]", 0.003, "s"}, {"sweep.latency_p50_s[1]", 0.001, "s"},
                     {"sweep.throughput_rps[1]", 299, "1/s"}, {"sweep.dropped[1]", 2, "count"}});
  const ServeLoadFigure figure = serve_load_figure(runs, metrics);
  CHECK(figure.legend_title == "serving.max_batch");
  REQUIRE(figure.lines.size() == 3);
  CHECK(figure.lines[0].label == "1");
  REQUIRE(figure.lines[0].points.size() == 2);
  CHECK(figure.lines[0].points[1].rate_rps == 800);
  CHECK(figure.lines[0].points[1].p99_s == 0.006);
  CHECK(figure.lines[0].points[1].run_id == 5);
  CHECK(figure.lines[1].label == "8");
  CHECK(figure.lines[2].label == "16");
  REQUIRE(figure.lines[2].points.size() == 2);
  CHECK(figure.lines[2].points[1].p99_s == 0.003);
  CHECK(figure.lines[2].points[1].throughput_rps == 299);
  CHECK(figure.lines[2].points[1].dropped == 2);
  CHECK(serve_load_csv(figure).starts_with("line,line_keys,rate_rps,run_id,p50_s,p99_s,throughput_rps,dropped\n"
                                           "1,serving.max_batch,200,1,0.001,0.002,100,0\n"));
}

namespace {

std::string replay_scenario(const std::string& platform, const std::string& collectives) {
  return "kind: \"replay\"\nname: \"halo.txt\"\nreplay:\n  trace: \"halo.txt\"\n  trace_hash: \"d149\"\n  platform: \"" +
         platform + "\"\n  platform_hash: \"" + platform + "-hash\"\n  model: \"mpi\"\n  collectives: \"" + collectives + "\"\n";
}

}  // namespace

TEST_CASE("trace replay bars: the latest ok replays, labelled by what differs, the critical path where followed",
          "[analysis][report]") {
  std::vector<StoredRun> runs;
  std::vector<std::vector<Metric>> metrics;
  const auto add = [&](const std::string& text, double compute, bool path, const std::string& status = "ok",
                       const std::string& kind = "replay") {
    runs.push_back(stored(static_cast<std::int64_t>(runs.size()) + 1, kind, text, status));
    std::vector<Metric> m = {{"time_s", compute + 0.3, "s"}, {"ranks", 16, "count"}, {"mean_rank.compute_s", compute, "s"},
                             {"mean_rank.communication_s", 0.2, "s"}, {"mean_rank.waiting_s", 0.1, "s"}};
    if (path) {
      m.push_back({"critical_path.compute_s", compute, "s"});
      m.push_back({"critical_path.communication_s", 0.25, "s"});
      m.push_back({"critical_path.other_s", 0.05, "s"});
    }
    metrics.push_back(m);
  };
  SECTION("several replays") {
    add(replay_scenario("hdr.yaml", "ompi"), 1.0, true);
    add(replay_scenario("eth.yaml", "ompi"), 2.0, false);
    add(replay_scenario("eth.yaml", "ompi"), 9.0, true, "error");  // not ok: left out
    add(replay_scenario("eth.yaml", "smpi"), 3.0, true, "ok", "mpi");  // not a replay
    add(replay_scenario("hdr.yaml", "smpi"), 4.0, true);
    const ReplayTimeFigure figure = replay_time_figure(runs, metrics);
    // The hashes differ with the platforms but name nothing a reader can use: the platform names them.
    CHECK(figure.label_keys == "replay.platform, replay.collectives");
    REQUIRE(figure.bars.size() == 3);
    CHECK(figure.bars[0].label == "hdr.yaml, ompi");
    CHECK(figure.bars[1].label == "eth.yaml, ompi");
    CHECK(figure.bars[2].label == "hdr.yaml, smpi");
    CHECK(figure.bars[2].run_id == 5);
    CHECK(figure.bars[1].compute_s == 2.0);
    CHECK(figure.bars[1].time_s == 2.3);
    CHECK(!figure.bars[1].critical_path);
    REQUIRE(figure.bars[0].critical_path);
    CHECK(figure.bars[0].critical_path->communication_s == 0.25);
    CHECK(replay_time_csv(figure) ==
          "run_id,label,label_keys,time_s,ranks,compute_s,communication_s,waiting_s,path_compute_s,path_communication_s,"
          "path_other_s\n"
          "1,\"hdr.yaml, ompi\",\"replay.platform, replay.collectives\",1.3,16,1,0.2,0.1,1,0.25,0.05\n"
          "2,\"eth.yaml, ompi\",\"replay.platform, replay.collectives\",2.3,16,2,0.2,0.1,,,\n"
          "5,\"hdr.yaml, smpi\",\"replay.platform, replay.collectives\",4.3,16,4,0.2,0.1,4,0.25,0.05\n");
  }
  SECTION("one replay names its trace and platform; the same replay twice is told apart by run") {
    add(replay_scenario("hdr.yaml", "ompi"), 1.0, true);
    ReplayTimeFigure figure = replay_time_figure(runs, metrics);
    REQUIRE(figure.bars.size() == 1);
    CHECK(figure.bars[0].label == "halo.txt, hdr.yaml");
    add(replay_scenario("hdr.yaml", "ompi"), 1.0, true);
    figure = replay_time_figure(runs, metrics);
    CHECK(figure.label_keys.empty());
    REQUIRE(figure.bars.size() == 2);
    CHECK(figure.bars[1].label == "run 2");
  }
  SECTION("at most 12 bars, the latest") {
    for (int i = 0; i < 15; ++i) add(replay_scenario("p" + std::to_string(i) + ".yaml", "ompi"), 1.0 + i, false);
    const ReplayTimeFigure figure = replay_time_figure(runs, metrics);
    REQUIRE(figure.bars.size() == 12);
    CHECK(figure.bars.front().run_id == 4);
    CHECK(figure.bars.back().run_id == 15);
  }
  SECTION("no replay, no bars") {
    add(replay_scenario("hdr.yaml", "ompi"), 1.0, true, "ok", "training");
    CHECK(replay_time_figure(runs, metrics).bars.empty());
  }
}
