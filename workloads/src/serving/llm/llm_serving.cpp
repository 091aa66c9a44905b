#include "workloads/serving/llm/llm_serving.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <string>

#include "sim-core/simulator.h"

namespace hpcsim {

std::string_view to_string(KvAdmission a) {
  return a == KvAdmission::guaranteed_no_evict ? "guaranteed_no_evict" : "max_utilization";
}

std::int64_t LlmServingResult::output_tokens() const {
  std::int64_t n = 0;
  for (const LlmRequestOutcome& r : requests) n += r.output_len;
  return n;
}

double LlmServingResult::output_tokens_per_s() const {
  const double span = last_end_s - first_arrival_s;
  return span > 0 ? static_cast<double>(output_tokens()) / span : 0;
}

double LlmServingResult::requests_per_s() const {
  const double span = last_end_s - first_arrival_s;
  return span > 0 ? static_cast<double>(requests.size()) / span : 0;
}

namespace {

struct Sequence {
  std::int64_t input = 0, output = 0;
  std::int64_t known = 0;      // prompt plus generated tokens
  std::int64_t cached = 0;     // tokens whose keys and values are in the cache
  std::int64_t generated = 0;
  std::int64_t blocks = 0;
  bool running = false;
};

struct Planned {
  int seq;
  std::int64_t tokens;
};

class Engine {
 public:
  Engine(LlmReplicaCost& cost, const LlmEngineConfig& engine, const KvCapacity& kv,
         std::function<void(std::size_t, std::size_t)> after_each)
      : after_each_(std::move(after_each)), cost_(cost), engine_(engine), free_blocks_(kv.blocks) {
    result_.kv = kv;
  }

  void open_loop(std::vector<LlmRequest> requests) {
    std::stable_sort(requests.begin(), requests.end(),
                     [](const LlmRequest& a, const LlmRequest& b) { return a.arrival_s < b.arrival_s; });
    requests_ = std::move(requests);
    total_ = requests_.size();
    for (std::size_t i = 0; i < requests_.size(); ++i) {
      sim_.schedule_at(Time::seconds(requests_[i].arrival_s), [this, i] { issue(requests_[i]); });
    }
  }

  void closed_loop(const LlmClosedLoop& c) {
    closed_ = c;
    total_ = static_cast<std::size_t>(std::max<std::int64_t>(0, c.requests));
    for (int i = 0; i < c.concurrency && issued_ < c.requests; ++i) issue_closed();
  }

  LlmServingResult run() {
    sim_.run();
    if (!waiting_.empty() || !running_.empty()) throw std::logic_error("LLM engine stopped with requests left");
    if (!result_.requests.empty()) {
      result_.first_arrival_s = result_.requests.front().arrival_s;
      for (const LlmRequestOutcome& r : result_.requests) {
        result_.first_arrival_s = std::min(result_.first_arrival_s, r.arrival_s);
        result_.last_end_s = std::max(result_.last_end_s, r.end_s);
      }
    }
    result_.mean_batch = result_.iterations > 0 ? batched_ / static_cast<double>(result_.iterations) : 0;
    return std::move(result_);
  }

 private:
  std::int64_t blocks_for(std::int64_t tokens) const {
    return (tokens + engine_.kv_block_tokens - 1) / engine_.kv_block_tokens;
  }

  void issue(const LlmRequest& r) {
    if (r.input_len < 1 || r.output_len < 1) throw std::invalid_argument("LLM request lengths must be at least 1 token");
    if (blocks_for(r.input_len + r.output_len) > result_.kv.blocks) {
      throw std::invalid_argument("a request of " + std::to_string(r.input_len) + " + " + std::to_string(r.output_len) +
                                  " tokens needs more KV cache than the replica holds (" +
                                  std::to_string(result_.kv.tokens()) + " tokens)");
    }
    LlmRequestOutcome o;
    o.arrival_s = sim_.now().to_seconds();
    o.input_len = r.input_len;
    o.output_len = r.output_len;
    o.first_token_s = -1;
    result_.requests.push_back(o);
    Sequence s;
    s.input = r.input_len;
    s.output = r.output_len;
    s.known = r.input_len;
    seqs_.push_back(s);
    waiting_.push_back(static_cast<int>(seqs_.size()) - 1);
    kick();
  }

  void issue_closed() {
    ++issued_;
    issue({sim_.now().to_seconds(), closed_.input_len, closed_.output_len});
  }

  // One scheduling pass per instant, after every arrival at that instant.
  void kick() {
    if (busy_ || step_pending_) return;
    step_pending_ = true;
    sim_.schedule_in(Time::zero(), [this] {
      step_pending_ = false;
      step();
    });
  }

  void preempt(int id) {
    Sequence& s = seqs_[static_cast<std::size_t>(id)];
    free_blocks_ += s.blocks;
    s.blocks = 0;
    s.cached = 0;
    s.running = false;
    running_.erase(std::find(running_.begin(), running_.end(), id));
    waiting_.push_front(id);
    result_.requests[static_cast<std::size_t>(id)].preemptions += 1;
    result_.preemptions += 1;
  }

