#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "configs/source_loc.h"
#include "configs/units.h"

namespace hpcsim {

// A parsed configuration value that remembers where it was written.
// Maps keep their keys in insertion (file) order so output is deterministic.
class ConfigNode {
 public:
  enum class Kind { null, scalar, sequence, map };
  struct Entry;

  ConfigNode() = default;
  static ConfigNode make_null(SourceLoc loc);
  // quoted: the text was a quoted YAML string, so it is re-emitted quoted.
  static ConfigNode make_scalar(std::string text, SourceLoc loc, bool quoted = false);
  static ConfigNode make_sequence(SourceLoc loc);
  static ConfigNode make_map(SourceLoc loc);

  Kind kind() const { return kind_; }
  bool is_null() const { return kind_ == Kind::null; }
  bool is_scalar() const { return kind_ == Kind::scalar; }
  bool is_sequence() const { return kind_ == Kind::sequence; }
  bool is_map() const { return kind_ == Kind::map; }
  const SourceLoc& loc() const { return loc_; }
  void set_loc(SourceLoc loc) { loc_ = std::move(loc); }
  // "a map", "a list", "an empty value", "'text'": for messages.
  std::string describe() const;

  // Scalar text; throws ConfigError if this is not a scalar.
  const std::string& text() const;
  bool quoted() const { return quoted_; }

  // Sequence items; throws ConfigError if this is not a sequence.
  const std::vector<ConfigNode>& items() const;
  std::vector<ConfigNode>& items();
  void push_back(ConfigNode item);

  // Map entries in order; throws ConfigError if this is not a map.
  const std::vector<Entry>& entries() const;
  bool has(std::string_view key) const;
  const ConfigNode* find(std::string_view key) const;
  ConfigNode* find(std::string_view key);
  // Throws ConfigError "missing required key" at this map's location.
  const ConfigNode& at(std::string_view key) const;
  // Replaces the value in place (keeping key order) or appends a new key.
  void set(std::string key, ConfigNode value, SourceLoc key_loc = {});
  bool erase(std::string_view key);

  // Typed reads of this node; each throws ConfigError with this node's location.
  std::string as_string() const;
  bool as_bool() const;
  std::int64_t as_int() const;
  double as_number() const;
  double as_quantity(Dimension dimension, std::string_view implied_unit = {}) const;

  // Typed reads of a required key of this map.
  std::string get_string(std::string_view key) const;
  bool get_bool(std::string_view key) const;
  std::int64_t get_int(std::string_view key) const;
  double get_number(std::string_view key) const;
  double get_quantity(std::string_view key, Dimension dimension,
                      std::string_view implied_unit = {}) const;

  // Typed reads of an optional key: the fallback when the key is absent.
  std::string get_string_or(std::string_view key, std::string fallback) const;
  bool get_bool_or(std::string_view key, bool fallback) const;
  std::int64_t get_int_or(std::string_view key, std::int64_t fallback) const;
  double get_number_or(std::string_view key, double fallback) const;
  double get_quantity_or(std::string_view key, Dimension dimension, double fallback,
                         std::string_view implied_unit = {}) const;

 private:
  [[noreturn]] void fail(const std::string& message) const;
  void require(Kind wanted, const std::string& what) const;

  Kind kind_ = Kind::null;
  SourceLoc loc_;
  std::string text_;
  bool quoted_ = false;
  std::vector<ConfigNode> items_;
  std::vector<Entry> entries_;
};

struct ConfigNode::Entry {
  std::string key;
  SourceLoc key_loc;  // where the key itself is written (for "unknown key" errors)
  ConfigNode value;
};

}  // namespace hpcsim
