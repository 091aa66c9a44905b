#pragma once
// GPU-accelerated HPL, HPL-NVIDIA style (workload.accelerator: gpu; docs/hpc.md "GPU HPL"): one MPI rank per
// GPU, the local matrix in device memory, the trailing update (DTRSM + DGEMM) on the GPU's FP64 peak
// (tensor cores where the GPU has FP64 tensor cores: A100, H100; the FP64 vector units on P100, V100) times
// a DGEMM efficiency, the panel factorization on the GPU (HPL-NVIDIA's default: its README / docs say it
// ignores HPL.dat's panel-factorization, broadcast and look-ahead parameters and runs its own GPU
// factorization with look-ahead) or on the host cores (panel: host; its m_loc x NB panel goes device to host
// and back over the GPU's PCIe link each iteration, models/gpu/host_transfer.h), the panel broadcast and
// row swaps as in the CPU model (hpl_model.h) with messages between GPUs of one node over their NVLink /
// NVSwitch port and between nodes through MpiComm (GPUDirect RDMA; without it each message is also staged
// through host memory), and look-ahead depth 1 hiding the next panel and its broadcast behind the update.
// Rpeak is the GPUs' FP64 peak at the spec's boost clock; the host CPUs' peak is reported beside it.
#include "workloads/hpc/hpl_model.h"

namespace hpcsim {

// The DGEMM efficiency GPU HPL uses when workload.dgemm_efficiency is not given: the same generic
// vendor-BLAS figure the CPU specs carry (0.9 of peak on large matrices, docs/hpc.md), UNSURE for GPUs: no
// published single-GPU FP64 DGEMM measurement was found in the reference set; it is not fitted to any
// TOP500 row.
inline constexpr double kGpuDgemmEfficiency = 0.9;

// std::invalid_argument when the node has no GPUs, the ranks per node exceed its GPUs, the grid needs more
// nodes than the cluster has, or the panel is on the host of a node without a PCIe link spec.
HplResult simulate_hpl_gpu(const ClusterConfig& cluster, const HplConfig& config, const MpiComm& comm);

}  // namespace hpcsim
