#include "models/gpu/precision.h"

#include <array>

namespace hpcsim {

namespace {
constexpr std::array<double, kPrecisionCount> kBytes = {8, 4, 4, 2, 2, 1, 1};
}  // namespace

std::string_view to_string(Precision p) { return kPrecisionNames.name(p); }

std::optional<Precision> parse_precision(std::string_view name) { return kPrecisionNames.parse(name); }

double bytes_per_element(Precision p) { return kBytes[static_cast<int>(p)]; }

}  // namespace hpcsim
