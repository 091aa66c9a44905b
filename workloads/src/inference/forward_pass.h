#pragma once
// The two ways a replica runs a forward pass; private to workloads/inference.
#include "workloads/inference/inference_setup.h"

namespace hpcsim::inference_detail {

double gpu_forward_s(const InferenceSetup& setup, int batch);
double cpu_forward_s(const InferenceSetup& setup, int batch);
// The copy of a batch's inputs from host memory to the GPU (requests through a front end); 0 otherwise.
double input_copy_s(const InferenceSetup& setup, int batch);

}  // namespace hpcsim::inference_detail
