#pragma once
// A training dataset as configs/datasets/*.yaml describes it: how many samples, how they are stored
// (one file each, or packed into record shards read in large chunks), the CPU cost to turn one stored
// sample into a training sample, and what reaches the GPU. A synthetic dataset has no I/O at all.
#include <cstdint>
#include <optional>
#include <string>

#include "configs/catalog.h"
#include "configs/config_node.h"
#include "configs/schema.h"

namespace hpcsim {

enum class DatasetLayout {
  files,   // one file per sample: one open and one read request per sample
  shards,  // records packed into large files (TFRecord, WebDataset tar, LMDB, token .bin), streamed in chunks
};

struct DatasetSpec {
  std::string name;
  bool synthetic = false;        // generated on the GPU: no storage, no decode, no host-to-device copy
  std::int64_t samples = 0;      // one epoch
  double sample_bytes = 0;       // mean encoded size as stored
  DatasetLayout layout = DatasetLayout::files;
  double read_bytes = 0;         // shards: bytes per read request while a shard is streamed
  double decode_core_s = 0;      // CPU core-seconds per sample: decode, augment, collate
  // Decode throughput of one core running two workers on its two hardware threads, relative to one
  // worker alone (1: a second thread adds nothing).
  double decode_smt_speedup = 1;
  std::optional<double> gpu_decode_core_s;  // set when the samples can be decoded on the GPU (DALI):
                                            // the CPU core-seconds per sample left to the host then
  std::string output_dtype;      // of the tensor delivered to the GPU
  std::int64_t output_elements = 0;  // per sample
  double output_bytes = 0;       // per sample, = elements x dtype size

  double total_bytes() const { return static_cast<double>(samples) * sample_bytes; }
};

const Schema& dataset_spec_schema();
// Validates and reads a dataset spec. Fields a synthetic dataset has no use for (sizes, layout, decode)
// and a read size without shards are ConfigErrors at their key.
DatasetSpec parse_dataset_spec(const ConfigNode& node, std::string name);
// configs/datasets/<name>.yaml through the catalog; an unknown name is a ConfigError at `name_node`.
DatasetSpec load_dataset_spec(const SpecCatalog& catalog, const ConfigNode& name_node);

}  // namespace hpcsim
