#pragma once
// Runs scripts/report_figures.py (matplotlib) on the CSVs of a report folder.
#include <string>

namespace hpcsim::cli {

enum class FigureScriptOutcome {
  drawn,          // the PNGs are in the folder
  no_matplotlib,  // no python3 with matplotlib was found (tried: $HPCSIM_PYTHON, else python3, /usr/bin/python3)
  failed,         // the script ran and failed; it printed why on stderr
};

struct FigureScriptResult {
  FigureScriptOutcome outcome = FigureScriptOutcome::failed;
  std::string detail;  // the interpreters tried, or the script's exit status
};

// The script: $HPCSIM_REPORT_SCRIPT when set, else the source tree's scripts/report_figures.py (fixed at
// build time, as configs/ is).
std::string figure_script_path();

FigureScriptResult run_figure_script(const std::string& folder);

}  // namespace hpcsim::cli
