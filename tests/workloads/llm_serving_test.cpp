// The LLM serving replica: its memory (KV bytes per token, weights per GPU), the cost of an iteration
// (memory-bound decode, compute-bound prefill, fp8), and the engine's continuous batching (chunked prefill,
// preemption, admission, closed loop, determinism, errors).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "workloads/inference/inference_setup.h"
#include "workloads/serving/llm/llm_load.h"
#include "workloads/serving/llm/llm_serving.h"
#include "workloads/serving/llm/llm_serving_keys.h"
#include "workloads/serving/request_arrival.h"
#include "workloads/serving/serving_config.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

const SpecCatalog& catalog() {
  static const SpecCatalog c(HPCSIM_SOURCE_CONFIG_DIR);
  return c;
}

ClusterConfig dgx_h100() {
  return parse_cluster(parse_config_text("cluster: {node: dgx-h100, nodes: 1}", "t.yaml").at("cluster"), catalog());
}

Model zoo(const std::string& name) { return build_model(name, {}, catalog().root()); }

LlmReplicaCost replica(const std::string& model, int tp, Precision p, Precision kv) {
  return LlmReplicaCost(zoo(model), dgx_h100(), tp, p, kv);
}

IterationWork decode_batch(std::int64_t sequences, double context) {
  IterationWork w;
  w.tokens = w.emitting = w.decode_sequences = sequences;
  w.decode_cache_tokens = context * static_cast<double>(sequences);
  return w;
}

// The queue part's seeded Poisson arrivals with fixed lengths.
std::vector<LlmRequest> poisson(int n, double rate, std::int64_t in, std::int64_t out, unsigned seed) {
  std::vector<LlmRequest> r;
  for (const RequestArrival& a : poisson_arrivals(rate, n, seed)) r.push_back({a.time_s, in, out});
  return r;
}

}  // namespace

TEST_CASE("KV-cache bytes per token follow layers x kv_heads x head_dim x 2 x bytes, split over tp") {
  // Llama 3 8B: 32 layers, 8 KV heads of 128.
  CHECK(replica("llama3-8b", 1, Precision::bf16, Precision::bf16).kv_bytes_per_token_per_gpu() == 32 * 8 * 128 * 2 * 2);
  CHECK(replica("llama3-8b", 1, Precision::fp8, Precision::fp8).kv_bytes_per_token_per_gpu() == 32 * 8 * 128 * 2);
  // 70B on two GPUs: 80 layers, 4 of the 8 KV heads each.
  CHECK(replica("llama3-70b", 2, Precision::fp8, Precision::fp8).kv_bytes_per_token_per_gpu() == 80 * 4 * 128 * 2);
  // 405B on eight: one KV head per GPU.
  CHECK(replica("llama3.1-405b", 8, Precision::fp8, Precision::fp8).kv_bytes_per_token_per_gpu() == 126 * 1 * 128 * 2);
}

TEST_CASE("weights per GPU are the parameters at their precision, split over tp") {
  const double p8 = static_cast<double>(zoo("llama3-8b").params());
  const LlmReplicaCost bf16 = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  CHECK(bf16.weight_bytes_per_gpu() == Approx(2 * p8).epsilon(1e-9));
  // fp8: dense and attention weights in one byte, the embedding (and the norms' 65 x 4096 scales) in two.
  const LlmReplicaCost fp8 = replica("llama3-8b", 1, Precision::fp8, Precision::fp8);
  const double embedding = 128256.0 * 4096, norms = 65.0 * 4096;
  CHECK(fp8.weight_bytes_per_gpu() == Approx(p8 + embedding + norms).epsilon(1e-9));
  const double p70 = static_cast<double>(zoo("llama3-70b").params());
  const LlmReplicaCost tp2 = replica("llama3-70b", 2, Precision::bf16, Precision::bf16);
  CHECK(tp2.weight_bytes_per_gpu() == Approx(p70).epsilon(0.001));  // 2 bytes x half the (almost all split) weights
}

