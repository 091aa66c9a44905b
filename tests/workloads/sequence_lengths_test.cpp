// Real sequence lengths and length-binned batches (workload.sequence_lengths, length_bin, pad_multiple).
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/scenario/training_scenario.h"
#include "workloads/training/sequence_lengths.h"
#include "workloads/scenario/simulate_scenario.h"

using namespace hpcsim;

namespace {

SequenceLengths lengths(std::vector<double> counts) {
  SequenceLengths s;
  s.name = "test";
  s.counts = std::move(counts);
  return s;
}

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

TrainingScenario scenario(const std::string& workload_extra) {
  const std::string text =
      "cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}\n"
      "workload: {model: bert-large-pretraining, seq_len: 512, batch_per_gpu: 32, precision: fp16, optimizer: lamb,\n"
      "           attention: unfused" + workload_extra + "}\n";
  return parse_training_scenario(parse_config_text(text, "lengths.yaml"), catalog(), "lengths");
}

std::string error_of(const std::string& workload_extra) {
  try {
    scenario(workload_extra);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("binned batch lengths: the expected longest sample per bin, shares by samples", "[lengths]") {
  // Lengths 1..8: 1 sample of 1, 1 of 2, 2 of 3 (bin 1..4), none in 5..7, 4 of 8.
  const SequenceLengths s = lengths({1, 1, 2, 0, 0, 0, 0, 4});
  CHECK(s.samples() == 8);
  CHECK(s.mean() == Approx((1 + 2 + 6 + 32) / 8.0));
  // One sample per batch: a batch is as long as its sample, so the bin's mean length.
  auto one = binned_batch_lengths(s, 4, 1, 1);
  REQUIRE(one.size() == 2);
  CHECK(one[0].share == Approx(0.5));
  CHECK(one[0].length == 2);  // E = (1 + 2 + 2 x 3) / 4 = 2.25, nearest 2
  CHECK(one[1].length == 8);
  CHECK(one[1].share == Approx(0.5));
  // Large batches almost surely hold the bin's longest sample.
  CHECK(binned_batch_lengths(s, 4, 64, 1)[0].length == 3);
  // Rounded up to a multiple of 4 before averaging: every batch of the first bin runs at 4.
  CHECK(binned_batch_lengths(s, 4, 1, 4)[0].length == 4);
  // One bin over all lengths: random batches padded to their longest sample.
  const auto whole = binned_batch_lengths(s, 8, 2, 1);
  REQUIRE(whole.size() == 1);
  // P(max = 8) = 1 - (1/2)^2 = 0.75; P(max = 3) = (4/8)^2 - (2/8)^2; P(2) = (2/8)^2 - (1/8)^2; P(1) = (1/8)^2.
  const double expected = 8 * 0.75 + 3 * (0.25 - 0.0625) + 2 * (0.0625 - 1 / 64.0) + 1 / 64.0;
  CHECK(whole[0].length == static_cast<std::int64_t>(std::llround(expected)));
  CHECK_THROWS_AS(binned_batch_lengths(s, 0, 1, 1), std::invalid_argument);
  CHECK_THROWS_AS(binned_batch_lengths(s, 4, 0, 1), std::invalid_argument);
  CHECK_THROWS_AS(binned_batch_lengths(s, 4, 1, 0), std::invalid_argument);
}

TEST_CASE("Wikipedia at 512: half the tokens are padding, LDDL's 64-token bins keep 8 %", "[lengths]") {
  const SequenceLengths wiki =
      load_sequence_lengths(catalog(), ConfigNode::make_scalar("wikipedia-bert-512", {}));
  CHECK(wiki.max_length() == 512);
  CHECK(wiki.samples() == 16279552);
  CHECK(wiki.mean() == Approx(255.83).epsilon(0.001));
  const auto bins = binned_batch_lengths(wiki, 64, 32, 8);
  REQUIRE(bins.size() == 8);
  double shares = 0, padded = 0;
  for (const PaddedLength& b : bins) shares += b.share, padded += b.share * static_cast<double>(b.length);
  CHECK(shares == Approx(1));
  CHECK(bins.back().length == 512);
  CHECK(bins.back().share == Approx(0.272).epsilon(0.01));
  // Padded tokens per sequence: between the real mean and the bins' upper edges (279 for edges).
  CHECK(padded > wiki.mean());
  CHECK(padded < 280);
  CHECK(1 - wiki.mean() / padded < 0.10);
}

TEST_CASE("scenario: length-binned BERT runs at its bins' lengths and counts real tokens", "[lengths]") {
  const TrainingScenario plain = scenario("");
  const TrainingScenario binned = scenario(", sequence_lengths: wikipedia-bert-512, length_bin: 64, pad_multiple: 8");
  REQUIRE(binned.length_mix.size() == 8);
  const TrainingStepReport p = simulate_scenario(plain);
  const TrainingStepReport b = simulate_scenario(binned);
  // Batches hold 279 tokens on average instead of 512 (attention shrinks with the square): at least 1.8x.
  CHECK(b.result.samples_per_s > 1.8 * p.result.samples_per_s);
  CHECK(b.result.samples_per_s < 2.2 * p.result.samples_per_s);
  REQUIRE(b.result.tokens_per_s);
  CHECK(*b.result.tokens_per_s == Approx(b.result.samples_per_s * binned.sequence_lengths->mean()));
  // Memory is the longest bin's: a full 512-token batch.
  CHECK(b.result.memory_per_gpu_bytes == Approx(p.result.memory_per_gpu_bytes));
  // The step time is the share-weighted mean of the bins' steps, so it lies between the extremes.
  CHECK(b.result.step_time_s < p.result.step_time_s);
  // Without a bin every sample is padded to seq_len: the same step, tokens/s in real tokens.
  const TrainingScenario padded = scenario(", sequence_lengths: wikipedia-bert-512");
  CHECK(padded.length_mix.empty());
  const TrainingStepReport f = simulate_scenario(padded);
  CHECK(f.result.samples_per_s == Approx(p.result.samples_per_s));
  CHECK(*f.result.tokens_per_s == Approx(*p.result.tokens_per_s * 255.83 / 512).epsilon(0.001));
}

TEST_CASE("GNMT on WMT16: pairs in 10-token buckets, real tokens counted as the trainer does", "[lengths]") {
  const SequenceLengths wmt = load_sequence_lengths(catalog(), ConfigNode::make_scalar("wmt16-en-de-gnmt-50", {}));
  CHECK(wmt.max_length() == 50);
  CHECK(wmt.samples() == Approx(3498161));  // the MLPerf v0.5 log's pairs after the 50-token filter
  CHECK(wmt.tokens_per_sample == Approx(51));
  const auto buckets = binned_batch_lengths(wmt, 10, 128, 1);
  REQUIRE(buckets.size() == 5);
  for (std::size_t i = 0; i < buckets.size(); ++i) CHECK(buckets[i].length == 10 * static_cast<std::int64_t>(i + 1));
  const std::string text =
      "cluster: {node: dgx-a100-40gb, nodes: 1, gpus_per_node: 1}\n"
      "workload: {model: gnmt, seq_len: 50, batch_per_gpu: 128, precision: fp16, optimizer: adam,\n"
      "           sequence_lengths: wmt16-en-de-gnmt-50, length_bin: 10}\n";
  const TrainingScenario s = parse_training_scenario(parse_config_text(text, "gnmt.yaml"), catalog(), "gnmt");
  const TrainingStepReport r = simulate_scenario(s);
  REQUIRE(r.result.tokens_per_s);
  CHECK(*r.result.tokens_per_s == Approx(51 * r.result.samples_per_s));
  // Shorter batches than the 50-token maximum: more pairs per second than at seq_len for every pair.
  const std::string full = "cluster: {node: dgx-a100-40gb, nodes: 1, gpus_per_node: 1}\n"
                           "workload: {model: gnmt, seq_len: 50, batch_per_gpu: 128, precision: fp16, optimizer: adam}\n";
  const TrainingStepReport f = simulate_scenario(parse_training_scenario(parse_config_text(full, "full.yaml"), catalog(), "full"));
  CHECK(r.result.samples_per_s > 1.3 * f.result.samples_per_s);
}

TEST_CASE("scenario: sequence-length errors name their key", "[lengths]") {
  CHECK(error_of(", length_bin: 64").find("lengths.yaml:3:") != std::string::npos);
  CHECK(error_of(", length_bin: 64").find("needs workload.sequence_lengths") != std::string::npos);
  CHECK(error_of(", pad_multiple: 8").find("needs workload.sequence_lengths") != std::string::npos);
  CHECK(error_of(", sequence_lengths: wikipedia-bert-51").find("did you mean 'wikipedia-bert-512'") != std::string::npos);
  CHECK(error_of(", length_bin: 0, sequence_lengths: wikipedia-bert-512").find("lengths.yaml:3:") != std::string::npos);
  CHECK(error_of(", sequence_lengths: wikipedia-bert-512, pad_multiple: 8").find("needs workload.length_bin") !=
        std::string::npos);
  CHECK(error_of(", sequence_lengths: wikipedia-bert-512, length_bin: 64, pad_multiple: 1024")
            .find("is longer than the model's seq_len 512") != std::string::npos);
  // The histogram is for 512 tokens; a 128-token model cannot use it.
  try {
    parse_training_scenario(parse_config_text("cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}\n"
                                     "workload: {model: bert-large, seq_len: 128, batch_per_gpu: 8, precision: fp16,\n"
                                     "           optimizer: lamb, sequence_lengths: wikipedia-bert-512}\n",
                                     "short.yaml"),
                   catalog(), "short");
    FAIL("a 512-token histogram was accepted for seq_len 128");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("short.yaml:3:") != std::string::npos);
    CHECK(std::string(e.what()).find("up to 512 tokens, but the model's seq_len is 128") != std::string::npos);
  }
  // A model without a sequence length.
  try {
    parse_training_scenario(parse_config_text("cluster: {node: dgx-a100-80gb, nodes: 1, gpus_per_node: 1}\n"
                                     "workload: {model: resnet50, batch_per_gpu: 8, precision: fp16, optimizer: sgd,\n"
                                     "           sequence_lengths: wikipedia-bert-512}\n",
                                     "cnn.yaml"),
                   catalog(), "cnn");
    FAIL("sequence_lengths was accepted for a CNN");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("does not take (no seq_len)") != std::string::npos);
  }
  // A histogram file whose declared maximum disagrees with its counts.
  CHECK_THROWS_AS(parse_sequence_lengths(parse_config_text("max_length: 4\ncounts: [1, 2, 3]\n", "h.yaml"), "h"),
                  ConfigError);
  CHECK_THROWS_AS(parse_sequence_lengths(parse_config_text("counts: [0, 0]\n", "h.yaml"), "h"), ConfigError);
  CHECK_THROWS_AS(parse_sequence_lengths(parse_config_text("counts: [1, -2]\n", "h.yaml"), "h"), ConfigError);
}
