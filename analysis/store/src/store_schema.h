#pragma once
// The results store's tables, created in a new file and upgraded in place in an older one (private to analysis/).
#include "sqlite_connection.h"

namespace hpcsim::sqlite {

// Another process holding the file's lock (a sweep committing, a reader in a long transaction) is waited
// for, with a note on stderr every kLockNoteEveryS seconds, for at most kLockWaitLimitS: a run is not lost
// for a reader that takes a while, and a wait never sits silent.
inline constexpr double kLockNoteEveryS = 10;
inline constexpr double kLockWaitLimitS = 600;

// Installs that wait as the connection's busy handler.
void wait_for_lock(Connection& conn);

// Upgrades an older hpcsim's file to the current version; with StoreAccess::write also creates the schema in
// an empty file and refuses a file it cannot write, with StoreAccess::read refuses an empty file (a reader
// never initialises one). Refuses (StoreError) a foreign database or a newer store. Safe against another
// process doing the same meanwhile.
void ensure_schema(const Connection& conn, StoreAccess access);

}  // namespace hpcsim::sqlite
