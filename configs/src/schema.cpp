#include "configs/schema.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "configs/config_error.h"
#include "configs/input_limits.h"
#include "edit_distance.h"

namespace hpcsim {

namespace {

std::string shortest(double value) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string joined(const std::vector<std::string>& words, const std::string& quote) {
  std::string text;
  for (const std::string& word : words) text += (text.empty() ? "" : ", ") + quote + word + quote;
  return text;
}

bool is_numeric(Schema::Type type) {
  return type == Schema::Type::integer || type == Schema::Type::number ||
         type == Schema::Type::quantity;
}

// Every quantity stays inside the simulator's range (configs/input_limits.h), whatever its key's bounds.
void check_range(const ConfigNode& node, Dimension dimension, double value) {
  const std::string got = ", got " + node.text();
  if (dimension == Dimension::time && std::abs(value) > input_limits::max_time_s) {
    throw ConfigError(node.loc(), "a time may be at most 1e9 s (about 31.7 years), the range hpcsim simulates" + got);
  }
  const bool rate = dimension == Dimension::bandwidth || dimension == Dimension::compute_rate ||
                    dimension == Dimension::frequency;
  if (rate && value > 0 && value < input_limits::min_positive_rate) {
    throw ConfigError(node.loc(), describe(dimension) + " above 0 may be no less than " +
                                      format_quantity(input_limits::min_positive_rate, dimension) +
                                      ", the range hpcsim simulates" + got);
  }
  if (rate && std::abs(value) > input_limits::max_rate) {
    throw ConfigError(node.loc(), describe(dimension) + " may be at most " +
                                      format_quantity(input_limits::max_rate, dimension) +
                                      ", the range hpcsim simulates" + got);
  }
  if (dimension == Dimension::bytes && std::abs(value) > input_limits::max_bytes) {
    throw ConfigError(node.loc(), "a size may be at most " + format_quantity(input_limits::max_bytes, dimension) +
                                      ", the range hpcsim simulates" + got);
  }
}

}  // namespace

Schema Schema::string() { return Schema(Type::string); }
Schema Schema::boolean() { return Schema(Type::boolean); }
Schema Schema::integer() { return Schema(Type::integer); }
Schema Schema::number() { return Schema(Type::number); }

Schema Schema::quantity(Dimension dimension, std::string implied_unit) {
  Schema schema(Type::quantity);
  schema.dimension_ = dimension;
  if (!implied_unit.empty()) unit_factor(implied_unit, dimension);  // a typo here is a bug: throw
  schema.implied_unit_ = std::move(implied_unit);
  return schema;
}

Schema Schema::one_of(std::vector<std::string> choices) {
  if (choices.empty()) throw std::logic_error("Schema::one_of needs at least one choice");
  Schema schema(Type::one_of);
  schema.choices_ = std::move(choices);
  return schema;
}

Schema Schema::map(std::vector<Field> fields) {
  Schema schema(Type::map);
  schema.fields_ = std::move(fields);
  return schema;
}

Schema Schema::list(Schema element) {
  Schema schema(Type::list);
  schema.element_ = std::make_shared<const Schema>(std::move(element));
  return schema;
}

Schema Schema::map_of(Schema value) {
  Schema schema(Type::map_of);
  schema.element_ = std::make_shared<const Schema>(std::move(value));
  return schema;
}

Schema Schema::at_least(double bound) const {
  if (!is_numeric(type_)) throw std::logic_error("Schema::at_least on a non-numeric schema");
  Schema copy = *this;
  copy.min_ = bound;
  return copy;
}

Schema Schema::at_most(double bound) const {
  if (!is_numeric(type_)) throw std::logic_error("Schema::at_most on a non-numeric schema");
  Schema copy = *this;
  copy.max_ = bound;
  return copy;
}

Schema Schema::positive() const {
  if (!is_numeric(type_)) throw std::logic_error("Schema::positive on a non-numeric schema");
  Schema copy = *this;
  copy.strictly_positive_ = true;
  return copy;
}

Schema Schema::wide() const {
  if (type_ != Type::integer) throw std::logic_error("Schema::wide applies to integers only");
  Schema copy = *this;
  copy.wide_ = true;
  return copy;
}

Schema Schema::non_empty() const {
  if (type_ != Type::list && type_ != Type::map_of) {
    throw std::logic_error("Schema::non_empty applies to lists and map_of only");
  }
  Schema copy = *this;
  copy.non_empty_ = true;
  return copy;
}

std::string Schema::expected() const {
  switch (type_) {
    case Type::string: return "a string";
    case Type::boolean: return "true or false";
    case Type::integer: return "an integer";
    case Type::number: return "a number";
    case Type::quantity: return describe(dimension_);
    case Type::one_of: return "one of " + joined(choices_, "'");
    case Type::map:
    case Type::map_of: return "a map";
    case Type::list: return "a list";
  }
  return "?";
}

std::string Schema::show_bound(double bound) const {
  return type_ == Type::quantity ? format_quantity(bound, dimension_) : shortest(bound);
}

double Schema::numeric_value(const ConfigNode& node) const {
  switch (type_) {
    case Type::integer: return static_cast<double>(node.as_int());
    case Type::number: return node.as_number();
    default: return node.as_quantity(dimension_, implied_unit_);
  }
}

void Schema::check_bounds(const ConfigNode& node) const {
  double value = numeric_value(node);
  const std::string got = ", got " + node.text();
  if (type_ == Type::quantity) check_range(node, dimension_, value);
  if (strictly_positive_ && !(value > 0)) throw ConfigError(node.loc(), "must be > 0" + got);
  if (min_ && value < *min_) throw ConfigError(node.loc(), "must be >= " + show_bound(*min_) + got);
  if (max_ && value > *max_) throw ConfigError(node.loc(), "must be <= " + show_bound(*max_) + got);
  if (type_ == Type::integer && !wide_ && std::abs(value) > static_cast<double>(input_limits::max_int)) {
    throw ConfigError(node.loc(), "an integer here may be at most " + std::to_string(input_limits::max_int) +
                                      " in size (2^31-1), the range hpcsim counts in" + got);
  }
}

void Schema::validate(const ConfigNode& node) const {
  auto wrong_type = [&] {
    throw ConfigError(node.loc(), "expected " + expected() + ", got " + node.describe());
  };
  switch (type_) {
    case Type::string:
      if (!node.is_scalar()) wrong_type();
      return;
    case Type::boolean: node.as_bool(); return;
    case Type::integer:
    case Type::number:
    case Type::quantity: check_bounds(node); return;
    case Type::one_of: {
      if (!node.is_scalar()) wrong_type();
      for (const std::string& choice : choices_)
        if (node.text() == choice) return;
      std::string hint = closest_match(node.text(), choices_);
      throw ConfigError(node.loc(), "expected " + expected() + ", got " + node.describe() +
                                        (hint.empty() ? "" : "; did you mean '" + hint + "'?"));
    }
    case Type::map: validate_map(node); return;
    case Type::list:
      if (!node.is_sequence()) wrong_type();
      if (non_empty_ && node.items().empty()) throw ConfigError(node.loc(), "must not be empty");
      for (const ConfigNode& item : node.items()) element_->validate(item);
      return;
    case Type::map_of:
      if (!node.is_map()) wrong_type();
      if (non_empty_ && node.entries().empty()) throw ConfigError(node.loc(), "must not be empty");
      for (const ConfigNode::Entry& entry : node.entries()) element_->validate(entry.value);
      return;
  }
}

void Schema::validate_map(const ConfigNode& node) const {
  if (!node.is_map()) {
    throw ConfigError(node.loc(), "expected a map, got " + node.describe());
  }
  std::vector<std::string> keys;
  for (const Field& field : fields_) keys.push_back(field.key);
  for (const ConfigNode::Entry& entry : node.entries()) {
    const Field* field = nullptr;
    for (const Field& candidate : fields_)
      if (candidate.key == entry.key) field = &candidate;
    if (field == nullptr) {
      std::string hint = closest_match(entry.key, keys);
      throw ConfigError(entry.key_loc, "unknown key '" + entry.key + "'; " +
                                           (hint.empty() ? "valid keys: " + joined(keys, "")
                                                         : "did you mean '" + hint + "'?"));
    }
    field->schema.validate(entry.value);
  }
  for (const Field& field : fields_) {
    if (field.required && !node.has(field.key)) {
      throw ConfigError(node.loc(), "missing required key '" + field.key + "'");
    }
  }
}

Field required(std::string key, Schema schema, std::string meaning) {
  return Field{std::move(key), std::move(schema), true, std::move(meaning), {}};
}
Field optional(std::string key, Schema schema, std::string meaning, std::string default_text) {
  return Field{std::move(key), std::move(schema), false, std::move(meaning), std::move(default_text)};
}

std::string Schema::describe_type() const {
  std::string out;
  switch (type_) {
    case Type::string: out = "string"; break;
    case Type::boolean: out = "true or false"; break;
    case Type::integer: out = "integer"; break;
    case Type::number: out = "number"; break;
    case Type::quantity:
      out = "quantity (" + describe(dimension_) + (implied_unit_.empty() ? ", with its unit" : ", a bare number is " + implied_unit_) + ")";
      break;
    case Type::one_of: out = "one of " + joined(choices_, "`"); break;
    case Type::map: out = "map"; break;
    case Type::map_of: out = "map of " + element_->describe_type(); break;
    case Type::list: out = "list of " + element_->describe_type(); break;
  }
  std::vector<std::string> bounds;
  if (strictly_positive_) bounds.push_back("> 0");
  if (min_) bounds.push_back(">= " + show_bound(*min_));
  if (max_) bounds.push_back("<= " + show_bound(*max_));
  for (std::size_t i = 0; i < bounds.size(); ++i) out += (i == 0 ? " " : ", ") + bounds[i];
  if (non_empty_) out += ", not empty";
  return out;
}

Field extends_field() {
  return optional("extends", Schema::string(),
                  "base file(s) this one is deep-merged over, relative to it: a name or a list (later ones and this file win)",
                  "none");
}

namespace {

void reference_rows(const Schema& schema, const std::string& prefix, std::string& out) {
  for (const Field& f : schema.fields()) {
    const std::string path = prefix + f.key;
    const std::string need = f.required ? "required" : f.default_text.empty() ? "optional" : "default " + f.default_text;
    out += "| `" + path + "` | " + f.schema.describe_type() + " | " + need + " | " + f.meaning + " |\n";
    const Schema* inner = &f.schema;
    std::string inner_prefix = path;
    while (inner->type() == Schema::Type::list || inner->type() == Schema::Type::map_of) {
      inner_prefix += inner->type() == Schema::Type::list ? "[]" : ".*";
      inner = inner->element();
    }
    if (inner->type() == Schema::Type::map) reference_rows(*inner, inner_prefix + ".", out);
  }
}

}  // namespace

std::string schema_reference_markdown(const Schema& schema) {
  std::string out = "| key | type | required / default | meaning |\n|---|---|---|---|\n";
  reference_rows(schema, "", out);
  return out;
}

}  // namespace hpcsim
