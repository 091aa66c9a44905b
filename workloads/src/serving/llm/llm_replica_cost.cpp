#include "workloads/serving/llm/llm_replica_cost.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>

#include "models/collectives/isolated_collectives.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/op_kernel.h"
#include "workloads/inference/inference_setup.h"
#include "workloads/layers/attention.h"

namespace hpcsim {

namespace {

// One group of identical layers (the blocks repeat): one layer and what this GPU sees of its input, per token.
struct LayerGroup {
  std::shared_ptr<const Layer> layer;  // shared with the model, which the caller may drop
  Shapes in;                // per token ([1, dim] ...), tp-sharded where the producer's output is
  int count = 0;
  bool attention = false;
};

// A decoder's per-token shapes are [seq, dim]; a token of the iteration is one sample of [1, dim].
Shapes per_token(Shapes shapes) {
  for (Shape& s : shapes) {
    if (!s.empty()) s.front() = 1;
  }
  return shapes;
}

std::string signature(const LayerNode& n, const Shapes& in, int tp) {
  std::ostringstream key;
  key << n.layer->type() << '|' << static_cast<int>(n.layer->tensor_split()) << '|' << n.layer->params_per_rank(in, tp);
  for (const Shape& s : in) {
    key << '[';
    for (std::int64_t d : s) key << d << ',';
    key << ']';
  }
  key << '>';
  for (std::int64_t d : n.output) key << d << ',';
  if (const auto* a = dynamic_cast<const Attention*>(n.layer.get())) {
    key << "|h" << a->config().heads << 'k' << a->config().kv_heads << 'd' << a->config().head_dim;
  }
  return key.str();
}

}  // namespace

struct LlmReplicaCost::Impl {
  ClusterConfig cluster;
  GpuSpec gpu;
  int tp = 1;
  Precision precision = Precision::bf16, kv_precision = Precision::bf16;
  std::vector<LayerGroup> body, head;  // head: after the last residual addition, run on emitting rows only
  std::int64_t attention_layers = 0;
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0, model_dim = 0;  // per GPU (heads split over tp)
  double weight_bytes = 0, kv_bytes_per_token = 0;
  double peak_activation_bytes_per_token = 0, logits_per_row = 0;
  std::optional<IsolatedCollectives> collectives;
  std::vector<double> body_s, head_s;  // memoized by tokens / rows; < 0 unknown

  double layer_s(const LayerGroup& g, std::int64_t tokens) {
    const Precision p = layer_precision(g.layer->traits(), precision);
    LayerRun run;
    run.batch = tokens;
    run.precision = p;
    run.tp = tp;
    double s = 0;
    if (g.attention) {
      // The projections only: the attention core over the cache is timed per iteration.
      const std::int64_t qkv = (heads + 2 * kv_heads) * head_dim;
      s += estimate_op(gpu, {gemm(gpu, {tokens, qkv, model_dim, 1, p})}).time_s;
      s += estimate_op(gpu, {gemm(gpu, {tokens, model_dim, heads * head_dim, 1, p})}).time_s;
    } else {
      s += estimate_op(gpu, g.layer->kernels(gpu, g.in, run).forward).time_s;
    }
    if (collectives) {
      const double bytes = g.layer->tp_traffic(g.in, run).forward_bytes;
      if (bytes > 0) s += collectives->time(CollectiveOp::allreduce, bytes);
    }
    return s * g.count;
  }

  double memo(std::vector<double>& table, const std::vector<LayerGroup>& groups, std::int64_t n) {
    if (n <= 0) return 0;
    if (static_cast<std::int64_t>(table.size()) <= n) table.resize(static_cast<std::size_t>(n) + 1, -1);
    double& slot = table[static_cast<std::size_t>(n)];
    if (slot < 0) {
      double s = 0;
      for (const LayerGroup& g : groups) s += layer_s(g, n);
      slot = s;
    }
    return slot;
  }

