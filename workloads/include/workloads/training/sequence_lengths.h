#pragma once
// How long a dataset's samples really are, and the lengths batches run at when they are padded.
// configs/sequence-lengths/<name>.yaml holds a histogram of real lengths (tokens per sample) for one
// maximum length; a scenario names it with workload.sequence_lengths.
#include <cstdint>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_node.h"

namespace hpcsim {

struct SequenceLengths {
  std::string name;
  std::vector<double> counts;  // counts[i]: samples of i + 1 tokens; the last entry is the maximum length
  // Real tokens a trainer counts per sample, when that is not the histogram's mean (a translation pair's
  // source plus target, where the histogram holds the longer side that padding follows); 0: the mean.
  double tokens_per_sample = 0;
  std::int64_t max_length() const { return static_cast<std::int64_t>(counts.size()); }
  double samples() const;
  double mean() const;  // real tokens per sample
};

// A padded length batches run at and the share of steps that do.
struct PaddedLength {
  std::int64_t length = 0;
  double share = 0;
};

// Batches of `batch` samples (all data-parallel ranks' together: the step waits for the longest) drawn from
// one length bin of `bin` tokens at a time, each bin with
// probability proportional to the samples it holds (NVIDIA LDDL's Binned loader), padded to their longest
// sample rounded up to a multiple of `multiple`. Per bin: the expected padded length (the longest of
// `batch` samples, rounded up), rounded to the nearest multiple; bins without samples are left out. bin >= max_length is one
// bin: random batches padded to their longest sample. std::invalid_argument for sizes below 1.
std::vector<PaddedLength> binned_batch_lengths(const SequenceLengths& lengths, std::int64_t bin, std::int64_t batch,
                                               std::int64_t multiple);

SequenceLengths parse_sequence_lengths(const ConfigNode& node, std::string name);
SequenceLengths load_sequence_lengths(const SpecCatalog& catalog, const ConfigNode& name_node);

}  // namespace hpcsim
