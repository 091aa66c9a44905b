#pragma once
// A training scenario (`kind: training`, the default): the cluster, the workload and its parallelism, read
// from a resolved scenario YAML. The scenario sits above training/ (it names a framework, a dataset, a
// model to build): the training core never includes workloads/scenario/ (a test checks).
// Key names follow the scenario contract (cluster / workload / parallelism sections).
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/precision.h"
#include "models/platform/cluster_config.h"
#include "models/storage/filesystem_spec.h"
#include "models/storage/storage_spec.h"
#include "workloads/measured.h"
#include "workloads/resilience/resilience_config.h"
#include "workloads/stragglers/straggler_config.h"
#include "workloads/mixed/mixed_nodes_config.h"
#include "workloads/layers/network.h"
#include "workloads/training/dataset_spec.h"
#include "workloads/training/framework_profile.h"
#include "workloads/training/gan_recipe.h"
#include "workloads/training/input_pipeline.h"
#include "workloads/training/parallel_layout.h"
#include "workloads/training/pipeline_schedule.h"
#include "workloads/training/recompute.h"
#include "workloads/training/sequence_lengths.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim {


// What is trained: a zoo model (or a model YAML) with its size parameters, and how.
// Batches: `micro_batch` samples go through one forward/backward pass on a model replica (default:
// batch_per_gpu, or tokens_per_gpu / seq_len); `microbatches` passes (pipeline microbatches or gradient-
// accumulation steps) make one optimizer step, so global_batch = micro_batch x microbatches x dp.
struct WorkloadConfig {
  std::string model;      // zoo name or path, as written
  ModelParams params;     // seq_len, resolution, layers, hidden, heads, ffn, vocab where given
  Model built;            // the model itself, built while the scenario is read
  int batch_per_gpu = 1;  // samples per pass per replica (the micro batch)
  Precision precision = Precision::bf16;
  OptimizerKind optimizer = OptimizerKind::adamw;
  OptimizerImpl optimizer_impl = OptimizerImpl::foreach;  // PyTorch's default on CUDA
  bool optimizer_impl_given = false;                      // else the framework profile's default
  std::string framework = "pytorch";
  bool compile = false;
  bool cuda_graphs = false;
  // Data-parallel gradients reduced while backward runs; unset: the framework profile's default (a
  // training script can turn it off, e.g. MXNET_HOROVOD_NUM_GROUPS=1, or on, Megatron's --overlap-grad-reduce).
  std::optional<bool> overlap_gradient_reduce;
  bool overlap_param_gather = false;
  Recompute recompute = Recompute::none;  // workload.activation_checkpointing
  // Tensor-parallel communication pipelined with the GEMMs (Megatron-Core --tp-comm-overlap); unset: off,
  // Megatron's default (an assumption where the framework leaves it open).
  std::optional<bool> tp_comm_overlap;
  int steps = 1;
  std::optional<std::string> dataset;  // a name in configs/datasets; none: data already on the GPU
  std::optional<int> loader_workers;   // per GPU; unset: the framework's default
  bool page_cache_warm = false;        // a later epoch: the dataset may sit in the page cache
  double page_cache_fraction = 0.5;    // of each node's host memory the page cache may hold
  int d_steps = 1;                     // GAN: discriminator updates per generator update
  GanRecipe gan;                       // workload.gan; stylegan2 defaults to StyleGAN2-ADA's recipe
  std::optional<MemoryFormat> memory_format;  // unset: the framework's default
  std::optional<AttentionKernel> attention;   // unset: the framework's default
  // Padding: with sequence_lengths, batches are drawn from length bins of length_bin tokens and padded to
  // their longest sample rounded up to pad_multiple (NVIDIA LDDL); without length_bin every sample is
  // padded to seq_len. tokens/s then counts real tokens.
  std::optional<std::int64_t> length_bin;
  std::int64_t pad_multiple = 1;

  // The input pipeline's loader from the keys above, with `workers_per_gpu` loader workers per GPU.
  LoaderConfig loader(int workers_per_gpu) const;
};

struct ParallelismConfig {
  ParallelLayout layout;  // dp resolved when read: every GPU tp x pp x cp leave unless parallelism.dp says
  int zero = 0;       // ZeRO stage 0-3 (3 = fully sharded, as FSDP)
  bool fsdp = false;  // FSDP: ZeRO-3 sharding with per-unit all-gathers (same traffic as zero: 3)
  bool sequence_parallel = false;  // Megatron's sequence parallelism over the tp group (needs tp > 1)
  int microbatches = 1;  // passes per optimizer step (pipeline microbatches or accumulation steps)
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
};

struct TrainingScenario {
  std::string name;
  ClusterConfig cluster;
  std::optional<std::string> storage;  // cluster.storage: a name in configs/storage
  std::optional<StorageSpec> storage_spec;
  std::optional<std::string> filesystem;  // cluster.filesystem: a name in configs/filesystems
  std::optional<FileSystemSpec> filesystem_spec;
  WorkloadConfig workload;
  FrameworkProfile framework;           // configs/frameworks/<workload.framework>
  std::optional<DatasetSpec> dataset;   // configs/datasets/<workload.dataset>
  std::optional<SequenceLengths> sequence_lengths;  // configs/sequence-lengths/<workload.sequence_lengths>
  // With workload.length_bin: the model at each padded length batches run at, and the share of steps.
  struct PaddedModel {
    PaddedLength padded;
    Model model;
  };
  std::vector<PaddedModel> length_mix;
  ParallelismConfig parallelism;
  std::optional<Measurement> measured;  // the `measured:` section of a validation case
  std::optional<ResilienceConfig> resilience;  // the `resilience:` section: a whole run with failures
  std::optional<StragglerConfig> stragglers;   // the `stragglers:` section: slow GPUs and degraded links
  std::optional<MixedNodesConfig> mixed_nodes;  // the `mixed_nodes:` section: a second node type in the job
  std::int64_t global_batch() const {
    return std::int64_t{workload.batch_per_gpu} * parallelism.microbatches * parallelism.layout.dp;
  }
};

// The categories validation figures are reported in (measured.category).
Schema validation_category_schema();
const Schema& training_scenario_schema();
// Validates the tree, resolves node and network names through the catalog and builds the model.
// Inconsistent values (dp x tp x pp x cp other than the GPU count, a global batch that the micro batch
// and dp do not divide, a precision the GPU lacks, an impossible model size) are ConfigErrors at their key.
TrainingScenario parse_training_scenario(const ConfigNode& root, const SpecCatalog& catalog, std::string name);
// The workload section alone (validated by the caller's schema); builds the model.
WorkloadConfig parse_workload(const ConfigNode& workload, const std::filesystem::path& config_root);

}  // namespace hpcsim
