#pragma once
// A serving front end (configs/frontends/*.yaml): the server's threads that receive each request over the
// network and parse it before the request reaches the dynamic batcher. Each request holds one thread for a
// fixed time plus its bytes at the thread's receive bandwidth; the model's workers never wait on it, but
// when every thread is busy requests queue for one (Triton's HTTP endpoint has 8 by default:
// docs/inference.md). A GPU worker then copies its batch's inputs to the device at the front end's
// compute-input bandwidth before running it, and gives each request its response after it.
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

struct FrontEndSpec {
  std::string name;
  int threads = 1;
  double per_request_s = 0;      // a thread's time per request whatever its size
  double receive_bandwidth = 0;  // request bytes per second one thread receives and parses
  // Request bytes per second the server's backend moves into the model's input on the GPU (gathering the
  // batch's tensors and copying them from the receive buffers), serial with the batch on its worker.
  double compute_input_bandwidth = 0;
  // The backend's time per request after a batch runs (Triton's "compute output": the response's output
  // buffer, the copy into it and the response sent), serial with the batch on its worker.
  double compute_output_per_request_s = 0;

  // Seconds one thread spends on a request of `bytes`.
  double request_s(double bytes) const { return per_request_s + bytes / receive_bandwidth; }
};

const Schema& front_end_spec_schema();
FrontEndSpec parse_front_end_spec(const ConfigNode& node, std::string name);
// `name_node` names a spec in configs/frontends; an unknown name is a ConfigError at it.
FrontEndSpec load_front_end_spec(const SpecCatalog& catalog, const ConfigNode& name_node);

}  // namespace hpcsim
