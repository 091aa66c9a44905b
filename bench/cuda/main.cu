// hpcsim-cuda-bench: measures the GPU quantities hpcsim's models are calibrated with and writes them as CSV.
// Argument handling comes first and never touches the CUDA runtime, so --help and --list work anywhere.
#include "check.h"
#include "context.h"
#include "csv_writer.h"
#include "device_info.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace {

struct Bench {
  const char* name;
  const char* what;
  void (*run)(hcb::Context&);
};

// Run order; --only selects from this list but never reorders it.
const Bench kBenches[] = {
    {"launch", "empty-kernel launch cost per launch, one by one and as a CUDA graph", hcb::run_launch},
    {"copy", "device-to-device cudaMemcpyAsync bandwidth", hcb::run_copy},
    {"triad", "STREAM triad kernel bandwidth (fp32)", hcb::run_triad},
    {"pcie", "pinned host<->device cudaMemcpyAsync bandwidth", hcb::run_pcie},
    {"gemm", "cublasGemmEx throughput for fp32, tf32, fp16, bf16", hcb::run_gemm},
    {"occupancy", "driver-reported blocks per SM for kernels of differing register/shared-memory use",
     hcb::run_occupancy},
    {"pointer-chase", "dependent-load latency in SM cycles against footprint (4 KiB to >= 4x L2)",
     hcb::run_pointer_chase},
    {"coalescing", "strided fp32 reads, stride 1..32 elements: bandwidth the threads see", hcb::run_coalescing},
    {"bank-conflicts", "shared-memory loads with lane stride 1..32 words: SM cycles per warp load",
     hcb::run_bank_conflicts},
    {"divergence", "1..32 code paths per warp, same work per thread: kernel time", hcb::run_divergence},
    {"fma-ilp", "1..8 independent fp32 FMA chains per thread: cycles per FMA and FLOP rate", hcb::run_fma_ilp},
    {"occupancy-sweep", "streaming read at several block sizes and register counts: bandwidth",
     hcb::run_occupancy_sweep},
    {"overlap", "host-to-device copy beside a kernel on two streams, pinned vs pageable", hcb::run_overlap},
    {"special-functions", "exponential, reciprocal and type-conversion chains: results per SM per clock",
     hcb::run_special_functions},
};

const char kUsage[] =
    "Usage: hpcsim-cuda-bench [--out FILE] [--only NAME[,NAME...]] [--quick] [--header KEY=VALUE]... [--help]\n"
    "                         [--list]\n"
    "\n"
    "Runs GPU microbenchmarks on CUDA device 0 (choose another with CUDA_VISIBLE_DEVICES) and writes\n"
    "CSV: '# key: value' header lines, then benchmark,params,metric,value,unit rows.\n"
    "Times are medians over several trials of event-timed repetitions, after a warm-up.\n"
    "\n"
    "  --out FILE     write the CSV to FILE instead of stdout\n"
    "  --only NAMES   run only these benchmarks (comma-separated; see --list)\n"
    "  --quick        fewer sizes and shorter trials\n"
    "  --header KEY=VALUE  add the header line '# KEY: VALUE' (KEY of a-z, 0-9 and _; repeatable)\n"
    "  --list         list the benchmarks and exit\n"
    "  --help         show this help and exit\n"
    "\n"
    "Exit status: 0 success, 1 CUDA/cuBLAS/output error (including no CUDA device), 2 bad arguments.\n";

struct Options {
  std::string out;
  std::vector<bool> selected = std::vector<bool>(std::size(kBenches), true);
  bool quick = false;
  bool help = false;
  bool list = false;
  std::vector<std::pair<std::string, std::string>> header;
};

[[noreturn]] void usage_error(const std::string& message) {
  std::fprintf(stderr, "hpcsim-cuda-bench: %s\nTry 'hpcsim-cuda-bench --help'.\n", message.c_str());
  std::exit(2);
}

