// `mpirun -np N hpcsim sweep ...`: every rank builds the same plan from the same flags; rank 0 opens the
// store (resuming the study as one process would), claims every pending point no other live sweep claimed,
// tells the others which, and is the one writer: the others simulate their share (every N-th claimed point)
// and send each run record to it.
// Rank 0 simulates its own share too, storing what arrives between its points; then it waits for the points
// another live sweep of the study claimed (running any whose claimer died), as a sweep in one process does.
#include <mpi.h>

#include <bit>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

#include "commands.h"
#include "configs/config_error.h"
#include "sweep_run.h"

namespace hpcsim::cli {

namespace {

constexpr int kTagRecord = 1;
constexpr int kTagDone = 2;

// Length-prefixed fields; doubles by their bits, so what rank 0 stores is what the rank computed.
class Writer {
 public:
  void text(const std::string& s) {
    out_ += std::to_string(s.size()) + ':';
    out_ += s;
  }
  void number(double v) { text(std::to_string(std::bit_cast<std::uint64_t>(v))); }
  void integer(std::uint64_t v) { text(std::to_string(v)); }
  const std::string& bytes() const { return out_; }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(const std::string& in) : in_(in) {}
  std::string text() {
    const std::size_t colon = in_.find(':', at_);
    if (colon == std::string::npos) throw std::runtime_error("a truncated sweep message");
    const std::size_t n = std::stoull(in_.substr(at_, colon - at_));
    std::string s = in_.substr(colon + 1, n);
    at_ = colon + 1 + n;
    return s;
  }
  double number() { return std::bit_cast<double>(static_cast<std::uint64_t>(std::stoull(text()))); }
  std::uint64_t integer() { return std::stoull(text()); }

