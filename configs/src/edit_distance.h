#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace hpcsim {

// Levenshtein distance: single-character inserts, deletes and substitutions.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The closest candidate that is plausibly a typo of `word`, or "" if none is.
// Ties go to the earlier candidate, so suggestions are deterministic.
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace hpcsim
