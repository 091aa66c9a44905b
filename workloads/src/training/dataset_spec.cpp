#include "workloads/training/dataset_spec.h"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "configs/config_error.h"
#include "models/gpu/precision.h"

namespace hpcsim {

namespace {

// The tensor types a loader hands to the GPU: integers, and precisions whose bytes their table gives.
constexpr std::array<std::pair<std::string_view, double>, 5> kIntegerDtypes{{
    {"uint8", 1}, {"int16", 2}, {"uint16", 2}, {"int32", 4}, {"int64", 8},
}};

double dtype_bytes(std::string_view dtype) {
  for (const auto& [name, bytes] : kIntegerDtypes)
    if (name == dtype) return bytes;
  return bytes_per_element(*parse_precision(dtype));  // the schema admits nothing else
}

std::vector<std::string> dtype_names() {
  std::vector<std::string> names;
  for (const auto& entry : kIntegerDtypes) names.emplace_back(entry.first);
  for (const std::string& name : kPrecisionNames.names({Precision::fp16, Precision::bf16, Precision::fp32})) names.push_back(name);
  return names;
}

// A real dataset needs these; a synthetic one refuses them, so a stray size is not silently ignored.
constexpr std::array<std::string_view, 7> kStoredKeys{"sample_size", "layout", "read_size", "decode_time",
                                                       "decode_smt_speedup", "gpu_decode", "samples"};

void check_synthetic_keys(const ConfigNode& node) {
  for (const auto& entry : node.entries()) {
    if (entry.key == "samples") continue;  // an epoch length still makes sense
    if (std::find(kStoredKeys.begin(), kStoredKeys.end(), entry.key) != kStoredKeys.end())
      throw ConfigError(entry.key_loc, "'" + entry.key + "' does not apply to a synthetic dataset (no I/O, no decode)");
  }
}

}  // namespace

const Schema& dataset_spec_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("synthetic", Schema::boolean()),
      optional("samples", Schema::integer().wide().at_least(1)),
      optional("sample_size", Schema::quantity(Dimension::bytes).positive()),
      optional("layout", Schema::one_of({"files", "shards"})),
      optional("read_size", Schema::quantity(Dimension::bytes).positive()),
      optional("decode_time", Schema::quantity(Dimension::time).at_least(0)),
      optional("decode_smt_speedup", Schema::number().at_least(1).at_most(2)),
      optional("gpu_decode", Schema::map({required("cpu_time", Schema::quantity(Dimension::time).at_least(0))})),
      required("output", Schema::map({
                             required("elements", Schema::integer().at_least(1)),
                             required("dtype", Schema::one_of(dtype_names())),
                         })),
  });
  return schema;
}

DatasetSpec parse_dataset_spec(const ConfigNode& node, std::string name) {
  dataset_spec_schema().validate(node);
  DatasetSpec d;
  d.name = std::move(name);
  const ConfigNode& output = node.at("output");
  d.output_dtype = output.get_string("dtype");
  d.output_elements = output.get_int("elements");
  d.output_bytes = static_cast<double>(d.output_elements) * dtype_bytes(d.output_dtype);
  d.synthetic = node.get_bool_or("synthetic", false);
  d.samples = node.get_int_or("samples", 0);
  if (d.synthetic) {
    check_synthetic_keys(node);
    return d;
  }
  d.samples = node.get_int("samples");
  d.sample_bytes = node.get_quantity("sample_size", Dimension::bytes);
  d.layout = node.get_string("layout") == "shards" ? DatasetLayout::shards : DatasetLayout::files;
  d.decode_core_s = node.get_quantity("decode_time", Dimension::time);
  d.decode_smt_speedup = node.get_number_or("decode_smt_speedup", 1.0);
  if (const ConfigNode* gpu = node.find("gpu_decode")) d.gpu_decode_core_s = gpu->get_quantity("cpu_time", Dimension::time);
  if (d.layout == DatasetLayout::shards) {
    d.read_bytes = node.get_quantity("read_size", Dimension::bytes);
  } else if (const ConfigNode* read = node.find("read_size")) {
    throw ConfigError(read->loc(), "read_size applies only to layout: shards (a file per sample is read whole)");
  }
  return d;
}

DatasetSpec load_dataset_spec(const SpecCatalog& catalog, const ConfigNode& name_node) {
  return parse_dataset_spec(catalog.load("datasets", name_node, "dataset"), name_node.as_string());
}

}  // namespace hpcsim
