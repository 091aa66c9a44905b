// The serving front end's share of a batch's service time (Triton: gRPC receive and deserialize, the
// dynamic batcher's scheduling, the response; then the batch's inputs copied host to GPU before the
// engine runs). Per request and per batch as the framework profile's request_path gives them; the copy
// at the PCIe link's payload bandwidth, one request's input tensor per request.
#include "forward_pass.h"

namespace hpcsim::inference_detail {

namespace {

// Values one request sends: the model's first layer's inputs for one sample.
double input_values_per_request(const Model& model) {
  for (const Network& net : model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      double values = 0;
      for (const Shape& s : n.input_shapes) values += static_cast<double>(elements(s));
      return values;
    }
  }
  return 0;
}

}  // namespace

double request_path_s(const InferenceSetup& setup, int batch) {
  if (!setup.framework.request_path || !setup.on_gpu()) return 0;
  const RequestPath& path = *setup.framework.request_path;
  double copy_s = 0;
  if (setup.node.pcie.link) {
    const double bytes = input_values_per_request(setup.model) * path.input_bytes_per_value * batch;
    copy_s = bytes / setup.node.pcie.link->payload_bandwidth(setup.node.pcie.lanes);
  }
  return path.per_batch_s + batch * path.per_request_s + copy_s;
}

}  // namespace hpcsim::inference_detail
