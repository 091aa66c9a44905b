#include "figure_script.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cstdlib>
#include <vector>

extern char** environ;

namespace hpcsim::cli {

namespace {

// report_figures.py exits with this when its interpreter lacks matplotlib: the next interpreter may have it
// (a pyenv or venv python3 first on PATH often does not; Debian's /usr/bin/python3 with python3-matplotlib does).
constexpr int kScriptNoMatplotlib = 3;
constexpr int kNotStarted = -1;

std::vector<std::string> interpreters() {
  if (const char* chosen = std::getenv("HPCSIM_PYTHON"); chosen != nullptr && *chosen != '\0') return {chosen};
  return {"python3", "/usr/bin/python3"};
}

// The exit status of `python script folder`, or kNotStarted when the interpreter is not there.
int run_script(const std::string& python, const std::string& script, const std::string& folder, bool quiet) {
  std::vector<std::string> args{python, script, folder};
  if (quiet) args.insert(args.begin() + 2, "--quiet-without-matplotlib");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (posix_spawnp(&pid, python.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return kNotStarted;
  int status = 0;
  if (waitpid(pid, &status, 0) != pid) return kNotStarted;
  if (!WIFEXITED(status)) return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  // A shell-less exec that failed after fork shows as 127.
  return WEXITSTATUS(status) == 127 ? kNotStarted : WEXITSTATUS(status);
}

}  // namespace

std::string figure_script_path() {
  if (const char* env = std::getenv("HPCSIM_REPORT_SCRIPT"); env != nullptr && *env != '\0') return env;
  return HPCSIM_REPORT_SCRIPT;
}

FigureScriptResult run_figure_script(const std::string& folder) {
  const std::string script = figure_script_path();
  std::string tried;
  const std::vector<std::string> candidates = interpreters();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string& python = candidates[i];
    // Only the last interpreter says it lacks matplotlib: an earlier one's lack is not the user's problem.
    const int status = run_script(python, script, folder, i + 1 < candidates.size());
    if (status == 0) return {FigureScriptOutcome::drawn, python};
    tried += (tried.empty() ? "" : ", ") + python + (status == kNotStarted ? " (not found)" : " (no matplotlib)");
    if (status != kNotStarted && status != kScriptNoMatplotlib)
      return {FigureScriptOutcome::failed, python + " " + script + " exited with status " + std::to_string(status)};
  }
  return {FigureScriptOutcome::no_matplotlib, tried};
}

}  // namespace hpcsim::cli
