#pragma once
// How much one command may simulate: every count or size that makes a run take memory or time in proportion
// (GPUs, nodes, layers, microbatches, sweep points, trials, plan configurations, requests, LLM output tokens,
// samples, readers, blocks, warp instructions, MPI ranks, trace actions and a fabric's switches and links) is checked
// against its limit where it enters, and refused with exit 2 naming the number it would need, the limit, and
// how to raise it: every command takes `--limit NAME=N` (the one way, repeatable). The defaults are where a
// run still fits in about 1-2 GiB and a minute on a laptop core, from measured costs per unit (docs/limits.md).
#include <cstdint>
#include <string>
#include <vector>

#include "configs/source_loc.h"

namespace hpcsim {

enum class CountLimit {
  gpus, nodes, layers, microbatches, gan_iterations, sweep_points, trials, configurations, requests, tokens,
  samples, readers, blocks, warp_instructions, ranks, actions, links
};

struct CountLimitInfo {
  CountLimit limit;
  const char* name;      // as --limit writes it
  double default_value;
  const char* counts;    // what is counted, for the message and docs
  const char* cost;      // the measured cost per unit that sets the default (docs/limits.md)
};

// The one table of limits (names, defaults, what each counts), in docs order.
const std::vector<CountLimitInfo>& count_limit_table();

// The limit now: its default unless --limit raised (or lowered) it in this process.
double count_limit(CountLimit limit);

// "NAME=N" from a --limit flag: sets the limit for this process. std::invalid_argument with a message naming the
// flag for an unknown name or an N that is not a whole number >= 1.
void set_count_limit(const std::string& assignment);

// Empty when `needed` is within the limit; otherwise what check_count says: "<what> needs N <counts>; hpcsim
// simulates at most M by default (raise it with --limit NAME=N)", for a caller that adds the place itself.
std::string count_limit_excess(CountLimit limit, double needed, const std::string& what);

// Throws ConfigError at `where` (a key's file:line:column, or a flag as SourceLoc{"--flag VALUE"}) when `needed`
// is above the limit: "<what> needs N <counts>; hpcsim simulates at most M by default (raise with --limit
// NAME=N)". `what` says what asked for them ("the cluster", "the grid"), with its numbers where they help.
void check_count(CountLimit limit, double needed, const SourceLoc& where, const std::string& what);

}  // namespace hpcsim
