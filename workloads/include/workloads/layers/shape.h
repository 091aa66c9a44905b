#pragma once
// Per-sample tensor shapes (the batch dimension is never part of a Shape): images are [channels, height,
// width], sequences [steps, features], token ids [steps], feature vectors [features].
#include <cstdint>
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

std::string to_string(const Shape& shape);  // "[3, 224, 224]"
std::int64_t elements(const Shape& shape);  // product of the dimensions
// Values per sample over every leading dimension but the last (rows of a last-axis op).
std::int64_t leading_elements(const Shape& shape);

}  // namespace hpcsim
