// `hpcsim microbench --gpu NAME [--bench NAME] [--format table|csv|json] [--explain] [--trace FILE]`: the CUDA
// suite's benchmarks run in WarpSim, written in the suite's CSV schema so `hpcsim validate --measured` reads them.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>

#include "commands.h"
#include "progress.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/json_writer.h"
#include "configs/loader.h"
#include "models/gpu/warp_sim/microbenchmarks.h"
#include "models/gpu/warp_sim/program_yaml.h"
#include "report/gpu_tool_report.h"
#include "report/warp_sim_report.h"

namespace hpcsim::cli {

namespace {

struct MicrobenchOptions {
  std::string gpu;
  std::string bench;
  std::string kernel;
  std::string format = "csv";
  std::string point;
  std::string trace;
  bool explain = false;
  bool all_sms = false;
};

std::string number(double v) { return json::number(v, 6); }

void write_csv(const GpuSpec& gpu, const std::vector<MicrobenchRow>& rows) {
  std::cout << "# hpcsim-cuda-bench 1\n"
            << "# gpu: " << gpu.name << " (WarpSim twin, hpcsim microbench)\n"
            << "# compute_capability: " << gpu.compute_capability << "\n"
            << "# sm_count: " << gpu.sm_count << "\n"
            << "benchmark,params,metric,value,unit\n";
  for (const MicrobenchRow& r : rows) {
    std::cout << r.benchmark << "," << r.params << "," << r.metric << "," << number(r.value) << "," << r.unit << "\n";
  }
}

void write_table(const GpuSpec& gpu, const std::vector<MicrobenchRow>& rows) {
  std::cout << "WarpSim microbenchmarks on " << gpu.name << "\n";
  std::printf("  %-16s %-34s %-22s %12s  %s\n", "benchmark", "params", "metric", "value", "unit");
  for (const MicrobenchRow& r : rows) {
    std::printf("  %-16s %-34s %-22s %12s  %s\n", r.benchmark.c_str(), r.params.c_str(), r.metric.c_str(),
                number(r.value).c_str(), r.unit.c_str());
  }
}

void write_json(const GpuSpec& gpu, const std::vector<MicrobenchRow>& rows) { std::cout << microbench_json(gpu, rows); }

// A kernel of the user's own in WarpSim's YAML form (program_yaml.h): its explanation, or one row per figure.
int run_kernel_file(const MicrobenchOptions& o, const GpuSpec& gpu, WarpSimOptions options) {
  KernelProgram program;
  WarpSimResult r;
  // --all-sms simulates every block (3-4 us a warp instruction): a large kernel runs for minutes.
  Progress progress("microbench", "blocks", 0, o.format);
  if (progress.enabled()) options.progress = progress.counter();
  try {
    const FinishOnExit end(progress);
    program = parse_kernel_program(load_config_file(o.kernel));
    r = simulate_kernel(gpu, program, options);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::exception& e) {  // a launch the GPU cannot run, units it lacks, a deadlock
    std::cerr << "--kernel " << o.kernel << ": " << e.what() << "\n";
    return kExitBadInput;
  }
  if (o.explain) {
    std::cout << explain_warp_sim(gpu, program, r);
  } else {
    const std::vector<MicrobenchRow> rows = {
        {program.name, "", "time_us", r.time_s * 1e6, "us"},
        {program.name, "", "hbm_gbps", r.kernel_hbm_bytes() / r.time_s / 1e9, "GB/s"},
        {program.name, "", "tflops", r.kernel_flops() / r.time_s / 1e12, "TFLOP/s"},
        {program.name, "", "warp_instructions", r.kernel_warp_instructions(), "instructions"}};
    if (o.format == "csv") write_csv(gpu, rows);
    else if (o.format == "json") write_json(gpu, rows);
    else write_table(gpu, rows);
  }
  if (!o.trace.empty()) {
    std::ofstream out(o.trace);
    out << warp_sim_trace_json(program.name, r);
    if (!out) {
      std::cerr << "--trace " << o.trace << ": cannot write the file\n";
      return kExitBadInput;
    }
  }
  return kExitOk;
}

int run(const MicrobenchOptions& o) {
  GpuSpec gpu;
  try {
    gpu = gpu_from_flag(SpecCatalog(config_root()), o.gpu);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  if (!gpu.warp_sim) {
    std::cerr << "--gpu " << o.gpu << ": the spec has no warp_sim: section, which WarpSim needs\n";
    return kExitBadInput;
  }
  const bool keep = o.explain || !o.trace.empty();
  if (!o.point.empty() && !keep) {
    std::cerr << "--point " << o.point << ": it picks the kernel --explain or --trace shows; give one of them\n";
    return kExitBadInput;
  }
  if (keep && o.bench.empty() && o.kernel.empty()) {
    std::cerr << "hpcsim microbench: --explain and --trace need --bench or --kernel (they show one kernel)\n";
    return kExitBadInput;
  }
  WarpSimOptions options;
  options.all_sms = o.all_sms;
  options.trace = !o.trace.empty();
  if (!o.kernel.empty()) return run_kernel_file(o, gpu, options);
  std::vector<std::string> benches = o.bench.empty() ? microbench_names() : std::vector<std::string>{o.bench};
  std::vector<MicrobenchRow> rows;
  MicrobenchRun last;
  // The whole suite runs ~10 s, ~75 s with --all-sms (a V100).
  Progress progress("microbench", "benchmarks", benches.size(), o.format);
  for (std::size_t done = 0; done < benches.size(); ++done) {
    const std::string& name = benches[done];
    progress.show(done);
    try {
      last = run_microbench(gpu, name, options, keep);
    } catch (const std::invalid_argument& e) {
      progress.finish();
      std::cerr << (o.bench.empty() ? "hpcsim microbench: " : "--bench " + o.bench + ": ") << e.what() << "\n";
      return kExitBadInput;
    }
    rows.insert(rows.end(), last.rows.begin(), last.rows.end());
  }
  progress.show(benches.size());
  progress.finish();
  const MicrobenchKernel* shown = nullptr;
  if (keep) {
    if (o.point.empty()) {
      shown = &last.kernels.back();
    } else {
      for (const MicrobenchKernel& k : last.kernels) {
        if (k.params == o.point) shown = &k;
      }
      if (!shown) {
        std::cerr << "--point " << o.point << ": no such kernel in " << o.bench << " (params as in its rows, e.g. "
                  << last.kernels.front().params << ")\n";
        return kExitBadInput;
      }
    }
  }
  if (o.explain) {
    std::cout << explain_warp_sim(gpu, shown->program, shown->result);
  } else if (o.format == "csv") {
    write_csv(gpu, rows);
  } else if (o.format == "json") {
    write_json(gpu, rows);
  } else {
    write_table(gpu, rows);
  }
  if (!o.trace.empty()) {
    std::ofstream out(o.trace);
    out << warp_sim_trace_json(shown->program.name + " " + shown->params, shown->result);
    if (!out) {
      std::cerr << "--trace " << o.trace << ": cannot write the file\n";
      return kExitBadInput;
    }
  }
  return kExitOk;
}

}  // namespace

Action add_microbench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("microbench", "Run the CUDA suite's microbenchmarks in WarpSim, the warp-level GPU model");
  auto o = std::make_shared<MicrobenchOptions>();
  cmd->add_option("--gpu", o->gpu, "GPU spec name (see `hpcsim list gpus`); needs a warp_sim: section")->required();
  cmd->add_option("--bench", o->bench, "One benchmark: pointer-chase, coalescing, bank-conflicts, divergence, fma-ilp, "
                                       "occupancy-sweep, copy, triad, gemm (default: all)")
      // An empty name ran them all, silently, as if the flag were left out.
      ->check(CLI::Validator([](std::string& name) { return name.empty() ? "give a benchmark name (leave --bench out "
                                                                          "to run them all)" : std::string(); },
                             "NAME"));
  cmd->add_option("--kernel", o->kernel, "Run your own kernel, written in WarpSim's YAML form (docs/warp-sim.md)")
      ->excludes(cmd->get_option("--bench"));
  cmd->add_option("--format", o->format, "Output format (default csv: the suite's schema)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  cmd->add_flag("--explain", o->explain,
                "Explain one kernel of --bench in plain words: occupancy, where warp cycles went, memory, roofline");
  cmd->add_option("--trace", o->trace, "Write one kernel's per-SM, per-scheduler timeline as Chrome trace JSON (Perfetto)");
  cmd->add_option("--point", o->point, "The kernel --explain and --trace show, by its params (default: the last row's)");
  cmd->add_flag("--all-sms", o->all_sms, "Simulate every SM instead of one representative SM (slower)");
  return [o] { return run(*o); };
}

}  // namespace hpcsim::cli
