#pragma once
// The results store's tables, created in a new file and upgraded in place in an older one (private to analysis/).
#include "sqlite_connection.h"

namespace hpcsim::sqlite {

inline constexpr int kBusyTimeoutMs = 10000;  // concurrent sweeps wait for each other this long

// Creates the schema in an empty file or upgrades an older hpcsim's file to the current version; refuses
// (StoreError) a foreign database or a newer store. Safe against another process doing the same meanwhile.
void ensure_schema(const Connection& conn);

}  // namespace hpcsim::sqlite
