#include "configs/config_node.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>

#include "configs/config_error.h"

namespace hpcsim {

ConfigNode ConfigNode::make_null(SourceLoc loc) {
  ConfigNode node;
  node.loc_ = std::move(loc);
  return node;
}

ConfigNode ConfigNode::make_scalar(std::string text, SourceLoc loc, bool quoted) {
  ConfigNode node = make_null(std::move(loc));
  node.kind_ = Kind::scalar;
  node.text_ = std::move(text);
  node.quoted_ = quoted;
  return node;
}

ConfigNode ConfigNode::make_sequence(SourceLoc loc) {
  ConfigNode node = make_null(std::move(loc));
  node.kind_ = Kind::sequence;
  return node;
}

ConfigNode ConfigNode::make_map(SourceLoc loc) {
  ConfigNode node = make_null(std::move(loc));
  node.kind_ = Kind::map;
  return node;
}

std::string ConfigNode::describe() const {
  switch (kind_) {
    case Kind::null: return "an empty value";
    case Kind::scalar: return "'" + text_ + "'";
    case Kind::sequence: return "a list";
    case Kind::map: return "a map";
  }
  return "?";
}

void ConfigNode::fail(const std::string& message) const { throw ConfigError(loc_, message); }

void ConfigNode::require(Kind wanted, const std::string& what) const {
  if (kind_ != wanted) fail("expected " + what + ", got " + describe());
}

const std::string& ConfigNode::text() const {
  require(Kind::scalar, "a single value");
  return text_;
}

const std::vector<ConfigNode>& ConfigNode::items() const {
  require(Kind::sequence, "a list");
  return items_;
}

std::vector<ConfigNode>& ConfigNode::items() {
  require(Kind::sequence, "a list");
  return items_;
}

void ConfigNode::push_back(ConfigNode item) { items().push_back(std::move(item)); }

const std::vector<ConfigNode::Entry>& ConfigNode::entries() const {
  require(Kind::map, "a map");
  return entries_;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  for (const Entry& entry : entries())
    if (entry.key == key) return &entry.value;
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  return const_cast<ConfigNode*>(std::as_const(*this).find(key));
}

bool ConfigNode::has(std::string_view key) const { return find(key) != nullptr; }

const ConfigNode& ConfigNode::at(std::string_view key) const {
  const ConfigNode* value = find(key);
  if (value == nullptr) fail("missing required key '" + std::string(key) + "'");
  return *value;
}

void ConfigNode::set(std::string key, ConfigNode value, SourceLoc key_loc) {
  require(Kind::map, "a map");
  if (key_loc.file.empty()) key_loc = value.loc();
  for (Entry& entry : entries_) {
    if (entry.key == key) {
      entry.value = std::move(value);
      entry.key_loc = std::move(key_loc);
      return;
    }
  }
  entries_.push_back(Entry{std::move(key), std::move(key_loc), std::move(value)});
}

bool ConfigNode::erase(std::string_view key) {
  require(Kind::map, "a map");
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& entry) { return entry.key == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

std::string ConfigNode::as_string() const {
  require(Kind::scalar, "a string");
  return text_;
}

bool ConfigNode::as_bool() const {
  require(Kind::scalar, "true or false");
  static const char* const yes[] = {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"};
  static const char* const no[] = {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"};
  for (const char* word : yes)
    if (text_ == word) return true;
  for (const char* word : no)
    if (text_ == word) return false;
  fail("expected true or false, got '" + text_ + "'");
}

std::int64_t ConfigNode::as_int() const {
  require(Kind::scalar, "an integer");
  std::string_view digits = text_;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  std::int64_t value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || end != digits.data() + digits.size()) {
    fail("expected an integer, got '" + text_ + "'");
  }
  if (error == std::errc::result_out_of_range) fail("integer out of range: '" + text_ + "'");
  return value;
}

double ConfigNode::as_number() const {
  require(Kind::scalar, "a number");
  std::string_view digits = text_;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (digits.empty() || end != digits.data() + digits.size() || error != std::errc() ||
      !std::isfinite(value)) {
    fail("expected a number, got '" + text_ + "'");
  }
  return value;
}

double ConfigNode::as_quantity(Dimension dimension, std::string_view implied_unit) const {
  require(Kind::scalar, hpcsim::describe(dimension));
  try {
    return parse_quantity(text_, dimension, implied_unit);
  } catch (const UnitError& error) {
    fail(error.what());
  }
}

std::string ConfigNode::get_string(std::string_view key) const { return at(key).as_string(); }
bool ConfigNode::get_bool(std::string_view key) const { return at(key).as_bool(); }
std::int64_t ConfigNode::get_int(std::string_view key) const { return at(key).as_int(); }
double ConfigNode::get_number(std::string_view key) const { return at(key).as_number(); }
double ConfigNode::get_quantity(std::string_view key, Dimension dimension,
                                std::string_view implied_unit) const {
  return at(key).as_quantity(dimension, implied_unit);
}

std::string ConfigNode::get_string_or(std::string_view key, std::string fallback) const {
  const ConfigNode* value = find(key);
  return value ? value->as_string() : fallback;
}
bool ConfigNode::get_bool_or(std::string_view key, bool fallback) const {
  const ConfigNode* value = find(key);
  return value ? value->as_bool() : fallback;
}
std::int64_t ConfigNode::get_int_or(std::string_view key, std::int64_t fallback) const {
  const ConfigNode* value = find(key);
  return value ? value->as_int() : fallback;
}
double ConfigNode::get_number_or(std::string_view key, double fallback) const {
  const ConfigNode* value = find(key);
  return value ? value->as_number() : fallback;
}
double ConfigNode::get_quantity_or(std::string_view key, Dimension dimension, double fallback,
                                   std::string_view implied_unit) const {
  const ConfigNode* value = find(key);
  return value ? value->as_quantity(dimension, implied_unit) : fallback;
}

}  // namespace hpcsim