TEST_CASE("a decode iteration at batch 1 is bound by reading the weights once") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  const double one = c.iteration_s(decode_batch(1, 1024));
  const double floor = c.weight_bytes_per_gpu() / c.gpu().memory_bandwidth();  // the datasheet HBM rate
  CHECK(one > floor);
  CHECK(one < 1.4 * floor);
  // 64 sequences share the weight read: far less than 64 times the time.
  CHECK(c.iteration_s(decode_batch(64, 1024)) < 2 * one);
  // Longer contexts read more cache: the same batch at 16x the context costs more.
  CHECK(c.iteration_s(decode_batch(64, 16384)) > 1.2 * c.iteration_s(decode_batch(64, 1024)));
  // fp8 halves the weight bytes.
  LlmReplicaCost f = replica("llama3-8b", 1, Precision::fp8, Precision::fp8);
  const double ratio = f.iteration_s(decode_batch(1, 1024)) / one;
  CHECK(ratio > 0.45);
  CHECK(ratio < 0.75);
}

TEST_CASE("a large prefill is bound by the tensor cores") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  IterationWork w;
  w.tokens = 8192;
  w.emitting = w.prefill_sequences = 4;
  w.prefill_tokens = w.prefill_cache_tokens = 8192;
  w.prefill_score_pairs = 4 * (2048.0 * 2049 / 2);
  const double s = c.iteration_s(w);
  const double gemm_flops = 2 * static_cast<double>(zoo("llama3-8b").params() - 2 * 128256LL * 4096) * 8192;
  const double peak = c.gpu().sm_count * *c.gpu().tensor_flops_per_clock_per_sm[static_cast<int>(Precision::bf16)] *
                      c.gpu().tensor_clock_hz;
  CHECK(s > gemm_flops / peak);        // no faster than the datasheet peak
  CHECK(s < 2.0 * gemm_flops / peak);  // and well above half of it
}

TEST_CASE("tensor parallelism adds all-reduces but splits the weights") {
  LlmReplicaCost one = replica("llama3-70b", 2, Precision::fp8, Precision::fp8);
  LlmReplicaCost four = replica("llama3-70b", 4, Precision::fp8, Precision::fp8);
  const double t2 = one.iteration_s(decode_batch(1, 1024)), t4 = four.iteration_s(decode_batch(1, 1024));
  CHECK(t4 < t2);
  CHECK(t4 > 0.5 * t2);  // the all-reduces do not shrink with tp
}

TEST_CASE("one request alone: TTFT is its prefill, then one token per decode iteration") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  const LlmServingResult r = simulate_llm_serving(c, {}, std::vector<LlmRequest>{{0.5, 1000, 100}});
  REQUIRE(r.requests.size() == 1);
  const LlmRequestOutcome& o = r.requests.front();
  IterationWork prefill;
  prefill.tokens = 1000;
  prefill.emitting = prefill.prefill_sequences = 1;
  prefill.prefill_tokens = prefill.prefill_cache_tokens = 1000;
  prefill.prefill_score_pairs = 1000.0 * 1001 / 2;
  CHECK(o.ttft_s() == Approx(c.iteration_s(prefill)).epsilon(1e-9));
  CHECK(r.iterations == 100);
  CHECK(o.tpot_s() > c.iteration_s(decode_batch(1, 1001)) * 0.999);
  CHECK(o.tpot_s() < c.iteration_s(decode_batch(1, 1099)) * 1.001);
  CHECK(r.output_tokens() == 100);
}

TEST_CASE("chunked prefill splits a long prompt over the token budget") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  LlmEngineConfig e;
  e.max_num_batched_tokens = 2048;
  const LlmServingResult r = simulate_llm_serving(c, e, std::vector<LlmRequest>{{0, 5000, 2}});
  CHECK(r.iterations == 3 + 1);  // 2048 + 2048 + 904, then one decode
  e.chunked_prefill = false;
  e.max_num_batched_tokens = 4096;
  CHECK_THROWS(simulate_llm_serving(c, e, std::vector<LlmRequest>{{0, 5000, 2}}));
}

