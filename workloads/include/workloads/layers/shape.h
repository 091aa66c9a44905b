#pragma once
// Per-sample tensor shapes (the batch dimension is never part of a Shape): images are [channels, height,
// width], sequences [steps, features], token ids [steps], feature vectors [features].
#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <vector>

namespace hpcsim {

using Shape = std::vector<std::int64_t>;
using Shapes = std::vector<Shape>;

// A layer that cannot take the shapes it is given; the message says what was expected.
class ShapeError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// What one tensor may have: a dimension fits the 32-bit sizes cuBLAS and cuDNN take, and no GPU holds more
// than 2^48 elements (docs/limits.md). Network::add refuses a layer past them (or past 2^48 weights, counted
// with capped_product), so the 64-bit products the models form from a shape (a GEMM's sizes, a batch's
// activations) cannot overflow.
constexpr std::int64_t kMaxDimension = 2147483647;
constexpr std::int64_t kMaxTensorElements = std::int64_t{1} << 48;

std::string to_string(const Shape& shape);  // "[3, 224, 224]"
std::int64_t elements(const Shape& shape);  // product of the dimensions
// Throws ShapeError naming `what` when a dimension or the element count is past the limits above.
void check_tensor_size(const std::string& what, const Shape& shape);
// The product of non-negative factors, or kMaxTensorElements + 1 once it passes kMaxTensorElements: a layer's
// weight count, which Network::add refuses past that limit, so its exact value there never matters and a sum of
// a few such products cannot overflow.
std::int64_t capped_product(std::initializer_list<std::int64_t> factors);
// Values per sample over every leading dimension but the last (rows of a last-axis op).
std::int64_t leading_elements(const Shape& shape);

}  // namespace hpcsim
