// A batch's inputs copied from host memory to the GPU before it runs, when requests arrive through a
// network front end (InferenceSetup::host_input_bytes): the batch's bytes at the PCIe link's payload
// bandwidth, serial with the batch on its worker (the server runs copy and model in one execution).
#include "forward_pass.h"

namespace hpcsim::inference_detail {

double input_copy_s(const InferenceSetup& setup, int batch) {
  if (setup.host_input_bytes <= 0 || !setup.on_gpu() || !setup.node.pcie.link) return 0;
  return setup.host_input_bytes * batch / setup.node.pcie.link->payload_bandwidth(setup.node.pcie.lanes);
}

}  // namespace hpcsim::inference_detail
