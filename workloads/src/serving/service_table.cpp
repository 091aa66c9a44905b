#include "workloads/serving/service_table.h"

#include <cmath>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace hpcsim {

BatchServiceTime tabulate_service(const BatchServiceTime& service, int max_batch) {
  if (max_batch < 1) throw std::invalid_argument("a service table needs max_batch >= 1");
  auto table = std::make_shared<std::vector<double>>();  // shared: copies of the callable share one table
  table->reserve(static_cast<std::size_t>(max_batch));
  for (int b = 1; b <= max_batch; ++b) {
    const double s = service(b);
    if (!std::isfinite(s) || s < 0) {
      throw std::invalid_argument("the service time of a batch of " + std::to_string(b) + " is " + std::to_string(s) +
                                  " s (must be finite and >= 0)");
    }
    table->push_back(s);
  }
  return [table](int batch) {
    if (batch < 1 || batch > static_cast<int>(table->size())) {
      throw std::invalid_argument("a batch of " + std::to_string(batch) + " is outside the service table (1.." +
                                  std::to_string(table->size()) + ")");
    }
    return (*table)[static_cast<std::size_t>(batch - 1)];
  };
}

}  // namespace hpcsim