  // Blocks so that `s` holds `tokens` tokens; false when there are not enough free.
  bool grow(Sequence& s, std::int64_t tokens) {
    const std::int64_t need = blocks_for(tokens) - s.blocks;
    if (need <= 0) return true;
    if (need > free_blocks_) return false;
    free_blocks_ -= need;
    s.blocks += need;
    return true;
  }

  void plan(int id, std::int64_t tokens) {
    plan_.push_back({id, tokens});
    budget_ -= tokens;
  }

  void step() {
    plan_.clear();
    budget_ = engine_.max_num_batched_tokens;
    bool preempted = false;
    // 1. One token for every decoding sequence, in admission order; a decode that finds no free block
    //    preempts the latest admitted sequence (itself when it is the latest).
    for (std::size_t i = 0; i < running_.size() && budget_ > 0; ++i) {
      const int id = running_[i];
      Sequence& s = seqs_[static_cast<std::size_t>(id)];
      if (s.generated == 0 || s.known - s.cached != 1) continue;
      while (!grow(s, s.cached + 1)) {
        const int victim = running_.back();
        preempt(victim);
        preempted = true;
        if (victim == id) break;
      }
      if (!s.running) break;  // it was the latest admitted: everything after it is gone too
      plan(id, 1);
    }
    // 2. The next chunk of prompts being prefilled (or recomputed), within the budget and the free blocks.
    for (std::size_t i = 0; i < running_.size() && budget_ > 0; ++i) {
      const int id = running_[i];
      Sequence& s = seqs_[static_cast<std::size_t>(id)];
      if (s.generated > 0 && s.known - s.cached == 1) continue;
      std::int64_t chunk = std::min(s.known - s.cached, budget_);
      if (!engine_.chunked_prefill && chunk < s.known - s.cached) continue;
      const std::int64_t room = (s.blocks + free_blocks_) * engine_.kv_block_tokens - s.cached;
      chunk = std::min(chunk, room);
      if (chunk <= 0 || (!engine_.chunked_prefill && chunk < s.known - s.cached)) continue;
      grow(s, s.cached + chunk);
      plan(id, chunk);
    }
    // 3. New (or preempted) requests in order, while sequences, budget and blocks remain; none in an
    //    iteration that had to preempt.
    while (!preempted && !waiting_.empty() && static_cast<std::int64_t>(running_.size()) < engine_.max_num_seqs &&
           budget_ > 0) {
      const int id = waiting_.front();
      Sequence& s = seqs_[static_cast<std::size_t>(id)];
      const std::int64_t prompt = s.known - s.cached;
      const std::int64_t chunk = std::min(prompt, budget_);
      if (!engine_.chunked_prefill && chunk < prompt) break;
      const std::int64_t reserve = engine_.admission == KvAdmission::guaranteed_no_evict ? s.input + s.output : chunk;
      if (!grow(s, reserve)) break;
      waiting_.pop_front();
      LlmRequestOutcome& o = result_.requests[static_cast<std::size_t>(id)];
      if (o.preemptions == 0) o.admitted_s = sim_.now().to_seconds();
      s.running = true;
      running_.push_back(id);
      plan(id, chunk);
    }
    if (plan_.empty()) {
      // Prefills hold every block and none can go on: give the latest admitted one's blocks back.
      if (!running_.empty()) {
        preempt(running_.back());
        step();
      }
      return;
    }
    IterationWork w;
    for (const Planned& p : plan_) {
      const Sequence& s = seqs_[static_cast<std::size_t>(p.seq)];
      const double before = static_cast<double>(s.cached), q = static_cast<double>(p.tokens);
      w.tokens += p.tokens;
      if (s.cached + p.tokens == s.known) w.emitting += 1;
      if (s.generated > 0 && p.tokens == 1 && s.known - s.cached == 1) {
        w.decode_sequences += 1;
        w.decode_cache_tokens += before + 1;
      } else {
        w.prefill_sequences += 1;
        w.prefill_tokens += q;
        w.prefill_cache_tokens += before + q;
        w.prefill_score_pairs += q * before + q * (q + 1) / 2;
      }
    }
    const double seconds = cost_.iteration_s(w);
    result_.iterations += 1;
    result_.busy_s += seconds;
    batched_ += static_cast<double>(plan_.size());
    const double used = 1.0 - static_cast<double>(free_blocks_) / static_cast<double>(result_.kv.blocks);
    result_.max_kv_utilization = std::max(result_.max_kv_utilization, used);
    busy_ = true;
    sim_.schedule_in(Time::seconds(seconds), [this] { finish_iteration(); });
  }

