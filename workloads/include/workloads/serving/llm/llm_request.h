#pragma once
// What an LLM endpoint is asked and what each request gets back.
#include <cstdint>
#include <vector>

namespace hpcsim {

// One generation request: it arrives, its prompt of input_len tokens is prefilled, then output_len tokens
// are generated one per engine iteration (the first by the iteration that finishes the prefill).
struct LlmRequest {
  double arrival_s = 0;
  std::int64_t input_len = 1;
  std::int64_t output_len = 1;
};

// Closed-loop load as genai-perf, AIPerf and NIM benchmarks drive it: `concurrency` clients, each sending
// its next request (fixed lengths) the moment its previous one returns, until `requests` were sent.
struct LlmClosedLoop {
  int concurrency = 1;
  std::int64_t requests = 1;
  std::int64_t input_len = 1;
  std::int64_t output_len = 1;
};

struct LlmRequestOutcome {
  double arrival_s = 0;
  double admitted_s = 0;     // when its prompt was first scheduled (the end of its queue wait)
  double first_token_s = 0;  // when the first output token was produced
  double end_s = 0;          // when the last one was
  std::int64_t input_len = 0, output_len = 0;
  int preemptions = 0;       // times its KV cache was freed and its tokens recomputed
  double ttft_s() const { return first_token_s - arrival_s; }
  // Mean time between output tokens after the first; 0 for a single-token output.
  double tpot_s() const { return output_len > 1 ? (end_s - first_token_s) / static_cast<double>(output_len - 1) : 0; }
};

}  // namespace hpcsim
