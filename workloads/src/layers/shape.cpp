#include "workloads/layers/shape.h"

namespace hpcsim {

std::string to_string(const Shape& shape) {
  std::string out = "[";
  for (std::size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "]";
}

std::int64_t elements(const Shape& shape) {
  std::int64_t n = 1;
  for (std::int64_t d : shape) n *= d;
  return n;
}

std::int64_t leading_elements(const Shape& shape) {
  return shape.empty() ? 1 : elements(shape) / shape.back();
}

}  // namespace hpcsim
