#include "workloads/serving/llm/llm_serving_keys.h"

#include "configs/config_error.h"

namespace hpcsim {

const std::vector<std::string>& llm_serving_key_names() {
  static const std::vector<std::string> names = {
      "max_num_batched_tokens", "max_num_seqs",           "chunked_prefill",
      "kv_block_tokens",        "gpu_memory_utilization", "kv_cache_free_gpu_mem_fraction",
      "kv_admission",           "kv_cache_dtype",         "concurrency"};
  return names;
}

namespace {

std::int64_t positive_int(const ConfigNode& serving, const char* key, std::int64_t fallback) {
  const ConfigNode* n = serving.find(key);
  if (!n) return fallback;
  const std::int64_t v = n->as_int();
  if (v < 1) throw ConfigError(n->loc(), std::string(key) + " must be at least 1, got " + std::to_string(v));
  return v;
}

double fraction(const ConfigNode& serving, const char* key, double fallback) {
  const ConfigNode* n = serving.find(key);
  if (!n) return fallback;
  const double v = n->as_number();
  if (!(v > 0 && v <= 1)) throw ConfigError(n->loc(), std::string(key) + " must be in (0, 1], got " + n->as_string());
  return v;
}

}  // namespace

LlmServingKeys parse_llm_serving_keys(const ConfigNode& serving) {
  LlmServingKeys k;
  LlmEngineConfig& e = k.engine;
  e.max_num_batched_tokens = positive_int(serving, "max_num_batched_tokens", e.max_num_batched_tokens);
  e.max_num_seqs = positive_int(serving, "max_num_seqs", e.max_num_seqs);
  e.kv_block_tokens = positive_int(serving, "kv_block_tokens", e.kv_block_tokens);
  if (const ConfigNode* n = serving.find("chunked_prefill")) e.chunked_prefill = n->as_bool();
  e.gpu_memory_utilization = fraction(serving, "gpu_memory_utilization", e.gpu_memory_utilization);
  e.kv_cache_free_gpu_mem_fraction = fraction(serving, "kv_cache_free_gpu_mem_fraction", 1.0);
  if (!serving.find("kv_cache_free_gpu_mem_fraction")) e.kv_cache_free_gpu_mem_fraction = 0;
  if (const ConfigNode* n = serving.find("kv_admission")) {
    const std::string v = n->as_string();
    if (v == "max_utilization") {
      e.admission = KvAdmission::max_utilization;
    } else if (v == "guaranteed_no_evict") {
      e.admission = KvAdmission::guaranteed_no_evict;
    } else {
      throw ConfigError(n->loc(), "kv_admission must be max_utilization or guaranteed_no_evict, got '" + v + "'");
    }
  }
  if (const ConfigNode* n = serving.find("kv_cache_dtype")) {
    const std::optional<Precision> p = parse_precision(n->as_string());
    if (!p || (*p != Precision::fp16 && *p != Precision::bf16 && *p != Precision::fp8)) {
      throw ConfigError(n->loc(), "kv_cache_dtype must be fp16, bf16 or fp8, got '" + n->as_string() + "'");
    }
    k.kv_cache_dtype = p;
  }
  if (serving.find("concurrency")) k.concurrency = static_cast<int>(positive_int(serving, "concurrency", 1));
  return k;
}

}  // namespace hpcsim
