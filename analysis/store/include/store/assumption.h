#pragma once
// A setting a run's scenario left unstated and took from a default that moves the prediction, with the
// prediction under each alternative (driver/assumptions.h finds them; `hpcsim run` prints them).
#include <string>
#include <vector>

namespace hpcsim {

struct AssumptionAlternative {
  std::string value;       // as the scenario key would take it, e.g. "nhwc"
  double step_time_s = 0;  // the predicted step time with the key set to `value`
  double change = 0;       // step_time_s over the run's prediction, minus 1
  // false: step_time_s is the alternative simulated in full (what `hpcsim run --set KEY=VALUE` gives).
  // true: estimated, on a run too large to simulate again: the run's step plus the change the setting
  // makes to one data-parallel replica (driver/assumptions.h says when and how close that is).
  bool estimated = false;
};

struct Assumption {
  std::string setting;     // the scenario key, e.g. "workload.memory_format"
  std::string assumed;     // the value the run took, e.g. "nchw"
  std::string default_of;  // where that value comes from, e.g. "framework pytorch"
  std::vector<AssumptionAlternative> alternatives;
};

}  // namespace hpcsim
