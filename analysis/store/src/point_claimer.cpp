#include "point_claimer.h"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace hpcsim::store {

namespace {

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "unknown-host";
  std::string host(name);
  for (char& c : host)
    if (c == ' ') c = '_';  // the claim's fields are space-separated
  return host;
}

struct ProcessState {
  bool zombie = false;     // exited, not yet reaped by its parent: gone for our purpose
  std::string start_time;  // clock ticks since boot (/proc/PID/stat field 22)
};

// std::nullopt where /proc cannot be read (no such process, or no /proc).
std::optional<ProcessState> process_state(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!in || !std::getline(in, line)) return std::nullopt;
  const std::size_t paren = line.rfind(')');  // the command name may hold spaces and parentheses
  if (paren == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(paren + 1));
  std::vector<std::string> f;
  for (std::string s; fields >> s;) f.push_back(s);
  if (f.size() < 20) return std::nullopt;
  return ProcessState{f[0] == "Z" || f[0] == "X", f[19]};  // f[0] is field 3 (state), f[19] field 22
}

}  // namespace

std::string current_claimer() {
  const long pid = static_cast<long>(getpid());
  const std::optional<ProcessState> self = process_state(pid);
  return host_name() + " " + std::to_string(pid) + " " + (self ? self->start_time : "-");
}

bool claimer_gone(const std::string& claimer, double claimed_at_s, double now_s) {
  std::istringstream fields(claimer);
  std::string host, start;
  long pid = 0;
  if (!(fields >> host >> pid >> start) || pid <= 0) return true;  // not a claim we wrote
  if (host != host_name()) return now_s - claimed_at_s > kForeignClaimLeaseS;
  if (kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  const std::optional<ProcessState> now = process_state(pid);
  if (!now) return false;  // alive by kill(), and /proc says nothing more
  return now->zombie || (start != "-" && now->start_time != start);
}

}  // namespace hpcsim::store
