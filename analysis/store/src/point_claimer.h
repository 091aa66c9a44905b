#pragma once
// Who claims a study point (results_store.h's claim_study_points), written so that another process can tell
// whether the claimer still runs: "HOST PID START", START being the process's start time, so that a pid the
// system gave to a new process is not taken for the claimer (private to the store).
#include <string>

namespace hpcsim::store {

// A claim from another host cannot be checked; it is taken as abandoned once this old. A point takes seconds,
// at most minutes, so a claim an hour old is a killed sweep's.
inline constexpr double kForeignClaimLeaseS = 3600.0;

// This process as a claimer (a forked worker is its own claimer).
std::string current_claimer();

// True when the claimer surely no longer runs: on this host, no live process with its pid and start time; on
// another host, a claim made more than kForeignClaimLeaseS before `now_s` (seconds since the epoch).
bool claimer_gone(const std::string& claimer, double claimed_at_s, double now_s);

}  // namespace hpcsim::store