  void finish_iteration() {
    busy_ = false;
    const double now = sim_.now().to_seconds();
    bool finished_any = false;
    for (const Planned& p : plan_) {
      Sequence& s = seqs_[static_cast<std::size_t>(p.seq)];
      s.cached += p.tokens;
      if (s.cached < s.known) continue;
      LlmRequestOutcome& o = result_.requests[static_cast<std::size_t>(p.seq)];
      s.generated += 1;
      if (o.first_token_s < 0) o.first_token_s = now;
      if (s.generated < s.output) {
        s.known += 1;
        continue;
      }
      o.end_s = now;
      if (after_each_) after_each_(++finished_, total_);
      free_blocks_ += s.blocks;
      s.blocks = 0;
      s.running = false;
      finished_any = true;
    }
    if (finished_any) {
      std::erase_if(running_, [this](int id) { return !seqs_[static_cast<std::size_t>(id)].running; });
    }
    // Closed-loop clients send their next request as soon as theirs returns.
    if (closed_.concurrency > 0) {
      for (const Planned& p : plan_) {
        const Sequence& s = seqs_[static_cast<std::size_t>(p.seq)];
        if (!s.running && s.generated == s.output && issued_ < closed_.requests) issue_closed();
      }
    }
    if (!running_.empty() || !waiting_.empty()) kick();
  }

  std::function<void(std::size_t, std::size_t)> after_each_;  // (requests finished, of total), for a progress line
  std::size_t finished_ = 0, total_ = 0;
  LlmReplicaCost& cost_;
  LlmEngineConfig engine_;
  Simulator sim_;
  std::vector<LlmRequest> requests_;
  LlmClosedLoop closed_{0, 0, 1, 1};
  std::int64_t issued_ = 0;
  std::vector<Sequence> seqs_;
  std::deque<int> waiting_;
  std::vector<int> running_;  // admission order
  std::vector<Planned> plan_;
  std::int64_t budget_ = 0, free_blocks_ = 0;
  bool busy_ = false, step_pending_ = false;
  double batched_ = 0;
  LlmServingResult result_;
};

}  // namespace

LlmServingResult simulate_llm_serving(LlmReplicaCost& cost, const LlmEngineConfig& engine, const LlmLoad& load,
                                      const std::function<void(std::size_t, std::size_t)>& after_each) {
  if (engine.max_num_batched_tokens < 1 || engine.max_num_seqs < 1 || engine.kv_block_tokens < 1) {
    throw std::invalid_argument("max_num_batched_tokens, max_num_seqs and kv_block_tokens must be at least 1");
  }
  if (!(engine.gpu_memory_utilization > 0 && engine.gpu_memory_utilization <= 1) ||
      engine.kv_cache_free_gpu_mem_fraction < 0 || engine.kv_cache_free_gpu_mem_fraction > 1) {
    throw std::invalid_argument("gpu_memory_utilization must be in (0, 1] and kv_cache_free_gpu_mem_fraction in [0, 1]");
  }
  Engine e(cost, engine, kv_capacity(cost, engine), after_each);
  if (const auto* open = std::get_if<std::vector<LlmRequest>>(&load)) {
    e.open_loop(*open);
  } else {
    const LlmClosedLoop& c = std::get<LlmClosedLoop>(load);
    if (c.concurrency < 1 || c.requests < 1) throw std::invalid_argument("closed-loop concurrency and requests must be at least 1");
    e.closed_loop(c);
  }
  return e.run();
}

ServingSummary summarize_llm_serving(const LlmServingResult& r, int replicas, bool offline) {
  ServingSummary s;
  std::vector<double> latency, queue;
  for (const LlmRequestOutcome& o : r.requests) {
    latency.push_back(o.end_s - o.arrival_s);
    queue.push_back(o.admitted_s - o.arrival_s);
  }
  s.requests = s.served = static_cast<std::int64_t>(r.requests.size()) * replicas;
  s.latency_mean_s = latency.empty() ? 0 : std::accumulate(latency.begin(), latency.end(), 0.0) / static_cast<double>(latency.size());
  s.queue_mean_s = queue.empty() ? 0 : std::accumulate(queue.begin(), queue.end(), 0.0) / static_cast<double>(queue.size());
  s.latency_p50_s = nearest_rank_percentile(latency, 0.50);
  s.latency_p90_s = nearest_rank_percentile(latency, 0.90);
  s.latency_p99_s = nearest_rank_percentile(latency, 0.99);
  s.queue_p50_s = nearest_rank_percentile(queue, 0.50);
  s.queue_p99_s = nearest_rank_percentile(queue, 0.99);
  s.throughput_rps = r.requests_per_s() * replicas;
  const double span = r.last_end_s - r.first_arrival_s;
  // A busy replica's summed iteration times can exceed the span by rounding: the fraction is at most 1.
  s.utilization = span > 0 ? std::min(1.0, r.busy_s / span) : 0;
  s.mean_batch = r.mean_batch;
  s.replicas = replicas;
  s.offline = offline;
  return s;
}

}  // namespace hpcsim
