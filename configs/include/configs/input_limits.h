#pragma once
// The limits every input is read under, so that no input can take the machine's memory or stack, or
// push a simulated time out of its range: a YAML file (or a --set value) is refused past them with its
// file:line:column and exit 2.
#include <cstddef>
#include <string>

namespace hpcsim::input_limits {

// Bytes of one input file. The largest shipped YAML is under 30 KiB; a job list of 60,000 jobs is ~3 MiB.
inline constexpr std::size_t max_file_bytes = std::size_t{64} << 20;
// Bytes of one trace (SWF, serving arrivals), read whole: the largest public SWF logs are a few hundred MB.
inline constexpr std::size_t max_trace_bytes = std::size_t{1} << 30;
// Values (maps, lists, scalars, empty values) in one YAML input, aliases expanded: a parsed value takes
// ~270 bytes (measured; more with long file names), so ~300 MiB at most. A job list of 150,000 jobs fits.
inline constexpr std::size_t max_yaml_values = 1'000'000;
// Values that aliases may add by copying their anchors: a few hundred bytes of aliases each repeating the
// one before ("billion laughs") would otherwise expand to gigabytes.
inline constexpr std::size_t max_alias_values = 100'000;
// Nesting of maps and lists. The shipped files nest at most 8 deep; every reader of the tree recurses.
inline constexpr std::size_t max_yaml_depth = 64;
// Keys of one map: a key is found by a linear search, so a map of a million keys would take minutes to
// build. The largest shipped map has a few dozen.
inline constexpr std::size_t max_map_keys = 10'000;

// The simulator's range for values of a quantity key (Schema checks every one): simulated time spans
// +-2^95 ps (~1.25e9 years), so sums of many input times stay far inside it when each is at most ~31.7
// years; a rate below 1 per second (1e-300 B/s) turns one byte into an out-of-range time or a stall.
inline constexpr double max_time_s = 1e9;
inline constexpr double min_positive_rate = 1;  // B/s, op/s or Hz
// The largest rate and size: 1e21 B/s (or op/s, Hz) and 1e21 B are a million times the largest real
// machine's figures, and products and sums of many of them stay finite (1e308 Gb/s made nan capacities).
inline constexpr double max_rate = 1e21;
inline constexpr double max_bytes = 1e21;

// The range of every integer key (Schema::integer) unless the key is wide (seeds, ids, dataset samples):
// the model reads counts into int, and 2^31 wrapped to a negative count (an internal error or a crash).
inline constexpr long long max_int = 2147483647;

}  // namespace hpcsim::input_limits

namespace hpcsim {

// Throws ConfigError naming `path` when the trace file is larger than input_limits::max_trace_bytes.
void check_trace_size(const std::string& path);

}  // namespace hpcsim
