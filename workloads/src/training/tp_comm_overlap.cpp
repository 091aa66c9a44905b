// The chunk pipeline of an overlapped tensor-parallel collective (tp_comm_overlap.h).
#include "workloads/training/tp_comm_overlap.h"

#include <stdexcept>

namespace hpcsim {

double exposed_tp_comm(double comm_s, double gemm_s, int chunks, double contended_rate) {
  if (chunks < 1) throw std::invalid_argument("an overlapped collective needs at least one chunk");
  if (!(contended_rate > 0 && contended_rate <= 1)) throw std::invalid_argument("the contended rate must be in (0, 1]");
  if (!(comm_s >= 0 && gemm_s >= 0)) throw std::invalid_argument("communication and GEMM times must be >= 0");
  if (comm_s == 0) return 0;
  const double n = chunks, gemm_chunk = gemm_s / n, comm_chunk = comm_s / n;
  // One step of the pipeline: a GEMM chunk beside a transfer. The transfer slows it while in flight; a
  // GEMM chunk that outlasts the transfer finishes at the full rate.
  const double step = comm_chunk * contended_rate >= gemm_chunk ? comm_chunk
                                                                : comm_chunk + (gemm_chunk - comm_chunk * contended_rate);
  const double total = gemm_chunk + (n - 1) * step + comm_chunk;
  return total - gemm_s;
}

}  // namespace hpcsim
