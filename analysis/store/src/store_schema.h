#pragma once
// The results store's tables, created in a new file and upgraded in place in an older one (private to analysis/).
#include "sqlite_connection.h"

namespace hpcsim::sqlite {

inline constexpr int kBusyTimeoutMs = 10000;  // concurrent sweeps wait for each other this long

// Upgrades an older hpcsim's file to the current version; with StoreAccess::write also creates the schema in
// an empty file and refuses a file it cannot write, with StoreAccess::read refuses an empty file (a reader
// never initialises one). Refuses (StoreError) a foreign database or a newer store. Safe against another
// process doing the same meanwhile.
void ensure_schema(const Connection& conn, StoreAccess access);

}  // namespace hpcsim::sqlite
