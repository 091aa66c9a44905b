#pragma once
// One name table per enum: the spelling each value has in YAML, flags and output, read both ways. A
// schema's one_of list, a flag's allowed values, a parser and a printer all take it from the same table.
#include <array>
#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace hpcsim {

template <class E, std::size_t N>
struct EnumNames {
  std::array<std::pair<E, std::string_view>, N> entries;

  std::string_view name(E value) const {
    for (const auto& [v, n] : entries) {
      if (v == value) return n;
    }
    throw std::logic_error("an enum value missing from its name table");
  }
  std::optional<E> parse(std::string_view text) const {
    for (const auto& [v, n] : entries) {
      if (n == text) return v;
    }
    return std::nullopt;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& entry : entries) out.emplace_back(entry.second);
    return out;
  }
  // The names of `subset`, in its order: the choices of a key that admits only some values.
  std::vector<std::string> names(std::initializer_list<E> subset) const {
    std::vector<std::string> out;
    for (E v : subset) out.emplace_back(name(v));
    return out;
  }
};

}  // namespace hpcsim
