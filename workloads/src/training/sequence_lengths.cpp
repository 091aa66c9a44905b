#include "workloads/training/sequence_lengths.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/schema.h"

namespace hpcsim {

double SequenceLengths::samples() const { return std::accumulate(counts.begin(), counts.end(), 0.0); }

double SequenceLengths::mean() const {
  double tokens = 0;
  for (std::size_t i = 0; i < counts.size(); ++i) tokens += counts[i] * static_cast<double>(i + 1);
  return tokens / samples();
}

std::vector<PaddedLength> binned_batch_lengths(const SequenceLengths& lengths, std::int64_t bin, std::int64_t batch,
                                               std::int64_t multiple) {
  if (bin < 1 || batch < 1 || multiple < 1) throw std::invalid_argument("bin, batch and multiple must be at least 1");
  const std::int64_t max = lengths.max_length();
  const double total = lengths.samples();
  std::vector<PaddedLength> out;
  for (std::int64_t lo = 1; lo <= max; lo += bin) {
    const std::int64_t hi = std::min(max, lo + bin - 1);
    double in_bin = 0;
    for (std::int64_t l = lo; l <= hi; ++l) in_bin += lengths.counts[static_cast<std::size_t>(l - 1)];
    if (in_bin <= 0) continue;
    // P(max <= l) = F(l)^batch within the bin; the batch runs at its maximum rounded up to the multiple.
    const double m = static_cast<double>(multiple);
    double below = 0, expected_padded = 0;
    for (std::int64_t l = lo; l <= hi; ++l) {
      const double upto = below + lengths.counts[static_cast<std::size_t>(l - 1)];
      const double p = std::pow(upto / in_bin, static_cast<double>(batch)) - std::pow(below / in_bin, static_cast<double>(batch));
      expected_padded += p * std::ceil(static_cast<double>(l) / m) * m;
      below = upto;
    }
    const std::int64_t length = std::max<std::int64_t>(1, std::llround(expected_padded / m)) * multiple;
    out.push_back({length, in_bin / total});
  }
  return out;
}

SequenceLengths parse_sequence_lengths(const ConfigNode& node, std::string name) {
  static const Schema schema = Schema::map({
      optional("max_length", Schema::integer().at_least(1)),
      optional("tokens_per_sample", Schema::number().positive()),
      required("counts", Schema::list(Schema::number().at_least(0))),
  });
  schema.validate(node);
  SequenceLengths s;
  s.name = std::move(name);
  const ConfigNode& counts = node.at("counts");
  for (const ConfigNode& c : counts.items()) s.counts.push_back(c.as_number());
  if (s.counts.empty()) throw ConfigError(counts.loc(), "counts needs one entry per length, 1 to the maximum");
  if (const ConfigNode* max = node.find("max_length"); max != nullptr && max->as_int() != s.max_length()) {
    throw ConfigError(max->loc(), "max_length " + std::to_string(max->as_int()) + " but counts has " +
                                      std::to_string(s.max_length()) + " entries (one per length 1 to max_length)");
  }
  if (!(s.samples() > 0)) throw ConfigError(counts.loc(), "counts holds no samples");
  s.tokens_per_sample = node.get_number_or("tokens_per_sample", 0.0);
  return s;
}

SequenceLengths load_sequence_lengths(const SpecCatalog& catalog, const ConfigNode& name_node) {
  return parse_sequence_lengths(catalog.load("sequence-lengths", name_node, "sequence-length distribution"),
                                name_node.as_string());
}

}  // namespace hpcsim
