#include "configs/count_limits.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "configs/config_error.h"

namespace hpcsim {

namespace {

// Costs measured on this project's 2-core build machine (Release, one core), hpcsim 2026-12-05:
// docs/limits.md has the table and the commands.
const std::vector<CountLimitInfo> kTable = {
    {CountLimit::gpus, "gpus", 262144, "GPUs",
     "collective: 27 us and 2.5 KB per GPU (16,384 DGX nodes = 131,072 GPUs: 3.5 s, 330 MB)"},
    {CountLimit::nodes, "nodes", 1e6, "nodes",
     "io clients 220 B and 1 us per node; schedule 15 B and 0.1 us per node"},
    {CountLimit::layers, "layers", 10000, "layers", "training step: 0.35 ms and 20 KB per layer (GPT, 16 GPUs)"},
    {CountLimit::microbatches, "microbatches", 1e6, "microbatches x pipeline stages per step",
     "training step: 4.6 us and 0.4 KB per microbatch and stage"},
    {CountLimit::gan_iterations, "gan_iterations", 10000, "GAN iterations per step",
     "training step: 5.7 ms per iteration of a GAN's regularization cycle (StyleGAN2 1024 px, one V100)"},
    {CountLimit::sweep_points, "sweep_points", 100000, "sweep points",
     "a stored study point each; a point runs 0.05-2 s (100,000 points: hours)"},
    {CountLimit::trials, "trials", 100000, "trials", "campaign: 45 us and 3.6 KB per trial"},
    {CountLimit::configurations, "configurations", 5000, "configurations",
     "plan: 0.4 ms per combination, 12 ms per one valid for the model (screened)"},
    {CountLimit::requests, "requests", 1e6, "requests",
     "serve: 0.6 us and 95 B per request (RoBERTa on g5); an LLM request of 5,000 + 500 tokens 7-54 us"},
    {CountLimit::tokens, "tokens", 4e8, "output tokens",
     "LLM serve: 14 ns per output token in large batches, 0.11-0.15 us one request at a time (an iteration each)"},
    {CountLimit::samples, "samples", 1e8, "samples", "io: 0.2-1 us per sample with up to 64 readers, 17 us with 1,000,000"},
    {CountLimit::readers, "readers", 1e7, "readers", "io: 28 B per reader where the readers are alike, 680 B in an io --storage read"},
    {CountLimit::blocks, "blocks", 1e7, "thread blocks",
     "WarpSim: 6 us per block (a 16-iteration strided read), memory constant"},
    {CountLimit::warp_instructions, "warp_instructions", 2e8, "warp instructions",
     "WarpSim: 22 ns per issued warp instruction (a strided read, 640-6,400 blocks), 3-4 us with --all-sms"},
    {CountLimit::ranks, "ranks", 131072, "MPI ranks",
     "replay: 0.25 KB per rank; 1,024 halo-exchanging ranks on one backbone replay 1.26 M actions/s"},
    {CountLimit::actions, "actions", 2e7, "trace actions",
     "replay: 80 B and 0.2-0.8 us per action (1.26-4.6 M actions/s)"},
    {CountLimit::links, "links", 4e6, "switches and links",
     "network topology: 0.23 us and 47 B per switch or link (a 2-level fat tree of radix 4,000,000: 0.94 s, 190 MB)"},
};

std::vector<double>& current() {
  static std::vector<double> values = [] {
    std::vector<double> v;
    for (const CountLimitInfo& info : kTable) v.push_back(info.default_value);
    return v;
  }();
  return values;
}

std::size_t index_of(CountLimit limit) {
  for (std::size_t i = 0; i < kTable.size(); ++i)
    if (kTable[i].limit == limit) return i;
  throw std::logic_error("a count limit missing from its table");
}

std::string whole(double value) {
  char buffer[64];
  if (value < 1e15) {
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  } else {
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
  }
  // Thousands separators make the counts readable: 131,072.
  std::string digits = buffer;
  if (digits.find_first_of("e.") != std::string::npos) return digits;
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

const std::vector<CountLimitInfo>& count_limit_table() { return kTable; }

double count_limit(CountLimit limit) { return current()[index_of(limit)]; }

void set_count_limit(const std::string& assignment) {
  const std::size_t eq = assignment.find('=');
  const std::string name = assignment.substr(0, eq);
  for (std::size_t i = 0; i < kTable.size(); ++i) {
    if (kTable[i].name != name) continue;
    double value = 0;
    std::size_t used = 0;
    const std::string text = eq == std::string::npos ? "" : assignment.substr(eq + 1);
    try {
      value = std::stod(text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (text.empty() || used != text.size() || !std::isfinite(value) || value < 1 || value != std::floor(value)) {
      throw std::invalid_argument("--limit " + assignment + ": expected NAME=N with N a whole number >= 1");
    }
    current()[i] = value;
    return;
  }
  throw std::invalid_argument("--limit " + assignment + ": unknown limit '" + name + "'; known: " +
                              [&] {
                                std::string all;
                                for (const CountLimitInfo& info : kTable) all += (all.empty() ? "" : ", ") + std::string(info.name);
                                return all;
                              }());
}

std::string count_limit_excess(CountLimit limit, double needed, const std::string& what) {
  const std::size_t i = index_of(limit);
  const double most = current()[i];
  if (needed <= most) return {};
  const CountLimitInfo& info = kTable[i];
  const bool is_default = most == info.default_value;
  return what + " needs " + whole(needed) + " " + info.counts + "; hpcsim simulates at most " + whole(most) +
         (is_default ? " by default" : "") + " (raise it with --limit " + info.name + "=N)";
}

void check_count(CountLimit limit, double needed, const SourceLoc& where, const std::string& what) {
  if (std::string excess = count_limit_excess(limit, needed, what); !excess.empty()) throw ConfigError(where, excess);
}

}  // namespace hpcsim