 private:
  const std::string& in_;
  std::size_t at_ = 0;
};

std::string encode(std::size_t index, const RunRecord& r) {
  Writer w;
  w.integer(index);
  w.text(r.report.scenario);
  w.text(r.report.kind);
  w.integer(r.report.metrics.size());
  for (const Metric& m : r.report.metrics) {
    w.text(m.name);
    w.integer(m.value ? 1 : 0);
    w.number(m.value.value_or(0));
    w.text(m.unit);
  }
  w.text(r.scenario_text);
  w.text(r.tool_version);
  w.text(r.started_at);
  w.number(r.wall_s);
  w.text(r.status);
  w.text(r.message);
  return w.bytes();
}

std::pair<std::size_t, RunRecord> decode(const std::string& bytes) {
  Reader in(bytes);
  const std::size_t index = in.integer();
  RunRecord r;
  r.report.scenario = in.text();
  r.report.kind = in.text();
  const std::uint64_t metrics = in.integer();
  for (std::uint64_t k = 0; k < metrics; ++k) {
    Metric m;
    m.name = in.text();
    const bool has = in.integer() != 0;
    const double v = in.number();
    if (has) m.value = v;
    m.unit = in.text();
    r.report.metrics.push_back(std::move(m));
  }
  r.scenario_text = in.text();
  r.tool_version = in.text();
  r.started_at = in.text();
  r.wall_s = in.number();
  r.status = in.text();
  r.message = in.text();
  return {index, std::move(r)};
}

// Receives one message of `tag` from `source` (or any) as bytes; returns the sender.
int receive(int source, int tag, std::string& bytes) {
  MPI_Status status;
  MPI_Probe(source, tag, MPI_COMM_WORLD, &status);
  int count = 0;
  MPI_Get_count(&status, MPI_CHAR, &count);
  bytes.assign(static_cast<std::size_t>(count), '\0');
  MPI_Recv(bytes.data(), count, MPI_CHAR, status.MPI_SOURCE, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return status.MPI_SOURCE;
}

// Rank 0 broadcasts the study id and the pending points (study id -1: the store failed, everyone stops).
void share_pending(SweepPlan& plan, int rank) {
  std::int64_t head[2] = {plan.study_id, static_cast<std::int64_t>(plan.pending.size())};
  MPI_Bcast(head, 2, MPI_INT64_T, 0, MPI_COMM_WORLD);
  plan.study_id = head[0];
  std::vector<std::uint64_t> pending(plan.pending.begin(), plan.pending.end());
  pending.resize(static_cast<std::size_t>(std::max<std::int64_t>(head[1], 0)));
  if (!pending.empty()) MPI_Bcast(pending.data(), static_cast<int>(pending.size()), MPI_UINT64_T, 0, MPI_COMM_WORLD);
  if (rank != 0) plan.pending.assign(pending.begin(), pending.end());
}

int sweep_ranks(const SweepOptions& o, int rank, int size) {
  SweepPlan plan;
  try {
    plan = sweep_plan(o);  // every rank reads the same flags and files: the same plan, the same errors
  } catch (const std::invalid_argument& e) {
    if (rank == 0) std::cerr << "hpcsim sweep: " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ConfigError& e) {
    if (rank == 0) std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  std::optional<ResultsStore> store;
  if (rank == 0) {
    try {
      store.emplace(o.db);
      open_study(plan, *store);
      claim_all_points(plan, *store);  // the points another live sweep claimed are left to it
    } catch (const StoreError& e) {  // an unusable store, found before any point runs
      std::cerr << "hpcsim sweep: " << e.what() << "\n";
      plan.study_id = -1;
      plan.pending.clear();
    }
  }
  if (rank == 0) {
    for (const std::string& note : plan.notes) std::cerr << "note: " << note << "\n";
  }
  share_pending(plan, rank);
  if (plan.study_id < 0) return kExitBadInput;

  const SpecCatalog catalog(config_root());
  const IntervalTable intervals = IntervalTable::load(config_root());
  std::vector<std::size_t> mine;
  for (std::size_t n = static_cast<std::size_t>(rank); n < plan.pending.size(); n += static_cast<std::size_t>(size)) {
    mine.push_back(plan.pending[n]);
  }
  if (rank != 0) {
    for (const std::size_t i : mine) {
      const std::string bytes = encode(i, simulate_point(plan, i, catalog, intervals, HPCSIM_VERSION));
      MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, kTagRecord, MPI_COMM_WORLD);
    }
    MPI_Send(nullptr, 0, MPI_CHAR, 0, kTagDone, MPI_COMM_WORLD);
    return kExitOk;
  }
  try {
    const auto store_message = [&](const std::string& bytes) {
      const auto [index, record] = decode(bytes);
      store_point(*store, plan, index, record);
    };
    std::string bytes;
    for (const std::size_t i : mine) {
      store_point(*store, plan, i, simulate_point(plan, i, catalog, intervals, HPCSIM_VERSION));
      for (int waiting = 1; waiting != 0;) {  // what the others finished meanwhile
        MPI_Iprobe(MPI_ANY_SOURCE, kTagRecord, MPI_COMM_WORLD, &waiting, MPI_STATUS_IGNORE);
        if (waiting != 0) {
          receive(MPI_ANY_SOURCE, kTagRecord, bytes);
          store_message(bytes);
        }
      }
    }
    // Each rank's records come before its done message (MPI keeps the order between two ranks per
    // communicator), so the records still to come are exactly those ahead of the done messages.
    for (int rank_done = 1; rank_done < size;) {
      MPI_Status status;
      MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &status);
      receive(status.MPI_SOURCE, status.MPI_TAG, bytes);
      if (status.MPI_TAG == kTagDone) {
        ++rank_done;
      } else {
        store_message(bytes);
      }
    }
    store.reset();
    // Points another live sweep of this study claimed are waited for (and taken over if it dies), as one
    // process does, so the table is whole and every point ends stored.
    if (!wait_for_other_sweeps(o, plan)) return kExitFailure;
    print_sweep_results(o, plan);
  } catch (const StoreError& e) {
    std::cerr << "hpcsim sweep: " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, store_failure_exit(e));
  }
  return kExitOk;
}

}  // namespace

bool launched_by_mpirun() {
  const char* size = std::getenv("OMPI_COMM_WORLD_SIZE");
  return size != nullptr && std::atoi(size) > 1;
}

int run_sweep_mpi(const SweepOptions& o) {
  MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int code = sweep_ranks(o, rank, size);
  MPI_Finalize();
  return code;
}

}  // namespace hpcsim::cli