void select_only(Options& opt, const std::string& names) {
  std::fill(opt.selected.begin(), opt.selected.end(), false);
  size_t begin = 0;
  while (true) {
    const size_t end = names.find(',', begin);
    const std::string name = names.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    bool found = false;
    for (size_t i = 0; i < std::size(kBenches); ++i) {
      if (name == kBenches[i].name) opt.selected[i] = found = true;
    }
    if (!found) usage_error("unknown benchmark '" + name + "' in --only (see --list)");
    if (end == std::string::npos) break;
    begin = end + 1;
  }
}

// KEY=VALUE for a '# key: value' line: the key must be a plain identifier (it cannot end early at a colon) and
// the value one line.
std::pair<std::string, std::string> header_item(const std::string& item) {
  const size_t eq = item.find('=');
  const std::string key = item.substr(0, eq);
  if (eq == std::string::npos || key.empty() ||
      key.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos) {
    usage_error("--header wants KEY=VALUE with KEY of a-z, 0-9 and _, not '" + item + "'");
  }
  const std::string value = item.substr(eq + 1);
  if (value.empty() || value.find_first_of("\r\n") != std::string::npos) {
    usage_error("--header " + key + " needs a one-line, non-empty value");
  }
  return {key, value};
}

Options parse_args(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_value = false;
    if (const size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = arg.substr(eq + 1);  // accept --out=FILE as well as --out FILE
      arg.resize(eq);
      has_value = true;
    }
    auto take_value = [&]() -> std::string {
      if (has_value) return value;
      if (i + 1 >= argc) usage_error("option '" + arg + "' needs a value");
      return argv[++i];
    };
    auto no_value = [&] {
      if (has_value) usage_error("option '" + arg + "' takes no value");
    };

    if (arg == "--out") {
      opt.out = take_value();
      if (opt.out.empty()) usage_error("option '--out' needs a file name");
    } else if (arg == "--only") {
      select_only(opt, take_value());
    } else if (arg == "--header") {
      opt.header.push_back(header_item(take_value()));
    } else if (arg == "--quick") {
      no_value();
      opt.quick = true;
    } else if (arg == "--help" || arg == "-h") {
      no_value();
      opt.help = true;
    } else if (arg == "--list") {
      no_value();
      opt.list = true;
    } else {
      usage_error("unknown option '" + std::string(argv[i]) + "'");
    }
  }
  return opt;
}

}  // namespace

int main(int argc, char** argv) {
  const Options opt = parse_args(argc, argv);
  if (opt.help) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  if (opt.list) {
    for (const Bench& b : kBenches) std::printf("%-16s %s\n", b.name, b.what);
    return 0;
  }

  hcb::Context ctx;
  if (!hcb::select_device(&ctx.prop)) return 1;

  // Opened only once a device is known, so a machine without one leaves no empty result file behind.
  std::FILE* file = stdout;
  if (!opt.out.empty()) {
    file = std::fopen(opt.out.c_str(), "w");
    if (file == nullptr) hcb::fail(("fopen " + opt.out).c_str(), std::strerror(errno));
  }
  hcb::CsvWriter writer(file);

  ctx.out = &writer;
  ctx.quick = opt.quick;
  ctx.extra_header = opt.header;
  ctx.trials = opt.quick ? 5 : 7;
  ctx.target_ms = opt.quick ? 10.0 : 25.0;
  ctx.warmup_ms = opt.quick ? 20.0 : 50.0;
  CUDA_CHECK(cudaStreamCreateWithFlags(&ctx.stream, cudaStreamNonBlocking));
  CUBLAS_CHECK(cublasCreate(&ctx.cublas));

  hcb::write_header(ctx);
  for (size_t i = 0; i < std::size(kBenches); ++i) {
    if (opt.selected[i]) kBenches[i].run(ctx);
  }

  CUBLAS_CHECK(cublasDestroy(ctx.cublas));
  CUDA_CHECK(cudaStreamDestroy(ctx.stream));
  if (writer.failed() || (file != stdout && std::fclose(file) != 0)) {
    hcb::fail(opt.out.empty() ? "write stdout" : ("write " + opt.out).c_str(), std::strerror(errno));
  }
  return 0;
}
