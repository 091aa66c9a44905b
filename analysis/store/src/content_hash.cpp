#include "store/results_store.h"

#include <cstdint>

namespace hpcsim {

// 64-bit FNV-1a: tiny, byte-order independent and stable forever, which a resumable sweep needs.
// It is an identity key for scenario texts, not a defence against crafted collisions.
std::string content_hash(std::string_view text) {
  constexpr std::uint64_t kOffsetBasis = 14695981039346656037ULL;
  constexpr std::uint64_t kPrime = 1099511628211ULL;
  std::uint64_t h = kOffsetBasis;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= kPrime;
  }
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string hex(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) hex[static_cast<std::size_t>(i)] = kDigits[h & 0xF];
  return hex;
}

}  // namespace hpcsim
