#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "configs/config_node.h"
#include "configs/units.h"

namespace hpcsim {

struct Field;

// A declarative description of what a config tree must look like, e.g.
//   Schema::map({required("sms", Schema::integer().at_least(1)),
//                required("hbm_bandwidth", Schema::quantity(Dimension::bandwidth).positive()),
//                optional("name", Schema::string())});
// validate() throws ConfigError at the first offending node, in document order.
class Schema {
 public:
  enum class Type { string, boolean, integer, number, quantity, one_of, map, list, map_of };

  static Schema string();
  static Schema boolean();
  static Schema integer();
  static Schema number();
  // implied_unit: the unit a bare number means (e.g. "s"); empty = unit required.
  static Schema quantity(Dimension dimension, std::string implied_unit = {});
  static Schema one_of(std::vector<std::string> choices);
  static Schema map(std::vector<Field> fields);
  static Schema list(Schema element);
  static Schema map_of(Schema value);  // free-form keys, every value of one schema

  // Numeric constraints (integer, number, quantity); bounds are SI values.
  Schema at_least(double bound) const;
  Schema at_most(double bound) const;
  Schema positive() const;             // strictly > 0
  Schema non_empty() const;            // lists and map_of: at least one item
  // Integers: any 64-bit value (seeds, ids). Without it an integer is refused past
  // input_limits::max_int (2^31-1), the range of the int the model reads most counts into.
  Schema wide() const;

  Type type() const { return type_; }
  const std::vector<Field>& fields() const { return fields_; }
  // List items and map_of values (null for other types).
  const Schema* element() const { return element_.get(); }
  // The value's type in a few words, with its unit and bounds: "quantity (time, a bare number is s) > 0",
  // "one of 'a', 'b'", "integer >= 1": what a reference table prints.
  std::string describe_type() const;

  void validate(const ConfigNode& node) const;

 private:
  explicit Schema(Type type) : type_(type) {}
  std::string expected() const;
  double numeric_value(const ConfigNode& node) const;
  void check_bounds(const ConfigNode& node) const;
  void validate_map(const ConfigNode& node) const;
  std::string show_bound(double bound) const;

  Type type_;
  Dimension dimension_ = Dimension::count;
  std::string implied_unit_;
  std::vector<std::string> choices_;
  std::vector<Field> fields_;
  std::shared_ptr<const Schema> element_;  // list items / map_of values
  std::optional<double> min_;
  std::optional<double> max_;
  bool strictly_positive_ = false;
  bool non_empty_ = false;
  bool wide_ = false;
};

struct Field {
  std::string key;
  Schema schema;
  bool required;
  std::string meaning;       // one line for the reference (hpcsim schema, docs/reference.md)
  std::string default_text;  // what an absent optional key means, as a reader would write it
};

Field required(std::string key, Schema schema, std::string meaning = {});
Field optional(std::string key, Schema schema, std::string meaning = {}, std::string default_text = {});

// The `extends` key every spec and scenario file accepts; the loader resolves it before validation.
Field extends_field();

// Every key of a map schema as a Markdown table (key path, type, required or default, meaning); nested
// maps are flattened with dots, list items with "[]" and free-form keys with "*".
std::string schema_reference_markdown(const Schema& schema);

}  // namespace hpcsim
