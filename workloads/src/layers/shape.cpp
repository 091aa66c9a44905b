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

void check_tensor_size(const std::string& what, const Shape& shape) {
  double n = 1;
  for (const std::int64_t d : shape) {
    if (d > kMaxDimension) {
      throw ShapeError(what + " " + to_string(shape) + " has a dimension over 2^31-1 (" + std::to_string(kMaxDimension) +
                       "), the most a GPU library takes");
    }
    n *= static_cast<double>(d);
  }
  if (n > static_cast<double>(kMaxTensorElements)) {
    throw ShapeError(what + " " + to_string(shape) + " has more than 2^48 elements per sample, more than any GPU holds");
  }
}

std::int64_t capped_product(std::initializer_list<std::int64_t> factors) {
  for (const std::int64_t f : factors) {
    if (f == 0) return 0;
  }
  std::int64_t product = 1;
  for (const std::int64_t f : factors) {
    if (__builtin_mul_overflow(product, f, &product) || product > kMaxTensorElements) return kMaxTensorElements + 1;
  }
  return product;
}

std::int64_t leading_elements(const Shape& shape) {
  return shape.empty() ? 1 : elements(shape) / shape.back();
}

}  // namespace hpcsim
