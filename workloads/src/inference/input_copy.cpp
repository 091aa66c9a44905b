// A batch's inputs copied from host memory to the GPU before it runs, when requests arrive through a
// network front end (InferenceSetup::host_input_bytes): the batch's bytes at the slower of the PCIe link's
// payload bandwidth and the front end's compute-input rate (a server gathers the batch from its receive
// buffers, which are not page-locked, so the copy runs at host-copy speed), serial with the batch on its
// worker (the server runs copy and model in one execution).
#include <algorithm>

#include "forward_pass.h"

namespace hpcsim::inference_detail {

double input_copy_s(const InferenceSetup& setup, int batch) {
  if (setup.host_input_bytes <= 0 || !setup.on_gpu() || !setup.node.pcie.link) return 0;
  double bandwidth = setup.node.pcie.link->payload_bandwidth(setup.node.pcie.lanes);
  if (setup.host_input_bandwidth > 0) bandwidth = std::min(bandwidth, setup.host_input_bandwidth);
  return setup.host_input_bytes * batch / bandwidth;
}

}  // namespace hpcsim::inference_detail
