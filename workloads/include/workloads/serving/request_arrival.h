#pragma once
// When requests reach the endpoint: seeded Poisson and bursty (two-state Markov-modulated Poisson)
// processes, and trace files. Draws are counter-based (sim-core/random.h), so the same
// seed gives the same arrivals on every platform.
#include <cstdint>
#include <string>
#include <vector>

namespace hpcsim {

struct ServingConfig;

struct RequestArrival {
  double time_s = 0;
  int input_len = 0;   // tokens, 0: the workload's (a trace's optional second column)
  int output_len = 0;  // tokens, 0: the workload's (a trace's optional third column)
};

// `count` arrivals of a Poisson process of `rate_rps`, from time 0.
std::vector<RequestArrival> poisson_arrivals(double rate_rps, std::int64_t count, std::uint64_t seed);
// `count` arrivals of the two-state MMPP (serving_config.h's BurstShape) whose mean rate is rate_rps,
// starting in a calm.
struct BurstShape;
std::vector<RequestArrival> bursty_arrivals(double rate_rps, const BurstShape& shape, std::int64_t count,
                                            std::uint64_t seed);

// A trace: one request per line, `time_s[,input_len,output_len]` (seconds from the trace's start;
// whitespace around fields ignored), `#` starts a comment, blank lines are skipped. Times must not
// decrease. A malformed line is a ConfigError at file:line:column.
std::vector<RequestArrival> parse_arrival_trace(const std::string& text, const std::string& file);
std::vector<RequestArrival> load_arrival_trace(const std::string& path);

// The open-loop arrivals a config asks for: its process at its rate, or its trace (stretched so its mean
// rate is rate_rps when that is given). Offline configs: every request at time 0.
std::vector<RequestArrival> generate_arrivals(const ServingConfig& config);

}  // namespace hpcsim