  // The attention core's time by its exact shape: a benchmark's requests are alike, so a decode iteration's
  // shape comes back once a request (every iteration of a concurrency-1 run after the first request). The
  // same numbers either way; the table stops growing at kAttentionMemoEntries.
  struct AttentionKey {
    std::int64_t sequences;
    double queries, cache, pairs;
    bool operator==(const AttentionKey&) const = default;
  };
  struct AttentionKeyHash {
    std::size_t operator()(const AttentionKey& k) const {
      std::size_t h = std::hash<std::int64_t>{}(k.sequences);
      for (double v : {k.queries, k.cache, k.pairs}) h = h * 1000003u ^ std::hash<double>{}(v);
      return h;
    }
  };
  static constexpr std::size_t kAttentionMemoEntries = 1 << 16;  // about 5 MB
  std::unordered_map<AttentionKey, double, AttentionKeyHash> attention_memo;

  double attention_core_s(std::int64_t sequences, double queries, double cache, double pairs) {
    if (sequences <= 0) return 0;
    const AttentionKey key{sequences, queries, cache, pairs};
    if (const auto hit = attention_memo.find(key); hit != attention_memo.end()) return hit->second;
    const double s = attention_core_uncached_s(sequences, queries, cache, pairs);
    if (attention_memo.size() < kAttentionMemoEntries) attention_memo.emplace(key, s);
    return s;
  }

  double attention_core_uncached_s(std::int64_t sequences, double queries, double cache, double pairs) const {
    CachedAttentionShape a;
    a.sequences = sequences;
    a.query_tokens = queries;
    a.cache_tokens = cache;
    a.score_pairs = pairs;
    a.heads = heads;
    a.kv_heads = kv_heads;
    a.head_dim = head_dim;
    a.precision = between_gemms(precision);
    a.kv_precision = kv_precision;
    return estimate_op(gpu, {cached_attention(gpu, a)}).time_s * static_cast<double>(attention_layers);
  }
};

LlmReplicaCost::LlmReplicaCost(const Model& model, const ClusterConfig& cluster, int tp, Precision precision,
                               Precision kv_precision)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  if (tp < 1 || tp > cluster.gpus()) {
    throw std::invalid_argument("tp " + std::to_string(tp) + " needs that many GPUs; the cluster has " +
                                std::to_string(cluster.gpus()));
  }
  if (model.networks.size() != 1) throw std::invalid_argument("model '" + model.name + "' is not one decoder network");
  m.cluster = cluster;
  m.gpu = cluster.node.gpu;
  m.tp = tp;
  m.precision = precision;
  m.kv_precision = kv_precision;
  if (!m.gpu.supports(precision)) {
    throw std::invalid_argument("GPU '" + m.gpu.name + "' has no " + std::string(to_string(precision)) + " math units");
  }
  const Network& net = model.networks.front();
  const std::vector<bool> sharded = tp_sharded_outputs(net, tp);
  int last_add = -1;
  for (std::size_t i = 0; i < net.nodes().size(); ++i) {
    if (net.nodes()[i].layer && net.nodes()[i].layer->traits().passes_gradient) last_add = static_cast<int>(i);
  }
  std::map<std::string, std::size_t> body_index, head_index;
  const double act_bytes = bytes_per_element(between_gemms(precision));
  for (std::size_t i = 0; i < net.nodes().size(); ++i) {
    const LayerNode& n = net.nodes()[i];
    if (!n.layer) continue;
    const LayerTraits traits = n.layer->traits();
    if (traits.loss || traits.eval_identity) continue;  // training only
    Shapes in = per_token(n.input_shapes);
    for (std::size_t k = 0; k < n.inputs.size(); ++k) {
      if (sharded[static_cast<std::size_t>(n.inputs[k])] && !in[k].empty()) in[k].back() = tp_shard_width(in[k].back(), tp, traits.input_parts);
    }
    m.weight_bytes += static_cast<double>(n.layer->params_per_rank(in, tp)) * bytes_per_element(layer_precision(traits, precision));
    double per_token_elements = static_cast<double>(elements(per_token({n.output}).front()));
    if (sharded[i]) per_token_elements /= tp;
    for (const Shape& s : in) per_token_elements += static_cast<double>(elements(s));
    const bool in_head = static_cast<int>(i) > last_add;
    if (in_head) {
      m.logits_per_row = std::max(m.logits_per_row, per_token_elements);
    } else {
      m.peak_activation_bytes_per_token = std::max(m.peak_activation_bytes_per_token, per_token_elements * act_bytes);
    }
    LayerGroup g{n.layer, in, 1, false};
    if (const auto* a = dynamic_cast<const Attention*>(n.layer.get())) {
      const AttentionConfig& c = a->config();
      const std::int64_t dim = n.input_shapes.front().back();
      const std::int64_t kv = c.kv_heads > 0 ? c.kv_heads : c.heads;
      const std::int64_t hd = c.head_dim > 0 ? c.head_dim : dim / c.heads;
      if (m.attention_layers > 0 && (m.model_dim != dim || m.head_dim != hd)) {
        throw std::invalid_argument("model '" + model.name + "': attention layers of different shapes");
      }
      if (c.heads % tp != 0) {
        throw std::invalid_argument("model '" + model.name + "': " + std::to_string(c.heads) + " heads do not split over tp " + std::to_string(tp));
      }
      g.attention = true;
      m.model_dim = dim;
      m.head_dim = hd;
      m.heads = c.heads / tp;
      m.kv_heads = std::max<std::int64_t>(1, kv / tp);  // fewer KV heads than GPUs: each GPU keeps one
      m.attention_layers += 1;
      m.kv_bytes_per_token += 2.0 * static_cast<double>(m.kv_heads * hd) * bytes_per_element(kv_precision);
    }
    auto& index = in_head ? head_index : body_index;
    auto& groups = in_head ? m.head : m.body;
    auto [it, fresh] = index.try_emplace(signature(n, in, tp), groups.size());
    if (fresh) {
      groups.push_back(g);
    } else {
      groups[it->second].count += 1;
    }
  }
  if (m.attention_layers == 0) throw std::invalid_argument("model '" + model.name + "' has no attention layers to serve");
  m.logits_per_row *= 4;  // fp32 logits for sampling
  if (tp > 1) {
    std::vector<int> gpus(static_cast<std::size_t>(tp));
    for (int r = 0; r < tp; ++r) gpus[static_cast<std::size_t>(r)] = r;
    m.collectives.emplace(m.cluster, gpus);
  }
}

LlmReplicaCost::~LlmReplicaCost() = default;
LlmReplicaCost::LlmReplicaCost(LlmReplicaCost&&) noexcept = default;

double LlmReplicaCost::iteration_s(const IterationWork& w) {
  Impl& m = *impl_;
  double s = m.memo(m.body_s, m.body, w.tokens) + m.memo(m.head_s, m.head, w.emitting);
  s += m.attention_core_s(w.decode_sequences, static_cast<double>(w.decode_sequences), w.decode_cache_tokens,
                          w.decode_cache_tokens);
  s += m.attention_core_s(w.prefill_sequences, w.prefill_tokens, w.prefill_cache_tokens, w.prefill_score_pairs);
  return s;
}

const GpuSpec& LlmReplicaCost::gpu() const { return impl_->gpu; }
int LlmReplicaCost::tp() const { return impl_->tp; }
double LlmReplicaCost::weight_bytes_per_gpu() const { return impl_->weight_bytes; }
double LlmReplicaCost::kv_bytes_per_token_per_gpu() const { return impl_->kv_bytes_per_token; }
double LlmReplicaCost::activation_bytes_per_gpu(std::int64_t tokens, std::int64_t sequences) const {
  return impl_->peak_activation_bytes_per_token * static_cast<double>(tokens) +
         impl_->logits_per_row * static_cast<double>(sequences);
}

LlmReplicaCost llm_replica_cost(const InferenceSetup& setup, Precision kv_precision) {
  if (!setup.on_gpu()) throw std::invalid_argument("LLM serving needs GPUs; " + setup.node_name + " has none");
  if (setup.nodes != 1) throw std::invalid_argument("an LLM replica runs on one node (cluster.nodes: 1)");
  ClusterConfig cluster;
  cluster.node = setup.node;
  cluster.nodes = 1;
  cluster.gpus_per_node = setup.node.gpus;
  return LlmReplicaCost(setup.model, cluster, setup.tp, setup.precision, kv_precision);
}

}  // namespace hpcsim
