#pragma once
// The two ways a replica runs a forward pass; private to workloads/inference.
#include "workloads/inference/inference_setup.h"

namespace hpcsim::inference_detail {

// Layers a forward pass in eval mode does no work for: the loss (serving has no labels). Dropout is the
// identity in eval mode: a module call, no kernel.
bool is_loss(const std::string& type);

double gpu_forward_s(const InferenceSetup& setup, int batch);
double cpu_forward_s(const InferenceSetup& setup, int batch);
// The copy of a batch's inputs from host memory to the GPU (requests through a front end); 0 otherwise.
double input_copy_s(const InferenceSetup& setup, int batch);

}  // namespace hpcsim::inference_detail
