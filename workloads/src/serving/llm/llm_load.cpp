#include "workloads/serving/llm/llm_load.h"

#include <stdexcept>
#include <string>

#include "workloads/serving/request_arrival.h"

namespace hpcsim {

LlmLoad llm_replica_load(const ServingConfig& serving, std::int64_t input_len, std::int64_t output_len, int replica) {
  const int replicas = serving.replicas;
  if (replica < 0 || replica >= replicas) throw std::invalid_argument("replica index out of range");
  if (serving.closed_loop()) {
    if (serving.concurrency % replicas != 0) {
      throw std::invalid_argument("concurrency " + std::to_string(serving.concurrency) + " does not divide over " +
                                  std::to_string(replicas) + " replicas");
    }
    if (input_len < 1 || output_len < 1) throw std::invalid_argument("a closed loop of LLM requests needs input_len and output_len");
    const std::int64_t requests = serving.requests / replicas + (replica < serving.requests % replicas ? 1 : 0);
    return LlmClosedLoop{serving.concurrency / replicas, requests, input_len, output_len};
  }
  std::vector<LlmRequest> share;
  const std::vector<RequestArrival> arrivals = generate_arrivals(serving);
  for (std::size_t i = static_cast<std::size_t>(replica); i < arrivals.size(); i += static_cast<std::size_t>(replicas)) {
    const RequestArrival& a = arrivals[i];
    const std::int64_t in = a.input_len > 0 ? a.input_len : input_len, out = a.output_len > 0 ? a.output_len : output_len;
    if (in < 1 || out < 1) throw std::invalid_argument("LLM requests need input_len and output_len (workload or trace)");
    share.push_back({a.time_s, in, out});
  }
  return share;
}

}  // namespace hpcsim
