#pragma once
// HPL (High-Performance Linpack) with its real structure on a CPU cluster: an N x N matrix in NB x NB blocks
// dealt block-cyclically over a P x Q process grid (row-major rank order, as HPL's default PMAP), and for
// each of the N/NB panels: the panel factorization on its process column (a recursive LU of the column's
// rows, one pivot search per column as an all-reduce over the P ranks), the panel broadcast along each
// process row (increasing ring, modified ring or long / spread-roll), the row swaps along each process
// column (spread-roll), the triangular solve of the U block row and the trailing update as a DGEMM of the
// local trailing matrix (omp_region.h: roofline at the vector clock, the socket's bandwidth shared by its
// ranks). With look-ahead depth >= 1 the next panel's factorization and broadcast run behind the current
// update; with depth 0 they follow it. The time of the most loaded rank, iteration by iteration, gives
// HPL's time; communication goes through MpiComm (mpi_comm.h).
#include <string_view>

#include "configs/enum_names.h"
#include "models/platform/cluster_config.h"
#include "workloads/hpc/mpi_comm.h"

namespace hpcsim {

enum class HplBcast { increasing_ring, modified_ring, long_bcast };
inline constexpr EnumNames<HplBcast, 3> kHplBcastNames{{{
    {HplBcast::increasing_ring, "increasing-ring"},  // HPL's 1ring
    {HplBcast::modified_ring, "modified-ring"},      // HPL's 1ringM
    {HplBcast::long_bcast, "long"},                  // HPL's blong (spread-roll)
}}};

// Where the trailing update runs (workload.accelerator): the CPU cores (OpenMP DGEMM) or the node's GPUs,
// one MPI rank per GPU, HPL-NVIDIA style (hpl_gpu.h).
enum class HplAccelerator { cpu, gpu };
inline constexpr EnumNames<HplAccelerator, 2> kHplAcceleratorNames{{{
    {HplAccelerator::cpu, "cpu"}, {HplAccelerator::gpu, "gpu"}}}};

// GPU HPL: where the panel factorization runs (workload.panel): on the GPU (HPL-NVIDIA's default) or on
// the host cores, its panel copied to the host and back over PCIe each iteration.
enum class HplPanel { gpu, host };
inline constexpr EnumNames<HplPanel, 2> kHplPanelNames{{{{HplPanel::gpu, "gpu"}, {HplPanel::host, "host"}}}};

struct HplConfig {
  double n = 0;            // matrix order
  int nb = 0;              // block size
  int p = 0;               // process rows
  int q = 0;               // process columns
  HplBcast bcast = HplBcast::modified_ring;
  int depth = 1;           // look-ahead depth
  int ranks_per_node = 1;
  int threads_per_rank = 1;
  HplAccelerator accelerator = HplAccelerator::cpu;
  HplPanel panel = HplPanel::gpu;         // accelerator gpu only
  double gpu_dgemm_efficiency = 0;        // accelerator gpu: of the GPU's FP64 peak a large DGEMM reaches
};

struct HplResult {
  HplConfig config;
  int nodes = 0;            // nodes the ranks occupy
  double flops = 0;         // 2/3 N^3 + 3/2 N^2, HPL's count
  double time_s = 0;
  double flop_rate = 0;     // FLOP/s (HPL's Gflops x 1e9)
  double rpeak = 0;         // FLOP/s of the nodes used, at the nominal clock (the TOP500's Rpeak)
  double efficiency = 0;    // flop_rate / rpeak
  // Summed over the iterations, on the most loaded rank.
  double update_s = 0;      // trailing DGEMM and triangular solve
  double panel_s = 0;       // panel factorization with its pivot all-reduces
  double bcast_s = 0;       // panel broadcast
  double swap_s = 0;        // row swaps
  double exposed_s = 0;     // time the update did not hide (panel path, broadcast and swaps beyond it)
  double matrix_bytes_per_node = 0;
  // accelerator gpu only (0 otherwise): GPUs the ranks drive, the host CPUs' FP64 peak (not in rpeak), and
  // the panel's host<->device copies (panel on host), summed on the most loaded rank.
  int gpus = 0;
  double rpeak_host = 0;
  double host_copy_s = 0;
};

// N that fills `fraction` of the nodes' memory with the matrix (8 bytes per element), rounded down to a
// multiple of nb: what HPL tuners choose (about 80 %).
double hpl_n_from_memory(const ClusterConfig& cluster, int nodes, int nb, double fraction = 0.8);

// accelerator gpu: N that fills `fraction` of the GPUs' memory (one rank per GPU, the matrix in device memory).
double hpl_n_from_gpu_memory(const ClusterConfig& cluster, int gpus, int nb, double fraction = 0.8);

// accelerator gpu runs simulate_hpl_gpu (hpl_gpu.h). std::invalid_argument when the node has no HPC description of its CPU, or the grid does not fit the
// cluster's cores (the scenario parser reports these at their keys first).
HplResult simulate_hpl(const ClusterConfig& cluster, const HplConfig& config, const MpiComm& comm);

}  // namespace hpcsim
