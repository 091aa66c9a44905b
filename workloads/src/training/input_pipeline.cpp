#include "workloads/training/input_pipeline.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "models/gpu/host_transfer.h"
#include "models/storage/dataset_read.h"
#include "models/storage/io500.h"
#include "models/storage/page_cache.h"

namespace hpcsim {

namespace {

// Requests simulated to measure the storage rate: at least a few per reader (so every reader reaches its
// steady state) and otherwise one global batch, capped because the rate, not the count, is what we need.
constexpr std::int64_t kRequestsPerReader = 4;
constexpr std::int64_t kMaxWindow = 8192;
// Bytes each reader streams in a file system's steady-state read of shards (the rate does not depend on it).
constexpr double kStreamedBytesPerReader = 1073741824.0;

void check_arguments(const DatasetSpec& dataset, const NodeSpec& node, int gpus_per_node, int nodes,
                     std::int64_t batch_per_gpu, const LoaderConfig& loader) {
  if (gpus_per_node < 1 || gpus_per_node > node.gpus)
    throw std::invalid_argument("gpus_per_node must be between 1 and the " + std::to_string(node.gpus) + " GPUs of " +
                                node.name);
  if (nodes < 1) throw std::invalid_argument("at least one node is needed");
  if (batch_per_gpu < 1) throw std::invalid_argument("the batch per GPU must be at least 1");
  if (loader.workers_per_gpu < 0) throw std::invalid_argument("workers_per_gpu cannot be negative");
  if (loader.prefetch_batches < 0) throw std::invalid_argument("prefetch_batches cannot be negative");
  if (!(loader.page_cache_fraction >= 0 && loader.page_cache_fraction <= 1))
    throw std::invalid_argument("page_cache_fraction must be between 0 and 1");
  if (dataset.synthetic) return;
  if (loader.gpu_decode && !dataset.gpu_decode_core_s)
    throw std::invalid_argument("dataset '" + dataset.name + "' has no GPU decode path (no gpu_decode: in its spec)");
  if (!node.pcie.link)
    throw std::invalid_argument("node '" + node.name + "' has no pcie: link, so its host-to-device copy cannot be timed");
}

// Seconds for `requests` reads of `bytes` each by `readers` over `nodes`, at the storage system's steady
// rate: two windows (N and 2N requests) are simulated and their difference taken, which cancels the first
// requests' latency and the last ones' tail that a loader running ahead never waits for.
double storage_seconds(const StorageSpec& storage, std::int64_t requests, double bytes, int readers, int nodes,
                       InputPipelineResult& r) {
  const std::int64_t window = std::max<std::int64_t>(kRequestsPerReader * readers, std::min(requests, kMaxWindow));
  DatasetRead read;
  read.sample_bytes = bytes;
  read.readers = readers;
  read.nodes = nodes;
  read.samples = window;
  const DatasetReadResult first = simulate_dataset_read(storage, read);
  read.samples = 2 * window;
  const DatasetReadResult second = simulate_dataset_read(storage, read);
  r.storage_limit = second.bottleneck;
  for (const ResourceUse& use : second.utilisation) r.storage_use.emplace_back(use.name, use.utilisation);
  double per_request = (second.time_s - first.time_s) / static_cast<double>(window);
  if (!(per_request > 0)) per_request = second.time_s / static_cast<double>(2 * window);
  return per_request * static_cast<double>(requests);
}

// The GPUs whose batches share one GPU's PCIe path: itself alone on its own link, or the job's GPUs behind
// the same switch uplink, all copying their batches at once.
int pcie_sharers(const NodeSpec& node, int gpus_per_node) {
  if (!node.pcie.modelled() || node.pcie.gpus_per_switch < 1) return 1;
  return std::min(node.pcie.gpus_per_switch, gpus_per_node);
}

int total_cores(const NodeSpec& node) {
  const int sockets = node.cpu.sockets > 0 ? node.cpu.sockets : node.cpu_sockets;
  const int per_socket = node.cpu.cores_per_socket > 0 ? node.cpu.cores_per_socket : node.cpu_cores_per_socket;
  return sockets * per_socket;
}

// A later epoch's share of reads each node's page cache serves (models/storage/page_cache.h): every epoch
// reshuffles the samples over the nodes, so a node's cache holds what it read in earlier epochs.
double page_cache_hit(const DatasetSpec& dataset, const NodeSpec& node, int nodes, const LoaderConfig& loader) {
  if (!loader.page_cache_warm) return 0;
  return page_cache_hit_ratio(loader.page_cache_fraction * node.host_memory_bytes, dataset.total_bytes(), nodes);
}

// Copying `bytes` out of the page cache: read once and written once through host memory.
double page_cache_copy_s(const NodeSpec& node, double bytes) {
  const double memory_bandwidth = node.cpu.memory_bandwidth_per_socket * node.cpu.sockets;
  return memory_bandwidth > 0 ? 2 * bytes / memory_bandwidth : 0;
}

// Every read hits (the dataset fits in each node's cache): the storage stage is a copy out of host memory.
// false otherwise; r.page_cache_hit is set either way.
bool read_from_page_cache(const DatasetSpec& dataset, const NodeSpec& node, int nodes, double node_bytes,
                          const LoaderConfig& loader, InputPipelineResult& r) {
  r.page_cache_hit = page_cache_hit(dataset, node, nodes, loader);
  if (r.page_cache_hit < 1) return false;
  r.from_page_cache = true;
  r.storage_limit = "page cache";
  r.storage_s = page_cache_copy_s(node, node_bytes);
  return true;
}

// Part of the reads hit: the storage reads the misses (`storage_all_s` would read them all) while the workers
// copy the hits out of host memory; the longer of the two is the stage.
void split_page_cache(const NodeSpec& node, double node_bytes, double storage_all_s, InputPipelineResult& r) {
  const double misses_s = (1 - r.page_cache_hit) * storage_all_s;
  const double hits_s = page_cache_copy_s(node, r.page_cache_hit * node_bytes);
  r.storage_s = std::max(misses_s, hits_s);
  if (hits_s > misses_s) r.storage_limit = "page cache";
}

// The reads one batch of every GPU of the job takes: the request size, their count and the readers.
struct BatchReads {
  double request_bytes = 0;
  std::int64_t requests = 0;
  double global_bytes = 0;
  int readers = 0;
};

BatchReads batch_reads(const DatasetSpec& dataset, int gpus_per_node, int nodes, std::int64_t batch_per_gpu,
                       const LoaderConfig& loader) {
  BatchReads b;
  const std::int64_t node_samples = batch_per_gpu * gpus_per_node;
  b.global_bytes = static_cast<double>(node_samples) * dataset.sample_bytes * nodes;
  b.readers = std::max(loader.workers_per_gpu, 1) * gpus_per_node * nodes;
  const bool shards = dataset.layout == DatasetLayout::shards;
  b.request_bytes = shards ? dataset.read_bytes : dataset.sample_bytes;
  b.requests = shards ? static_cast<std::int64_t>(std::ceil(b.global_bytes / dataset.read_bytes)) : node_samples * nodes;
  return b;
}

// Decode, host-to-device copy and the steady state, once the storage stage (r.storage_s) is known.
void finish_pipeline(const DatasetSpec& dataset, const NodeSpec& node, int gpus_per_node, std::int64_t batch_per_gpu,
                     const LoaderConfig& loader, InputPipelineResult& r) {
  const auto batch = static_cast<double>(batch_per_gpu);
  // Decode: each worker is one process. A GPU's share of the node's cores runs one worker per core at
  // full speed; workers beyond that pair up on the cores' second hardware threads, where two workers
  // together decode decode_smt_speedup times what one does; beyond the hardware threads they only
  // time-share. Without workers the training process decodes on its own core.
  const int cores_per_gpu = std::max(1, total_cores(node) / gpus_per_node);
  // The SMT speed-up is a two-thread figure: further hardware threads per core add nothing here.
  const int threads_per_gpu = cores_per_gpu * std::clamp(node.cpu.threads_per_core, 1, 2);
  const int workers = std::max(1, loader.workers_per_gpu);
  r.decode_workers_per_gpu = std::min(workers, threads_per_gpu);
  const int paired = std::clamp(r.decode_workers_per_gpu - cores_per_gpu, 0, cores_per_gpu);
  r.decode_cores_per_gpu = std::min(workers, cores_per_gpu) + (dataset.decode_smt_speedup - 1) * paired;
  const double core_s = loader.gpu_decode ? *dataset.gpu_decode_core_s : dataset.decode_core_s;
  r.decode_s = batch * core_s / r.decode_cores_per_gpu;

  // Host to device: the decoded batch, or with GPU decode the encoded samples, from pinned host memory.
  const double copy_bytes = batch * (loader.gpu_decode ? dataset.sample_bytes : dataset.output_bytes);
  // A pinned copy over the link (models/gpu/host_transfer.h): the loader pins its batches (DataLoader
  // pin_memory), so the DMA runs beside the step; a shared uplink moves every sharer's batch.
  r.h2d_s = pinned_copy_s(*node.pcie.link, node.pcie.lanes, copy_bytes * pcie_sharers(node, gpus_per_node));

  const double slowest = std::max({r.storage_s, r.decode_s, r.h2d_s});
  r.bottleneck = slowest == r.storage_s ? "storage" : slowest == r.decode_s ? "decode" : "h2d";
  r.fill_s = r.storage_s + r.decode_s + r.h2d_s;
  // Running ahead, the stages work on successive batches at once; loading in the step, one after another.
  r.seconds_per_batch = r.overlapped ? slowest : r.fill_s;
}

// Synthetic data: nothing to read, decode or copy. false for a real dataset.
bool synthetic_input(const DatasetSpec& dataset, const LoaderConfig& loader, InputPipelineResult& r) {
  r.overlapped = loader.workers_per_gpu > 0 && loader.prefetch_batches > 0;
  if (!dataset.synthetic) return false;
  r.bottleneck = "none";
  r.storage_limit = "none";
  return true;
}

double node_batch_bytes(const DatasetSpec& dataset, int gpus_per_node, std::int64_t batch_per_gpu) {
  return static_cast<double>(batch_per_gpu * gpus_per_node) * dataset.sample_bytes;
}

}  // namespace

InputPipelineResult simulate_input_pipeline(const DatasetSpec& dataset, const std::optional<StorageSpec>& storage,
                                            const NodeSpec& node, int gpus_per_node, int nodes,
                                            std::int64_t batch_per_gpu, const LoaderConfig& loader) {
  check_arguments(dataset, node, gpus_per_node, nodes, batch_per_gpu, loader);
  if (!dataset.synthetic && !storage && !loader.page_cache_warm)
    throw std::invalid_argument("dataset '" + dataset.name + "' is read from storage, but no storage system was given");
  InputPipelineResult r;
  if (synthetic_input(dataset, loader, r)) return r;
  const double node_bytes = node_batch_bytes(dataset, gpus_per_node, batch_per_gpu);
  if (!read_from_page_cache(dataset, node, nodes, node_bytes, loader, r)) {
    if (!storage)
      throw std::invalid_argument("dataset '" + dataset.name + "' does not fit in the page cache and no storage "
                                  "system was given");
    const BatchReads b = batch_reads(dataset, gpus_per_node, nodes, batch_per_gpu, loader);
    split_page_cache(node, node_bytes, storage_seconds(*storage, b.requests, b.request_bytes, b.readers, nodes, r), r);
  }
  finish_pipeline(dataset, node, gpus_per_node, batch_per_gpu, loader, r);
  return r;
}

InputPipelineResult simulate_input_pipeline(const DatasetSpec& dataset, const FileSystemSpec& filesystem,
                                            const NodeSpec& node, int gpus_per_node, int nodes,
                                            std::int64_t batch_per_gpu, const LoaderConfig& loader) {
  check_arguments(dataset, node, gpus_per_node, nodes, batch_per_gpu, loader);
  InputPipelineResult r;
  if (synthetic_input(dataset, loader, r)) return r;
  const double node_bytes = node_batch_bytes(dataset, gpus_per_node, batch_per_gpu);
  if (!read_from_page_cache(dataset, node, nodes, node_bytes, loader, r)) {
    // Every loader worker of the job reads at once, at the file system's steady rate for them: whole sample
    // files one at a time (an open, then the file), or shards streamed through the client's RPC pipeline.
    const BatchReads b = batch_reads(dataset, gpus_per_node, nodes, batch_per_gpu, loader);
    const Io500Clients readers{nodes, b.readers};
    double rate = 0;
    Io500PhaseResult read;
    if (dataset.layout == DatasetLayout::shards) {
      read = simulate_checkpoint(filesystem, readers, kStreamedBytesPerReader, IoOp::read).rate;
      rate = read.rate;
      r.storage_limit = read.bottleneck;
    } else {
      const FileReadsResult files = simulate_file_reads(filesystem, readers, dataset.sample_bytes);
      read = files.read;
      rate = files.bytes_per_s;
      r.storage_limit = files.bottleneck;
      // The opens' share of what the metadata servers allow (given an open rate).
      if (files.open_bytes_per_s > 0) read.stages.push_back({"metadata opens", rate / files.open_bytes_per_s});
    }
    for (const StageUse& use : read.stages) r.storage_use.emplace_back(use.stage, use.utilisation);
    split_page_cache(node, node_bytes, b.global_bytes / rate, r);
  }
  finish_pipeline(dataset, node, gpus_per_node, batch_per_gpu, loader, r);
  return r;
}

int loading_gpus_per_node(int dp, int nodes, int gpus_per_node) { return std::clamp(dp / nodes, 1, gpus_per_node); }

double io_stall_s(const InputPipelineResult& pipeline, double compute_step_s) {
  if (!pipeline.overlapped) return pipeline.seconds_per_batch;
  return std::max(0.0, pipeline.seconds_per_batch - compute_step_s);
}

}  // namespace hpcsim