TEST_CASE("when the KV cache runs out, sequences are preempted and recomputed: guaranteed_no_evict admits fewer") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  LlmEngineConfig e;
  // Leave room for about 40 sequences of 2048 tokens: 80 GiB x u - 16 GB weights - reserve.
  e.gpu_memory_utilization = 0.3;
  const std::vector<LlmRequest> load = poisson(200, 1000.0, 1024, 1024, 7);
  const LlmServingResult greedy = simulate_llm_serving(c, e, load);
  CHECK(greedy.kv.tokens() < 100 * 2048);
  CHECK(greedy.preemptions > 0);
  for (const LlmRequestOutcome& o : greedy.requests) {
    CHECK(o.end_s > o.first_token_s);
    CHECK(o.first_token_s > o.arrival_s);
  }
  CHECK(greedy.output_tokens() == 200 * 1024);
  e.admission = KvAdmission::guaranteed_no_evict;
  const LlmServingResult safe = simulate_llm_serving(c, e, load);
  CHECK(safe.preemptions == 0);
  CHECK(safe.mean_batch < greedy.mean_batch);
}

TEST_CASE("the sequence limit caps a batch and more sequences raise throughput") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::fp8, Precision::fp8);
  const std::vector<LlmRequest> load = poisson(600, 1e6, 128, 128, 3);
  LlmEngineConfig small;
  small.max_num_seqs = 16;
  LlmEngineConfig large;
  large.max_num_seqs = 256;
  const LlmServingResult a = simulate_llm_serving(c, small, load), b = simulate_llm_serving(c, large, load);
  CHECK(a.mean_batch <= 16);
  CHECK(b.output_tokens_per_s() > 4 * a.output_tokens_per_s());
}

TEST_CASE("closed loop: one client sends its next request when the previous returns") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  const LlmServingResult r = simulate_llm_serving(c, {}, LlmClosedLoop{1, 5, 256, 16});
  REQUIRE(r.requests.size() == 5);
  for (std::size_t i = 1; i < r.requests.size(); ++i) CHECK(r.requests[i].arrival_s == r.requests[i - 1].end_s);
  const LlmServingResult many = simulate_llm_serving(c, {}, LlmClosedLoop{8, 40, 256, 16});
  CHECK(many.requests_per_s() > 4 * r.requests_per_s());
}

TEST_CASE("the same load gives the same outcomes, bit for bit") {
  LlmReplicaCost c1 = replica("llama3-8b", 1, Precision::fp8, Precision::fp8);
  LlmReplicaCost c2 = replica("llama3-8b", 1, Precision::fp8, Precision::fp8);
  const std::vector<LlmRequest> load = poisson(300, 20.0, 512, 64, 11);
  const LlmServingResult a = simulate_llm_serving(c1, {}, load), b = simulate_llm_serving(c2, {}, load);
  REQUIRE(a.requests.size() == b.requests.size());
  for (std::size_t i = 0; i < a.requests.size(); ++i) {
    CHECK(a.requests[i].first_token_s == b.requests[i].first_token_s);
    CHECK(a.requests[i].end_s == b.requests[i].end_s);
  }
}

TEST_CASE("impossible replicas and requests are errors that say why") {
  CHECK_THROWS_WITH(replica("llama3-8b", 16, Precision::bf16, Precision::bf16), Catch::Contains("tp 16"));
  LlmReplicaCost big = replica("llama3.1-405b", 4, Precision::bf16, Precision::bf16);
  CHECK_THROWS_WITH(simulate_llm_serving(big, {}, std::vector<LlmRequest>{{0, 10, 10}}), Catch::Contains("no room for a KV cache"));
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::bf16, Precision::bf16);
  CHECK_THROWS_WITH(simulate_llm_serving(c, {}, std::vector<LlmRequest>{{0, 2000000, 10}}), Catch::Contains("more KV cache"));
}

TEST_CASE("the LLM serving keys are read with their locations") {
  const ConfigNode s = parse_config_text(
      "serving: {max_num_batched_tokens: 4096, max_num_seqs: 64, kv_cache_dtype: fp8, concurrency: 25,\n"
      "          kv_admission: guaranteed_no_evict, kv_cache_free_gpu_mem_fraction: 0.95}", "s.yaml").at("serving");
  const LlmServingKeys k = parse_llm_serving_keys(s);
  CHECK(k.engine.max_num_batched_tokens == 4096);
  CHECK(k.engine.max_num_seqs == 64);
  CHECK(k.kv_cache_dtype == Precision::fp8);
  CHECK(k.concurrency == 25);
  CHECK(k.engine.admission == KvAdmission::guaranteed_no_evict);
  CHECK(k.engine.kv_cache_free_gpu_mem_fraction == 0.95);
  const ConfigNode bad = parse_config_text("serving:\n  max_num_seqs: 0\n", "bad.yaml").at("serving");
  CHECK_THROWS_WITH(parse_llm_serving_keys(bad), Catch::Contains("bad.yaml:2:17"));
  const ConfigNode dtype = parse_config_text("serving: {kv_cache_dtype: int4}", "d.yaml").at("serving");
  CHECK_THROWS_AS(parse_llm_serving_keys(dtype), ConfigError);
}

