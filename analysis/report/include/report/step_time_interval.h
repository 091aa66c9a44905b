#pragma once
// The band a true step time is expected in: what a calibrated prediction adds to a step's report
// (step_time_interval_s). Drawn by driver/prediction_interval.h from the cross-validated errors.
#include <string>

namespace hpcsim {

struct PredictionInterval {
  std::string cls;         // the entry used
  int rows = 0;
  double low_s = 0, high_s = 0;  // true step time between these
};

}  // namespace hpcsim
