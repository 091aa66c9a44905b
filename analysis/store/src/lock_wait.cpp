// The results store's busy handler: waits for another process's lock on the file, saying so on stderr.
#include <algorithm>
#include <cstdio>
#include <thread>

#include "store_schema.h"

namespace hpcsim::sqlite {

namespace {

// SQLite calls this while the file is locked by another connection; `tries` is 0 at the start of each wait.
// Nonzero: try again; zero: give up (the statement fails with SQLITE_BUSY, "database is locked").
int on_busy(void* state, int tries) {
  auto& wait = *static_cast<LockWait*>(state);
  const auto now = std::chrono::steady_clock::now();
  if (tries == 0) {
    wait.since = now;
    wait.notes = 0;
  }
  const double waited = std::chrono::duration<double>(now - wait.since).count();
  if (waited >= kLockWaitLimitS) return 0;
  if (waited >= kLockNoteEveryS * (wait.notes + 1)) {
    ++wait.notes;
    std::fprintf(stderr, "note: %s: waiting for another process that holds this store (%.0f s so far; gives up at %.0f s)\n",
                 wait.path.c_str(), waited, kLockWaitLimitS);
  }
  // SQLite's own schedule: short sleeps first (a commit takes milliseconds), then 100 ms.
  std::this_thread::sleep_for(std::chrono::milliseconds(std::min(1 + 4 * tries, 100)));
  return 1;
}

}  // namespace

void wait_for_lock(Connection& conn) {
  conn.lock_wait = std::make_unique<LockWait>();
  conn.lock_wait->path = conn.path;
  sqlite3_busy_handler(conn.db.get(), on_busy, conn.lock_wait.get());
}

}  // namespace hpcsim::sqlite
