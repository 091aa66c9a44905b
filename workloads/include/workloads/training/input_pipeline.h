#pragma once
// The training input pipeline of one data-parallel job: loader workers read samples from storage (or the
// page cache), decode them on CPU cores and copy each GPU's batch over PCIe. The three stages run
// concurrently on successive batches, so the steady-state time per batch is the slowest stage's.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/node/node_spec.h"
#include "models/storage/filesystem_spec.h"
#include "models/storage/storage_spec.h"
#include "workloads/training/dataset_spec.h"

namespace hpcsim {

struct LoaderConfig {
  // Loader processes per GPU (PyTorch DataLoader num_workers; pytorch/examples imagenet's default is 4).
  // 0: the training process loads synchronously, on one core, with no overlap with the step.
  int workers_per_gpu = 4;
  // Batches each GPU's loader may hold ready ahead of the step. 0: no overlap. Depth beyond 1 only
  // absorbs jitter, which this model does not have (every sample costs the mean), so it does not change
  // the steady state.
  int prefetch_batches = 2;
  // A later epoch: each node's page cache holds what the node read before (all of the dataset when it fits;
  // else the share models/storage/page_cache.h gives), and serves those reads from host memory.
  bool page_cache_warm = false;
  double page_cache_fraction = 0.5;  // of host memory the page cache may hold (the rest is the job's)
  bool gpu_decode = false;           // decode on the GPU (DALI); the dataset must allow it
};

struct InputPipelineResult {
  // Steady state: one per-GPU batch delivered to every GPU of every node. The slowest stage when the
  // loader runs ahead (overlapped); the three stages' sum when it does not.
  double seconds_per_batch = 0;
  // per batch: reading every node's samples (all nodes at once); with a partly warm page cache, the storage's
  // reads of the misses and the cache's copies of the hits run side by side, and the longer counts
  double storage_s = 0;
  double decode_s = 0;           // per batch: a GPU's samples over its loader workers' cores
  double h2d_s = 0;              // per batch: a GPU's batch over its PCIe path
  std::string bottleneck;        // "storage" | "decode" | "h2d" | "none" (synthetic data)
  std::string storage_limit;     // what limits the storage stage: the dataset read's bottleneck, "page cache"
  // How busy each resource kind of the storage was while it read (name, utilisation 0..1): the storage
  // system's or file system's stages, in their model's order; empty from the page cache or synthetic data.
  std::vector<std::pair<std::string, double>> storage_use;
  bool from_page_cache = false;  // every read hits the page cache (the dataset fits in it)
  double page_cache_hit = 0;     // the share of the reads the page cache serves (0 when cold)
  bool overlapped = true;        // the loader runs ahead of the step (workers > 0 and prefetch > 0)
  double fill_s = 0;             // before the first batch of an epoch: the stages one after another
  int decode_workers_per_gpu = 0;  // the workers that run at once (capped at the GPU's hardware threads)
  // Their decode capacity in cores' worth: one per worker with a core to itself, the dataset's
  // decode_smt_speedup per core that two workers share on its two hardware threads.
  double decode_cores_per_gpu = 0;
};

// Throws std::invalid_argument for gpus_per_node outside 1..node.gpus, nodes or batch below 1, negative
// workers or prefetch, a real dataset without a storage system, GPU decode the dataset does not allow,
// or a node without a PCIe link.
InputPipelineResult simulate_input_pipeline(const DatasetSpec& dataset, const std::optional<StorageSpec>& storage,
                                            const NodeSpec& node, int gpus_per_node, int nodes,
                                            std::int64_t batch_per_gpu, const LoaderConfig& loader);

// The same with the storage stage on a file system described as hardware (configs/filesystems): every loader
// worker of the job reads whole sample files (an open, then the file) or streams shards, all at once, through
// the file system's client ports, servers, devices and metadata servers (models/storage/io500.h,
// simulate_file_reads); storage_limit names the stage that binds.
InputPipelineResult simulate_input_pipeline(const DatasetSpec& dataset, const FileSystemSpec& filesystem,
                                            const NodeSpec& node, int gpus_per_node, int nodes,
                                            std::int64_t batch_per_gpu, const LoaderConfig& loader);

// GPUs of a node that load a batch: one loader per data-parallel replica (a replica's pipeline and
// tensor-parallel ranks share its input), spread over the job's nodes, at least one and at most the GPUs used.
int loading_gpus_per_node(int dp, int nodes, int gpus_per_node);

// The time a step waits for its input: what the loader cannot hide behind the step's compute
// (max(0, seconds_per_batch - compute_step_s) when it runs ahead; all of it when it does not).
double io_stall_s(const InputPipelineResult& pipeline, double compute_step_s);

}  // namespace hpcsim
