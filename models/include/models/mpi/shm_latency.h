#pragma once
// The one latency of an MPI message between two ranks of a node (shared-memory transport), used by both
// MPI back ends: the fabric-level MpiWorld on a FabricMachine (models/mpi/fabric_machine.h) and the
// analytic MpiComm (workloads/hpc/mpi_comm.h).
// Source: open-mpi/ompi#5490: osu_latency 0 B = 0.52 us, Open MPI 3.0.1 (vader BTL), two ranks on one
// socket of a Xeon E5-2699 v3 (also in ../shared/reference/hpc/osu-public.yaml). Other reports span
// 0.16 us (Open MPI 4.0 vader, one socket, open-mpi/ompi#7861) to 0.35 us (Open MPI 3.0, across sockets,
// open-mpi/ompi#7784): the figure depends on the CPU and library version; 0.5 us is the sourced
// same-socket Open MPI figure, rounded.
namespace hpcsim {

inline constexpr double kShmLatencyS = 0.5e-6;

}  // namespace hpcsim
