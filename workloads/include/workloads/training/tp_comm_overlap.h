#pragma once
// Tensor-parallel communication overlapped with the GEMMs (Megatron-Core --tp-comm-overlap, Transformer
// Engine's userbuffers: transformer_engine/common/comm_gemm_overlap, NeMo's "Communication Overlap" docs).
// With sequence parallelism the all-gather in front of the QKV and FC1 GEMMs and the reduce-scatter behind
// the projection and FC2 GEMMs are cut into chunks: a ring exchange passes one of the tp sequence chunks per
// step while the GEMM works on the chunk that arrived (all-gather), or the GEMM is split and each finished
// chunk is reduce-scattered while the next one computes (pipelined reduce-scatter). In backward the same
// collectives meet the data- and weight-gradient GEMMs (ring exchange and bulk overlap). The communication
// kernels hold some SMs meanwhile, so the GEMM runs slower for as long as a chunk is in flight (as
// NCCL's channels do in sm_contention.h).
namespace hpcsim {

// SMs Transformer Engine's userbuffers kernels hold while they run, from NeMo's H100 configuration for a
// hidden-8192 model (nemo/collections/llm/recipes/tp_overlap_configs/userbuffers.py,
// userbuffers_bf16_h100_h8192_tp4_mbs1_seqlen8192, the one its Llama 3 70B recipes use): forward, the
// ring-exchange all-gathers of qkv_fprop and fc1_fprop 1 SM each (RingExchangeOverlapCfg's num_sm
// default), the pipelined reduce-scatters of proj_fprop 24 and fc2_fprop 16: a mean of (1 + 1 + 24 + 16) / 4
// = 10.5 over the four collectives of a layer, each half of an all-reduce's time; backward, proj_dgrad and
// fc2_dgrad 1 (ring exchange), qkv_dgrad 4, fc1_dgrad 2, qkv_wgrad 24, fc1_wgrad 4 (bulk): (1 + 1 + 4 + 2 +
// 24 + 4) / 6 = 6. Other GPUs' configurations are close (B200: 16-32 SMs for the reduce-scatters, or ring
// exchange with 1); the H100 counts are used for every GPU (UNSURE beyond H100).
inline constexpr double kTpOverlapForwardSms = 10.5;
inline constexpr double kTpOverlapBackwardSms = 6.0;

// Exposed seconds (beyond the GEMMs' own `gemm_s`) of a collective of `comm_s` cut into `chunks` pieces and
// pipelined with the GEMMs cut likewise: the first GEMM chunk runs alone, then each GEMM chunk beside the
// previous chunk's transfer at `contended_rate` of its full rate while the transfer is in flight (full rate
// after it), then the last transfer alone. When the GEMMs are the longer this is one chunk of
// communication plus the slowdown, comm_s / chunks + comm_s (chunks - 1) / chunks (1 - contended_rate);
// when the communication is, comm_s - gemm_s (chunks - 1) / chunks. std::invalid_argument for chunks < 1,
// a rate outside (0, 1] or negative times.
double exposed_tp_comm(double comm_s, double gemm_s, int chunks, double contended_rate);

}  // namespace hpcsim
