#pragma once
// The IO500 phases on a file system described as hardware (filesystem_spec.h): ior-easy (a file per
// process, large sequential transfers), ior-hard (one shared file of interleaved 47,008-byte records)
// and mdtest easy (a directory per process) and hard (one shared directory) creates, stats and deletes.
// Each phase is flows through fair-share resources: the client nodes' ports, the data servers' ports,
// their devices' bandwidth and IOPS, the targets' extent locks and the metadata servers' operations.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "configs/enum_names.h"
#include "models/storage/filesystem_spec.h"

namespace hpcsim {

enum class Io500Phase {
  ior_easy_write,
  ior_easy_read,
  ior_hard_write,
  ior_hard_read,
  mdtest_easy_create,
  mdtest_easy_stat,
  mdtest_easy_delete,
  mdtest_hard_create,
  mdtest_hard_stat,
  mdtest_hard_delete,
};

inline constexpr EnumNames<Io500Phase, 10> kIo500PhaseNames{{{
    {Io500Phase::ior_easy_write, "ior-easy-write"},
    {Io500Phase::ior_easy_read, "ior-easy-read"},
    {Io500Phase::ior_hard_write, "ior-hard-write"},
    {Io500Phase::ior_hard_read, "ior-hard-read"},
    {Io500Phase::mdtest_easy_create, "mdtest-easy-create"},
    {Io500Phase::mdtest_easy_stat, "mdtest-easy-stat"},
    {Io500Phase::mdtest_easy_delete, "mdtest-easy-delete"},
    {Io500Phase::mdtest_hard_create, "mdtest-hard-create"},
    {Io500Phase::mdtest_hard_stat, "mdtest-hard-stat"},
    {Io500Phase::mdtest_hard_delete, "mdtest-hard-delete"},
}}};

inline constexpr double kIorHardRecordBytes = 47008;  // IO500 rules: ior-hard's transfer size

bool is_bandwidth_phase(Io500Phase phase);  // ior phases (bytes/s); mdtest phases are operations/s

struct Io500Clients {
  int nodes = 1;
  int procs = 1;  // processes in all, placed block-wise (ranks 0..k-1 on the first node)
};

// How busy one stage was during a phase: its busiest member's carried load over capacity x time.
struct StageUse {
  std::string stage;  // "client ports", "server ports", "devices", "device IOPS", "extent locks", "metadata servers"
  double utilisation = 0;
};

struct Io500PhaseResult {
  Io500Phase phase = Io500Phase::ior_easy_write;
  double rate = 0;  // bytes/s for ior, operations/s for mdtest
  // The stage that set the rate: the busiest stage when it is saturated, else "client requests"
  // (the processes' requests in flight and their latency).
  std::string bottleneck;
  std::vector<StageUse> stages;
};

struct Io500Result {
  std::vector<Io500PhaseResult> phases;  // in kIo500PhaseNames order
  std::uint64_t events = 0;
  const Io500PhaseResult& at(Io500Phase phase) const { return phases[static_cast<std::size_t>(phase)]; }
};

// Throws std::invalid_argument when nodes or procs are below 1 or procs < nodes.
Io500Result simulate_io500(const FileSystemSpec& fs, const Io500Clients& clients);
// A checkpoint: every process writes (or reads back) its own file of `bytes_per_proc` bytes at once, as
// ior-easy does, so the slowest stage (client ports, server ports, devices, device IOPS, or the
// processes' requests in flight) sets the rate. The phase field says ior-easy-write or -read.
struct CheckpointResult {
  double time_s = 0;
  Io500PhaseResult rate;  // bytes/s, bottleneck and each stage's utilisation
};
CheckpointResult simulate_checkpoint(const FileSystemSpec& fs, const Io500Clients& clients, double bytes_per_proc,
                                     IoOp op);

// Readers that each read whole files one after another, as a training data loader's workers do: a file
// within one RPC is one request (touching only the data chunks it covers) after the file's open (a
// metadata round trip); a larger file streams through the client's RPC pipeline. The readers' steady rate,
// and what binds it: a data stage, "client requests" (the readers' own pace), or "metadata opens" when the
// spec gives an open rate (open_ops) that the opens exceed.
struct FileReadsResult {
  double bytes_per_s = 0;
  std::string bottleneck;
  Io500PhaseResult read;        // the data stages
  double open_bytes_per_s = 0;  // what the metadata servers' opens allow (0: no open rate given)
};
// Throws std::invalid_argument for a file of no bytes or readers as check for ior.
FileReadsResult simulate_file_reads(const FileSystemSpec& fs, const Io500Clients& readers, double file_bytes);

// Bytes/s the metadata servers' opens allow readers that open one file per `bytes_per_open` bytes: every
// open goes where mdtest hard's operations go (one shared directory: its server, or all when the file
// system shards directories), each server at its open rate. 0 when the spec gives no open rate.
double open_limited_bytes_per_s(const FileSystemSpec& fs, const Io500Clients& readers, double bytes_per_open);

// One phase alone (what simulate_io500 runs for it); adds its events to `events`.
Io500PhaseResult simulate_io500_phase(const FileSystemSpec& fs, const Io500Clients& clients, Io500Phase phase,
                                      std::uint64_t& events);

}  // namespace hpcsim
