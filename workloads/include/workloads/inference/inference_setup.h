#pragma once
// One serving replica of a model as a `kind: serve` scenario describes it: the instance (`cluster.node`,
// `cluster.nodes`), the model and how it runs (`workload.{model, precision, framework, compile, threads,
// cpu_backend, seq_len, input_len, output_len}`) and the GPUs per replica (`parallelism.tp`). The request
// stream and the batching policy (`serving:`) are the serving engine's (workloads/serving/).
#include <cstdint>
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"
#include "models/gpu/precision.h"
#include "models/node/node_spec.h"
#include "workloads/layers/network.h"
#include "workloads/training/framework_profile.h"

namespace hpcsim {

struct InferenceSetup {
  std::string node_name;
  NodeSpec node;
  int nodes = 1;        // instances per replica
  int tp = 1;           // GPUs per replica (0 GPUs: the replica runs on the CPU)
  std::string model_name;
  Model model;          // built at seq_len (transformers) or resolution (CNNs)
  Precision precision = Precision::fp32;
  FrameworkProfile framework;
  bool compile = false;
  // The weights are constants of the graph that runs: the framework's runtime holds them so
  // (freezes_weights) or a compiled graph was frozen (workload.freeze: torch.jit.freeze, Inductor's
  // freezing). Batch norms fold into their convolution and the library packs each weight once, at load;
  // otherwise every call hands the library its weights again.
  bool frozen = false;
  // workload.no_grad: false: the forward pass runs with grad mode on, and in eager mode each op also pays
  // the framework's autograd_record (already added to framework.eager.forward_dispatch_s).
  bool records_autograd = false;
  int threads = 0;      // intra-op threads per worker (CPU); 0: every core of the instance
  int workers = 1;      // workers per replica sharing the instance (serving.workers, when given)
  std::int64_t seq_len = 0, input_len = 0, output_len = 0;
  // workload.sequence_lengths: the mean of the requests' real lengths (a framework that packs sequences runs
  // a batch on them, so the model is built at this length). 0: every request is seq_len tokens.
  double mean_tokens = 0;
  std::optional<double> price_per_hour;  // the instance's on-demand price (configs/prices), per replica
  // Bytes of input each request brings into host memory through a network front end (serving.front_end); a
  // GPU replica copies a batch's inputs to the device before running it, at host_input_bandwidth (the front
  // end's compute-input rate) or the PCIe link's payload rate, whichever is slower. 0: inputs already where
  // the model runs.
  double host_input_bytes = 0;
  double host_input_bandwidth = 0;  // 0: the PCIe link's payload rate alone
  // Through a front end, the backend's output stage for each request after the batch (its response's output
  // buffer, the copy into it, the response sent), on the worker's thread: Triton's "compute output".
  double host_output_s_per_request = 0;
  // The batch a GPU engine's kernels were chosen for (framework tunes_for_largest_batch: the endpoint's
  // max_batch); every batch runs them. 0: each batch runs the kernels chosen for it.
  std::int64_t tuned_batch = 0;

  bool on_gpu() const { return node.gpus > 0; }
  // The framework's compiled mode runs: asked for (workload.compile) or the framework's only way (onnxruntime).
  bool compiled() const { return compile || framework.compiled_by_default; }
};

// The serve workload section's keys (model sizes as in training scenarios: layers, resolution).
const Schema& inference_workload_schema();
const Schema& inference_cluster_schema();      // cluster: node, nodes
const Schema& inference_parallelism_schema();  // parallelism: tp
// Reads cluster:, workload: and parallelism.tp (Schema-checked; names resolved through the catalog); reads
// serving.workers when present. Unknown names, precisions the hardware has no units for, a CPU node
// without `cpu.math`, a cpu_backend the node does not name (or one that does not run the precision, or on a
// GPU node), threads x workers beyond the instance's hardware threads and tp beyond the node's GPUs are
// ConfigErrors at their key (file:line:column). A chosen cpu_backend replaces node.cpu.math.library.
InferenceSetup parse_inference_setup(const ConfigNode& root, const SpecCatalog& catalog);

}  // namespace hpcsim
