#include "workloads/serving/request_arrival.h"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/input_limits.h"
#include "sim-core/random.h"
#include "workloads/serving/serving_config.h"

namespace hpcsim {

namespace {

// Streams of draws, so the arrival gaps and the state lengths of one seed never share a key.
enum Stream : std::uint64_t { kGap = 1, kDwell = 2 };

// An exponential draw of the given mean: -mean ln(1 - U), U in [0, 1).
double exponential(double mean, std::uint64_t seed, Stream stream, std::uint64_t index) {
  return -mean * std::log1p(-uniform01(seeded_key({seed, stream, index})));
}

}  // namespace

std::vector<RequestArrival> poisson_arrivals(double rate_rps, std::int64_t count, std::uint64_t seed) {
  if (!(rate_rps > 0) || count < 0) throw std::invalid_argument("poisson arrivals need a positive rate and count");
  std::vector<RequestArrival> out(static_cast<std::size_t>(count));
  double t = 0;
  for (std::int64_t i = 0; i < count; ++i) {
    t += exponential(1.0 / rate_rps, seed, kGap, static_cast<std::uint64_t>(i));
    out[static_cast<std::size_t>(i)].time_s = t;
  }
  return out;
}

std::vector<RequestArrival> bursty_arrivals(double rate_rps, const BurstShape& shape, std::int64_t count,
                                            std::uint64_t seed) {
  if (!(rate_rps > 0) || count < 0 || !(shape.ratio >= 1) || !(shape.burst_s > 0) || !(shape.calm_s > 0)) {
    throw std::invalid_argument("bursty arrivals need a positive rate, a ratio >= 1 and positive durations");
  }
  // Long-run share of time in bursts, and the calm rate that makes the mean rate_rps.
  const double burst_share = shape.burst_s / (shape.burst_s + shape.calm_s);
  const double calm_rate = rate_rps / (burst_share * shape.ratio + (1 - burst_share));
  std::vector<RequestArrival> out;
  out.reserve(static_cast<std::size_t>(count));
  bool burst = false;
  std::uint64_t gaps = 0, dwells = 0;
  double t = 0;
  double state_end = exponential(shape.calm_s, seed, kDwell, dwells++);
  while (static_cast<std::int64_t>(out.size()) < count) {
    // Exponential gaps are memoryless: a gap that runs past the state's end restarts at the end at the new rate.
    const double rate = burst ? calm_rate * shape.ratio : calm_rate;
    const double next = t + exponential(1.0 / rate, seed, kGap, gaps++);
    if (next <= state_end) {
      t = next;
      out.push_back({t, 0, 0});
    } else {
      t = state_end;
      burst = !burst;
      state_end = t + exponential(burst ? shape.burst_s : shape.calm_s, seed, kDwell, dwells++);
    }
  }
  return out;
}

std::vector<RequestArrival> parse_arrival_trace(const std::string& text, const std::string& file) {
  std::vector<RequestArrival> out;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (const std::size_t hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    // Fields split at commas; each a number, reported at its column.
    std::vector<std::pair<double, int>> fields;  // value, 1-based column
    std::size_t start = 0;
    while (true) {
      const std::size_t comma = line.find(',', start);
      const std::string field = line.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const std::size_t first = field.find_first_not_of(" \t\r");
      const int column = static_cast<int>(start + (first == std::string::npos ? 0 : first)) + 1;
      const std::string token = first == std::string::npos ? "" : field.substr(first, field.find_last_not_of(" \t\r") - first + 1);
      char* end = nullptr;
      const double value = std::strtod(token.c_str(), &end);
      if (token.empty() || *end != '\0' || !std::isfinite(value)) {
        throw ConfigError({file, number, column}, "field " + std::to_string(fields.size() + 1) +
                                                      " of a trace line is not a number: '" + token + "'");
      }
      fields.emplace_back(value, column);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (fields.size() != 1 && fields.size() != 3) {
      throw ConfigError({file, number, 1}, "a trace line is `time_s` or `time_s,input_len,output_len`; this one has " +
                                               std::to_string(fields.size()) + " fields");
    }
    RequestArrival r;
    r.time_s = fields[0].first;
    if (r.time_s < 0) throw ConfigError({file, number, fields[0].second}, "an arrival time must be >= 0 s");
    if (r.time_s > input_limits::max_time_s) {
      throw ConfigError({file, number, fields[0].second},
                        "an arrival time may be at most 1e9 s (about 31.7 years), the range hpcsim simulates");
    }
    if (!out.empty() && r.time_s < out.back().time_s) {
      throw ConfigError({file, number, fields[0].second}, "arrival times must not decrease (the line before is at " +
                                                              std::to_string(out.back().time_s) + " s)");
    }
    if (fields.size() == 3) {
      for (int k = 1; k <= 2; ++k) {
        const double v = fields[k].first;
        if (v < 1 || v != std::floor(v) || v > 1e9) {
          throw ConfigError({file, number, fields[k].second},
                            std::string(k == 1 ? "input_len" : "output_len") + " must be a whole number of tokens >= 1");
        }
      }
      r.input_len = static_cast<int>(fields[1].first);
      r.output_len = static_cast<int>(fields[2].first);
    }
    out.push_back(r);
  }
  return out;
}

std::vector<RequestArrival> load_arrival_trace(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError({path, 0, 0}, "cannot read the arrival trace");
  check_trace_size(path);
  std::ostringstream text;
  text << in.rdbuf();
  return parse_arrival_trace(text.str(), path);
}

std::vector<RequestArrival> generate_arrivals(const ServingConfig& config) {
  if (config.offline()) return std::vector<RequestArrival>(static_cast<std::size_t>(config.requests));
  switch (config.arrival) {
    case ArrivalKind::poisson: return poisson_arrivals(*config.rate_rps, config.requests, config.seed);
    case ArrivalKind::bursty: return bursty_arrivals(*config.rate_rps, config.burst, config.requests, config.seed);
    case ArrivalKind::trace: break;
  }
  std::vector<RequestArrival> trace = config.trace;
  if (config.rate_rps) {
    // Stretch the trace in time so its mean rate (gaps per second between its first and last request) is rate_rps.
    const double span = trace.empty() ? 0 : trace.back().time_s - trace.front().time_s;
    if (trace.size() < 2 || !(span > 0)) {
      throw std::invalid_argument("a trace stretched to a rate needs two requests at different times");
    }
    const double scale = (static_cast<double>(trace.size() - 1) / span) / *config.rate_rps;
    for (RequestArrival& r : trace) r.time_s *= scale;
  }
  return trace;
}

}  // namespace hpcsim
