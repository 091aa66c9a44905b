// hpcsim report: a results store as a self-contained HTML report with its figures as PNG and CSV files.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "report/report_csv.h"
#include "report/report_data.h"
#include "report/report_html.h"
#include "store/results_store.h"
#include "commands.h"
#include "figure_script.h"

namespace hpcsim::cli {

namespace {

namespace fs = std::filesystem;

struct ReportOptions {
  std::string db;
  std::string out = "report";
};

// Everything a report writes: cleared first, so a folder reused for another store holds no stale figure.
constexpr const char* kOutputFiles[] = {"report.html",        "runs.csv",       "scaling.csv",
                                        "throughput.png",     "scaling_efficiency.png", "step_breakdown.csv",
                                        "step_breakdown.png", "pareto.csv",     "pareto.png",
                                        "checkpoint_interval.csv", "checkpoint_interval.png", "app_scaling.csv",
                                        "app_time.png", "app_efficiency.png", "serve_load.csv",
                                        "serve_latency.png", "replay_time.csv", "replay_time.png"};

struct IoError {
  std::string message;
};

void write_file(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
  out.close();
  if (!out) throw IoError{path.string() + ": cannot write"};
}

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  if (!in) throw IoError{path.string() + ": not written by " + figure_script_path()};
  return bytes.str();
}

std::string counted(std::size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

// A figure the script drew from one of our CSVs.
ReportFigure figure(const fs::path& folder, std::string title, std::string caption, const std::string& png,
                    const std::string& csv) {
  return {std::move(title), std::move(caption), read_file(folder / png), csv};
}

int run(const ReportOptions& o) {
  std::error_code ec;
  if (fs::exists(o.out) && !fs::is_directory(o.out)) {
    std::cerr << "hpcsim report: --out " << o.out << ": exists and is not a folder\n";
    return kExitBadInput;
  }
  ReportData data;
  try {
    const ResultsStore store(o.db, StoreAccess::read);  // never creates nor initialises a file
    data = collect_report_data(store);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim report: " << e.what() << "\n";
    return kExitBadInput;
  }

  const fs::path folder(o.out);
  try {
    if (fs::create_directories(folder, ec); ec) throw IoError{"--out " + o.out + ": " + ec.message()};
    for (const char* name : kOutputFiles)
      if (fs::remove(folder / name, ec); ec) throw IoError{(folder / name).string() + ": " + ec.message()};

    std::vector<std::string> written;
    const auto write = [&](const std::string& name, const std::string& bytes) {
      write_file(folder / name, bytes);
      written.push_back((folder / name).string());
    };
    const bool scaling = !data.scaling.lines.empty();
    const bool breakdown = !data.breakdown.bars.empty();
    const bool pareto = !data.pareto.empty();
    const bool interval = !data.interval.points.empty();
    const bool app_scaling = !data.app_scaling.lines.empty();
    const bool serve_load = !data.serve_load.lines.empty();
    const bool replay_time = !data.replay_time.bars.empty();
    write("runs.csv", runs_csv(data.runs));
    if (replay_time) write("replay_time.csv", replay_time_csv(data.replay_time));
    if (app_scaling) write("app_scaling.csv", app_scaling_csv(data.app_scaling));
    if (serve_load) write("serve_load.csv", serve_load_csv(data.serve_load));
    if (scaling) write("scaling.csv", scaling_csv(data.scaling));
    if (breakdown) write("step_breakdown.csv", breakdown_csv(data.breakdown));
    if (pareto) write("pareto.csv", pareto_csv(data.pareto));
    if (interval) write("checkpoint_interval.csv", interval_csv(data.interval));

    std::vector<ReportFigure> figures;
    std::vector<std::string> notes;
    if (scaling || breakdown || pareto || interval || app_scaling || serve_load || replay_time) {
      const FigureScriptResult drawn = run_figure_script(folder.string());
      if (drawn.outcome == FigureScriptOutcome::no_matplotlib) {
        std::cerr << "hpcsim report: the figures need python3 with matplotlib (tried " << drawn.detail
                  << "); scripts/setup.sh installs Debian's python3-matplotlib, or set HPCSIM_PYTHON to a python3 "
                     "that has it. The CSVs are in "
                  << o.out << "\n";
        return kExitFailure;
      }
      if (drawn.outcome == FigureScriptOutcome::failed) {
        std::cerr << "hpcsim report: drawing the figures failed: " << drawn.detail << "\n";
        return kExitFailure;
      }
    }
    const std::string line_keys = data.scaling.legend_title.empty() ? "scenario" : data.scaling.legend_title;
    if (scaling) {
      figures.push_back(figure(folder, "Throughput against GPU count",
                               "Training throughput of stored training runs whose scenarios differ only in GPU count "
                               "(cluster.nodes, cluster.gpus_per_node, parallelism.dp), one line per " + line_keys +
                                   "; at each GPU count the latest ok run.",
                               "throughput.png", "scaling.csv"));
      figures.push_back(figure(folder, "Scaling efficiency against GPU count",
                               "Throughput per GPU relative to that at the smallest GPU count of the same line; "
                               "100% is linear scaling.",
                               "scaling_efficiency.png", "scaling.csv"));
      written.push_back((folder / "throughput.png").string());
      written.push_back((folder / "scaling_efficiency.png").string());
    } else {
      notes.push_back("No scaling figures: no two ok training runs differ only in their GPU count (e.g. hpcsim sweep "
                      "SCENARIO --vary cluster.nodes=1..16x2 stores such runs).");
    }
    if (app_scaling) {
      const std::string app_keys = data.app_scaling.legend_title.empty() ? "scenario" : data.app_scaling.legend_title;
      figures.push_back(figure(folder, "MPI applications: time against node count",
                               "Time to solution of stored MPI application runs (kind: mpi) whose scenarios differ only in "
                               "their node count (with mpi.ranks, HPL's P and Q) and problem size (workload.n, grid, "
                               "class), one line per " + app_keys + ", marked strong or weak scaling by the work each run "
                               "did; at each node count the latest ok run.",
                               "app_time.png", "app_scaling.csv"));
      figures.push_back(figure(folder, "MPI applications: parallel efficiency against node count",
                               "GFLOP/s per node relative to that at the smallest node count of the same line: "
                               "strong-scaling efficiency where the work is fixed, weak-scaling efficiency where the work "
                               "per node is; 100% is ideal.",
                               "app_efficiency.png", "app_scaling.csv"));
      written.push_back((folder / "app_time.png").string());
      written.push_back((folder / "app_efficiency.png").string());
    } else {
      notes.push_back("No MPI application scaling figures: no two ok mpi runs differ only in their node count (e.g. "
                      "hpcsim sweep examples/hpc/stencil-3d-epyc.yaml --vary cluster.nodes=1..64x2 stores such runs).");
    }
    if (serve_load) {
      const std::string serve_keys = data.serve_load.legend_title.empty() ? "scenario" : data.serve_load.legend_title;
      figures.push_back(figure(folder, "Serving: latency against load",
                               "p99 (solid) and p50 (dotted) latency against the offered request rate, one line per " +
                                   serve_keys + ": the rates of an hpcsim serve --sweep-load run, or stored serve runs "
                                   "that differ only in serving.rate_rps (at each rate the latest ok run).",
                               "serve_latency.png", "serve_load.csv"));
      written.push_back((folder / "serve_latency.png").string());
    } else {
      notes.push_back("No serving latency figure: no serve run with --sweep-load, and no two ok serve runs differ only in "
                      "serving.rate_rps (hpcsim sweep SCENARIO --vary serving.rate_rps=100,200,400 stores such runs).");
    }
    if (replay_time) {
      const std::string keys = data.replay_time.label_keys.empty() ? "run" : data.replay_time.label_keys;
      figures.push_back(figure(folder, "MPI trace replays: where the time went",
                               "For each of the latest ok trace replays (at most 12, labelled by " + keys +
                                   "), the mean rank's compute, communication and waiting time (left bar) and, where the "
                                   "replay followed it (--critical-path), the critical path's compute, communication and "
                                   "other time (right bar, hatched), which sums to the replay's simulated time (the last rank's end).",
                               "replay_time.png", "replay_time.csv"));
      written.push_back((folder / "replay_time.png").string());
    } else {
      notes.push_back("No trace replay figure: the store holds no ok replay run (hpcsim replay TRACE --platform "
                      "PLATFORM --critical-path stores one).");
    }
    if (breakdown) {
      figures.push_back(figure(folder, "Step-time breakdown",
                               "Time per training step split into compute, exposed communication, optimizer, pipeline "
                               "bubble, I/O stall and other, for " + data.breakdown.source + ".",
                               "step_breakdown.png", "step_breakdown.csv"));
      written.push_back((folder / "step_breakdown.png").string());
    } else {
      notes.push_back("No step-time breakdown: the store holds no ok training run.");
    }
    if (pareto) {
      figures.push_back(figure(folder, "Plan: Pareto front",
                               "Time to train against cost of the configurations on the Pareto front of plan run " +
                                   std::to_string(data.pareto.front().run_id) + ", coloured by energy.",
                               "pareto.png", "pareto.csv"));
      written.push_back((folder / "pareto.png").string());
    } else {
      notes.push_back("No Pareto front: the store holds no plan run (hpcsim plan).");
    }
    if (interval) {
      figures.push_back(figure(folder, "Checkpoint interval: time to train with failures",
                               "Time to train (mean, p5 to p95 over the replicas) and the time lost to checkpoints and "
                               "to recomputation against the checkpoint interval, for " + data.interval.label +
                                   ", with Young's and Daly's optima; at each interval the latest ok run.",
                               "checkpoint_interval.png", "checkpoint_interval.csv"));
      written.push_back((folder / "checkpoint_interval.png").string());
    } else {
      notes.push_back("No checkpoint-interval figure: no two ok training runs with a resilience section differ only in "
                      "resilience.checkpoint.interval (hpcsim sweep SCENARIO --vary "
                      "resilience.checkpoint.interval=300,600,1200 stores such runs).");
    }
    write("report.html", report_html(fs::path(o.db).filename().string(), figures, notes, data.runs));
    for (const std::string& f : written) std::cout << f << "\n";
    std::cout << (folder / "report.html").string() << ": " << counted(figures.size(), "figure") << ", "
              << counted(data.runs.size(), "run") << " from " << o.db << "\n";
    return kExitOk;
  } catch (const IoError& e) {
    std::cerr << "hpcsim report: " << e.message << "\n";
    return kExitFailure;
  } catch (const fs::filesystem_error& e) {
    std::cerr << "hpcsim report: " << e.what() << "\n";
    return kExitFailure;
  }
}

}  // namespace

Action add_report_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "report", "Write an HTML report of a results database: scaling (training and MPI applications), serving latency against load, where trace replays spent their time, step-time breakdown, Pareto and checkpoint-interval figures "
                "(PNG, with the CSV behind each) and the table of runs");
  auto o = std::make_shared<ReportOptions>();
  cmd->add_option("database", o->db, "SQLite results file, e.g. results.db")->required();
  cmd->add_option("--out", o->out, "Folder for report.html, the PNG figures and their CSVs (created if absent)")
      ->capture_default_str();
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli
