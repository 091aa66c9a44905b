#include "models/gpu/ops/attention.h"
#include "models/gpu/grid_blocks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "gpu/kernel_residency.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"

namespace hpcsim {

namespace {

// The online softmax between a fused kernel's two products takes one exponential per score it computes
// (FlashAttention-2, Dao 2023, Algorithm 1); the backward recomputes it (P from S and the row's
// log-sum-exp), one more per score.
constexpr double kExpPerScore = 1;

// What a fused kernel's blocks see of the other side: `blocks` blocks of `block` rows each stream tiles of
// `tile` rows of the other side. Without a mask each sees all `seq`; under a causal mask the block of
// queries i sees the keys up to its last query (the backward's block of keys j, the queries from its first
// key on): whole tiles above the diagonal are skipped, the tiles the diagonal crosses computed in full and
// masked (FlashAttention-2, Dao 2023, sec. 3.1.1, "Causal masking").
constexpr double kMaxSummedBlocks = 1e7;

struct BlockReach {
  double rows = 0;   // rows of the other side read, summed over the blocks
  double tiles = 0;  // tiles computed, summed over the blocks
};

BlockReach block_reach(double seq, double blocks, int block, int tile, bool causal, bool queries) {
  // Summed block by block (a causal mask gives each its own reach): past 10^7 blocks that loop alone runs for
  // minutes (a sequence of 10^12 tokens hung `hpcsim kernel`), so there the sums are taken in closed form,
  // exact when a block is whole tiles (every block and tile size of the callers: powers of two, block >= tile).
  // Block i (of blocks = ceil(seq / block)) sees min(seq, (i + 1) block) keys as queries under the mask, or
  // seq - i block queries as keys; every block but the last sees whole tiles.
  if (!(blocks <= kMaxSummedBlocks)) {
    if (block % tile == 0 && blocks == std::ceil(seq / block)) {
      const double per_block = static_cast<double>(block / tile), pairs = blocks * (blocks - 1) / 2;
      const double seq_tiles = std::ceil(seq / tile);
      if (!causal) return {blocks * seq, blocks * seq_tiles};
      if (queries) return {block * pairs + seq, per_block * pairs + seq_tiles};
      return {blocks * seq - block * pairs, blocks * seq_tiles - per_block * pairs};
    }
    char text[128];
    std::snprintf(text, sizeof text, "attention over %.3g blocks of %d rows per sequence: more than the 10^7 hpcsim "
                  "sums one by one", blocks, block);
    throw std::invalid_argument(text);
  }
  BlockReach r;
  for (double i = 0; i < blocks; ++i) {
    const double seen = !causal ? seq : queries ? std::min(seq, (i + 1) * block) : seq - i * block;
    r.rows += seen;
    r.tiles += std::ceil(seen / tile);
  }
  return r;
}

}  // namespace

std::vector<Kernel> attention(const GpuSpec& gpu, const AttentionShape& a, bool fused) {
  if (a.batch < 1 || a.heads < 1 || a.seq < 1 || a.head_dim < 1) {
    throw std::invalid_argument("attention sizes must be at least 1");
  }
  if (!gpu.supports(a.precision)) {
    throw std::invalid_argument("GPU '" + gpu.name + "' has no " + std::string(to_string(a.precision)) + " math units");
  }
  const std::int64_t bh = a.batch * a.heads;
  const double e = bytes_per_element(a.precision);
  const double s = static_cast<double>(a.seq), d = static_cast<double>(a.head_dim);
  const double visible = a.causal ? 0.5 : 1.0;  // fraction of the score matrix a causal mask keeps
  if (!fused) {
    // S = Q K^T and O = P V as batched GEMMs; the scale, mask and softmax read and write S in HBM.
    Kernel qk = gemm(gpu, {a.seq, a.seq, a.head_dim, bh, a.precision});
    qk.name = "attention_qk_" + qk.name;
    std::vector<Kernel> softmax_kernels = softmax(bh * a.seq, a.seq, a.precision);
    Kernel pv = gemm(gpu, {a.seq, a.head_dim, a.seq, bh, a.precision});
    pv.name = "attention_pv_" + pv.name;
    std::vector<Kernel> out = {qk};
    out.insert(out.end(), softmax_kernels.begin(), softmax_kernels.end());
    out.push_back(pv);
    return out;
  }
  // Flash attention: a block of 128 queries per CTA, K and V tiles of 64 keys streamed through shared
  // memory (double-buffered), the score tile in registers; the causal mask skips whole tiles. On a GPU
  // whose blocks get less shared memory than that needs (max_smem_per_block), the tiles shrink until they
  // fit, as FlashAttention-2 sizes them to the opt-in maximum (flash_fwd_launch_template.h: head dim 128
  // runs 128 x 32 tiles, 48 KB, on sm86/sm89 instead of 128 x 64; head dims 224 and 256 run 128 x 64 only
  // where max_smem_per_block holds it, else 64 x 64): the key tile halves first, down to 16 keys, then
  // the query block, down to 16 rows.
  int kQueries = 128, kKeys = 64;
  const auto smem_bytes = [&] { return (kQueries * d + 2 * 2 * kKeys * d) * e; };
  while (smem_bytes() > gpu.sm.max_smem_per_block && kQueries > 16) {
    if (kKeys > 16) {
      kKeys /= 2;
    } else {
      kQueries /= 2;
    }
  }
  const bool tensor = gpu.tensor_flops_per_clock_per_sm[static_cast<int>(a.precision)].has_value();
  const double q_blocks = std::ceil(s / kQueries);
  Kernel k;
  k.name = "flash_attention";
  k.launch.blocks = grid_blocks(q_blocks * static_cast<double>(bh));
  k.launch.threads_per_block = 256;
  k.launch.registers_per_thread = std::min(255, static_cast<int>(kQueries * (d + kKeys) / 256) + 64);
  k.launch.smem_per_block = static_cast<int>(smem_bytes());
  KernelWork& w = k.work;
  const BlockReach reach = block_reach(s, q_blocks, kQueries, kKeys, a.causal, true);
  w.flops = 4 * s * s * d * static_cast<double>(bh) * visible;
  w.issued_flops = 4 * kQueries * reach.tiles * kKeys * d * static_cast<double>(bh);
  w.special_ops = kExpPerScore * w.issued_flops / (4 * d);  // per score computed, padding included
  w.precision = a.precision;
  w.unit = tensor ? MathUnit::tensor : MathUnit::vector;
  const double qo = s * d * e * static_cast<double>(bh);
  const double keys_read = reach.rows * d * static_cast<double>(bh);  // K elements the query blocks read
  w.add({qo, -1, 16, 1, false});                     // Q
  w.add({2 * keys_read * e, 2 * qo, 16, 1, false});  // K and V, once per query block
  w.add({qo, -1, 16, 1, true});                      // O
  // Blocks run in grid order, query blocks of one head next to each other: the heads resident at once
  // are the ones whose K and V are re-read from L2.
  const double resident = gpu.sm_count * std::max(1, resident_blocks(gpu, k.launch).blocks_per_sm);
  w.working_set_bytes = 2 * s * d * e * std::min<double>(static_cast<double>(bh), std::ceil(resident / q_blocks));
  w.requests_in_flight = std::max(1.0, 2 * kKeys * d * e / (8 * 32 * 16));
  w.block_latency_cycles = gpu.memory.hbm_latency_cycles;
  return {k};
}

Kernel attention_backward_fused(const GpuSpec& gpu, const AttentionShape& a) {
  Kernel k = attention(gpu, a, true).front();  // validates; the forward's launch shape and streams
  constexpr int kKeys = 128, kQueries = 64;
  const std::int64_t bh = a.batch * a.heads;
  const double e = bytes_per_element(a.precision);
  const double s = static_cast<double>(a.seq), d = static_cast<double>(a.head_dim);
  const double visible = a.causal ? 0.5 : 1.0;
  const double k_blocks = std::ceil(s / kKeys);
  k.name = "flash_attention_backward";
  k.launch.blocks = grid_blocks(k_blocks * static_cast<double>(bh));
  k.launch.registers_per_thread = 255;
  k.launch.smem_per_block = std::min(gpu.sm.max_smem_per_block, static_cast<int>((2 * kKeys * d + 2 * 2 * kQueries * d) * e));
  KernelWork w;
  const BlockReach reach = block_reach(s, k_blocks, kKeys, kQueries, a.causal, false);
  w.flops = 10 * s * s * d * static_cast<double>(bh) * visible;
  w.issued_flops = 10 * kKeys * reach.tiles * kQueries * d * static_cast<double>(bh);
  w.special_ops = kExpPerScore * w.issued_flops / (10 * d);
  w.precision = a.precision;
  w.unit = k.work.unit;
  const double kv = s * d * e * static_cast<double>(bh);
  const double queries_read = reach.rows * d * static_cast<double>(bh);  // Q elements the key blocks read
  w.add({2 * kv, -1, 16, 1, false});                        // K and V
  w.add({2 * queries_read * e, 2 * kv, 16, 1, false});      // Q and dO, once per key block
  w.add({2 * kv, -1, 16, 1, true});                         // dK and dV
  w.add({2 * queries_read * 4, kv / e * 4, 16, 1, true});  // dQ fp32 partial sums (read + add)
  w.working_set_bytes = k.work.working_set_bytes + kv / e * 4 / std::max(1.0, static_cast<double>(bh));
  w.requests_in_flight = k.work.requests_in_flight;
  w.block_latency_cycles = gpu.memory.hbm_latency_cycles;
  k.work = w;
  return k;
}

Kernel cached_attention(const GpuSpec& gpu, const CachedAttentionShape& a) {
  if (a.sequences < 1 || a.query_tokens < 1 || a.cache_tokens < a.query_tokens || a.heads < 1 || a.kv_heads < 1 ||
      a.head_dim < 1 || a.heads % a.kv_heads != 0) {
    throw std::invalid_argument("cached attention sizes must be at least 1, with heads a multiple of kv_heads");
  }
  if (!gpu.supports(a.precision)) {
    throw std::invalid_argument("GPU '" + gpu.name + "' has no " + std::string(to_string(a.precision)) + " math units");
  }
  constexpr int kKeys = 64;
  const double e = bytes_per_element(a.precision), ekv = bytes_per_element(a.kv_precision);
  const double d = static_cast<double>(a.head_dim);
  const double heads = static_cast<double>(a.heads), kv_heads = static_cast<double>(a.kv_heads);
  const double ctas = static_cast<double>(a.sequences) * kv_heads;
  // Split the keys (flash-decoding) until the grid covers every SM twice, never below one tile per split.
  const double keys_per_sequence = a.cache_tokens / static_cast<double>(a.sequences);
  const double splits = std::clamp(std::ceil(2.0 * gpu.sm_count / ctas), 1.0, std::max(1.0, std::floor(keys_per_sequence / kKeys)));
  const bool tensor = gpu.tensor_flops_per_clock_per_sm[static_cast<int>(a.precision)].has_value();
  Kernel k;
  k.name = "cached_attention";
  k.launch.blocks = grid_blocks(static_cast<double>(ctas) * splits);
  k.launch.threads_per_block = 128;
  k.launch.registers_per_thread = 128;
  k.launch.smem_per_block = static_cast<int>(2 * 2 * kKeys * d * ekv + (heads / kv_heads) * d * e);
  KernelWork& w = k.work;
  w.flops = 4 * a.score_pairs * d * heads;
  w.special_ops = kExpPerScore * a.score_pairs * heads;
  w.precision = a.precision;
  w.unit = tensor ? MathUnit::tensor : MathUnit::vector;
  const double kv_bytes = 2 * a.cache_tokens * kv_heads * d * ekv;
  const double q_bytes = a.query_tokens * heads * d * e;
  w.add({q_bytes, -1, 16, 1, false});   // Q
  w.add({kv_bytes, -1, 16, 1, false});  // K and V, once: the query heads of a group share the tiles
  w.add({q_bytes, -1, 16, 1, true});    // O
  if (splits > 1) w.add({2 * q_bytes / e * 4 * splits, -1, 16, 1, true});  // fp32 partial outputs of the splits
  w.requests_in_flight = std::max(1.0, 2 * kKeys * d * ekv / (4 * 32 * 16));
  w.block_latency_cycles = gpu.memory.hbm_latency_cycles;
  return k;
}

}  // namespace hpcsim