TEST_CASE("a replica's share of the scenario's requests is the round-robin one") {
  ServingConfig s;
  s.replicas = 4;
  s.rate_rps = 40;
  s.requests = 10;
  s.seed = 5;
  const std::vector<RequestArrival> all = generate_arrivals(s);
  const auto share = std::get<std::vector<LlmRequest>>(llm_replica_load(s, 300, 20, 1));
  REQUIRE(share.size() == 3);  // requests 1, 5, 9
  CHECK(share[1].arrival_s == all[5].time_s);
  CHECK(share[2].input_len == 300);
  CHECK(share[2].output_len == 20);
  s.concurrency = 8;
  const auto closed = std::get<LlmClosedLoop>(llm_replica_load(s, 300, 20, 3));
  CHECK(closed.concurrency == 2);
  CHECK(closed.requests == 2);  // 10 over 4 replicas: 3, 3, 2, 2
  s.concurrency = 6;
  CHECK_THROWS_WITH(llm_replica_load(s, 300, 20), Catch::Contains("does not divide"));
}

TEST_CASE("a serve scenario's replica: parse_inference_setup and the LLM keys through parse_serving") {
  const ConfigNode root = parse_config_text(
      "kind: serve\nname: t\ncluster: {node: dgx-h100, nodes: 1}\n"
      "workload: {model: llama3-70b, precision: fp8, input_len: 512, output_len: 64}\n"
      "serving: {replicas: 1, requests: 50, rate_rps: 5, max_num_seqs: 32, kv_cache_dtype: fp8}\n"
      "parallelism: {tp: 2}\n", "scenario.yaml");
  const InferenceSetup setup = parse_inference_setup(root, catalog());
  const ServingConfig serving = parse_serving(root.at("serving"));
  const LlmServingKeys keys = parse_llm_serving_keys(root.at("serving"));
  LlmReplicaCost cost = llm_replica_cost(setup, *keys.kv_cache_dtype);
  CHECK(cost.tp() == 2);
  CHECK(cost.kv_bytes_per_token_per_gpu() == 80 * 4 * 128 * 2);
  const LlmServingResult r = simulate_llm_serving(cost, keys.engine, llm_replica_load(serving, 512, 64));
  CHECK(r.requests.size() == 50);
  CHECK(r.mean_batch <= 32);
  const ConfigNode typo = parse_config_text("serving: {max_num_seq: 32}", "typo.yaml");
  CHECK_THROWS_AS(parse_serving(typo.at("serving")), ConfigError);
}

TEST_CASE("the serve contract's common summary of an LLM run") {
  LlmReplicaCost c = replica("llama3-8b", 1, Precision::fp8, Precision::fp8);
  const LlmServingResult r = simulate_llm_serving(c, {}, poisson(400, 30.0, 1024, 128, 2));
  const ServingSummary s = summarize_llm_serving(r, 2, false);
  CHECK(s.requests == 800);
  CHECK(s.replicas == 2);
  CHECK(s.throughput_rps == Approx(2 * r.requests_per_s()));
  CHECK(s.latency_p50_s <= s.latency_p99_s);
  CHECK(s.queue_p99_s >= 0);
  CHECK(s.queue_p99_s < s.latency_p99_s);  // the wait is part of the latency
  CHECK(s.utilization > 0);
  CHECK(s.utilization <= 1);
  for (const LlmRequestOutcome& o : r.requests) {
    CHECK(o.admitted_s >= o.arrival_s);
    CHECK(o.first_token_s > o.admitted_s);
  }
}
