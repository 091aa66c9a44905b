#pragma once
// SimGrid's time-independent MPI traces: one action per line, "<rank> <action> <args>" (compute FLOPs,
// message sizes in datatype units, no timestamps), either one file for every rank or a description file
// listing one trace file per rank (rank i = the i-th listed file). Read into compact per-rank action lists
// with sizes in bytes (a rank's default datatype is MPI_BYTE, or MPI_DOUBLE after "init <anything>", as
// SimGrid's replay decides; an explicit datatype argument is SimGrid's datatype id). Every malformed line,
// unknown action, rank outside the world or file/rank count mismatch is a ConfigError "file:line:column: ...".
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "configs/source_loc.h"
#include "models/mpi/mpi_collectives.h"

namespace hpcsim {

enum class TiKind : std::uint8_t {
  init, finalize, comm_size, compute, sleep, send, isend, recv, irecv, test, wait, waitall, collective
};

struct TiAction {
  TiKind kind = TiKind::init;
  MpiCollective op = MpiCollective::barrier;  // kind == collective
  bool has_key = false;                     // wait/test with (src, dst, tag)
  std::uint16_t file = 0;                   // index in TiTrace::files
  std::int32_t peer = 0;                    // send: dst; recv: src; wait/test: src; collective: root
  std::int32_t peer2 = 0;                   // wait/test: dst
  std::int32_t tag = 0;
  std::uint32_t line = 0;
  double bytes = 0;     // message or per-rank block bytes; compute: FLOPs; sleep: seconds
  double compute = 0;   // reduce / allreduce / reducescatter: FLOPs after the collective
  double elements = 0;  // bytes / datatype size (the collective selector tests counts)
  std::uint32_t counts = 0, recv_counts = 0;  // offsets in TiTrace::counts (n entries each) or kNoCounts
};
inline constexpr std::uint32_t kNoCounts = 0xffffffffu;

struct TiTrace {
  int ranks = 0;
  std::vector<std::string> files;
  std::vector<std::vector<TiAction>> actions;  // per rank, in order
  std::vector<double> counts;                  // per-rank byte vectors of v collectives
  std::uint64_t parsed = 0;                    // actions read so far (held to the `actions` count limit)
  std::uint64_t total_actions() const;
  SourceLoc where(const TiAction& a) const { return SourceLoc{files[a.file], static_cast<int>(a.line), 1}; }
};

// `path` is a trace (its first action line starts with a rank number) or a description file (one trace
// path per line, relative to the description's folder). `ranks`: the rank count the caller expects
// (--np); nullopt takes it from the trace.
TiTrace read_ti_trace(const std::string& path, std::optional<int> ranks = std::nullopt);
// The same from text (one trace for all ranks); `file` names it in errors.
TiTrace parse_ti_trace(const std::string& text, const std::string& file, std::optional<int> ranks = std::nullopt);

}  // namespace hpcsim
