// Microbenchmarks of the validation set, each one op timed through the models layer: a GEMM by the
// kernel model, an all-reduce by the collectives runner on the cluster fabric, an LSTM layer by the
// recurrent op's kernels.
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "configs/config_error.h"
#include "configs/loader.h"
#include "configs/schema.h"
#include "models/collectives/collective_runner.h"
#include "models/gpu/gpu_spec.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/recurrent.h"
#include "validation_cases.h"
#include "models/platform/platform.h"
#include "workloads/scenario/training_scenario.h"

namespace hpcsim::validation_detail {

namespace {

Schema positive_int() { return Schema::integer().at_least(1); }

Schema precision_name() { return Schema::one_of(kPrecisionNames.names()); }

std::vector<std::string> algorithms() {
  const std::span<const std::string_view> names = algorithm_names();
  return {names.begin(), names.end()};
}

const Schema& microbenchmarks_schema() {
  static const Schema schema = Schema::map({required(
      "benchmarks",
      Schema::list(Schema::map({
                       required("id", Schema::string()),
                       optional("gpu", Schema::string()),
                       optional("cluster", cluster_schema()),
                       optional("gemm", Schema::map({required("m", positive_int()), required("n", positive_int()),
                                                     required("k", positive_int()),
                                                     required("precision", precision_name())})),
                       optional("allreduce", Schema::map({required("bytes", Schema::quantity(Dimension::bytes).positive()),
                                                          required("gpus", Schema::integer().at_least(2)),
                                                          optional("algorithm", Schema::one_of(algorithms()))})),
                       optional("lstm", Schema::map({required("hidden", positive_int()),
                                                     required("batch", positive_int()),
                                                     required("steps", positive_int()),
                                                     optional("input", positive_int()),
                                                     required("precision", precision_name()),
                                                     required("pass", Schema::one_of({"forward", "forward_backward"})),
                                                     optional("input_projection", Schema::boolean()),
                                                     optional("weight_gradients", Schema::boolean())})),
                       required("measured", Schema::map({required("metric", Schema::one_of({"tflops", "busbw", "time_ms"})),
                                                         required("value", Schema::number().positive()),
                                                         required("unit", Schema::string()),
                                                         required("source", Schema::string()),
                                                         optional("trust", Schema::string()),
                                                         optional("note", Schema::string()),
                                                         required("category", validation_category_schema()),
                                                         required("family", Schema::string())})),
                   }))
          .non_empty())});
  return schema;
}

// The op an entry times: exactly one of gemm / allreduce / lstm, with the metric and unit it is read in.
struct OpKind {
  const char* key;
  const char* metric;
  const char* unit;
};
constexpr OpKind kOps[] = {{"gemm", "tflops", "TFLOP/s"}, {"allreduce", "busbw", "GB/s"}, {"lstm", "time_ms", "ms"}};

const OpKind& op_of(const ConfigNode& entry) {
  const OpKind* found = nullptr;
  for (const OpKind& op : kOps) {
    if (!entry.has(op.key)) continue;
    if (found) throw ConfigError(entry.at(op.key).loc(), std::string("an entry times one op; it already has ") + found->key);
    found = &op;
  }
  if (!found) throw ConfigError(entry.loc(), "an entry needs one op: gemm, allreduce or lstm");
  const ConfigNode& measured = entry.at("measured");
  if (measured.get_string("metric") != found->metric) {
    throw ConfigError(measured.at("metric").loc(), std::string("a ") + found->key + " is measured as " + found->metric);
  }
  if (measured.get_string("unit") != found->unit) {
    throw ConfigError(measured.at("unit").loc(), std::string(found->metric) + " is given in " + found->unit);
  }
  return *found;
}

GpuSpec gpu_of(const ConfigNode& entry, const SpecCatalog& catalog, const char* op) {
  const ConfigNode* name = entry.find("gpu");
  if (!name) throw ConfigError(entry.loc(), std::string("a ") + op + " entry needs gpu:");
  return parse_gpu_spec(catalog.load("gpus", *name, "GPU"), name->as_string());
}

Precision precision_of(const ConfigNode& node, const GpuSpec& gpu) {
  const Precision p = *parse_precision(node.as_string());
  if (!gpu.supports(p)) throw ConfigError(node.loc(), "the " + gpu.name + " has no " + node.as_string() + " math units");
  return p;
}

// TFLOP/s of C[m,n] = A[m,k] B[k,n]: 2mnk operations over the kernel model's time.
double gemm_tflops(const ConfigNode& entry, const GpuSpec& gpu) {
  const ConfigNode& g = entry.at("gemm");
  const GemmShape shape{g.get_int("m"), g.get_int("n"), g.get_int("k"), 1, precision_of(g.at("precision"), gpu)};
  const OpTime t = estimate_op(gpu, {gemm(gpu, shape)});
  return 2.0 * static_cast<double>(shape.m) * static_cast<double>(shape.n) * static_cast<double>(shape.k) / t.time_s / 1e12;
}

// nccl-tests' bus bandwidth in GB/s: size / time x 2(n-1)/n.
double allreduce_busbw(const ConfigNode& entry, const SpecCatalog& catalog) {
  const ConfigNode* cluster_node = entry.find("cluster");
  if (!cluster_node) throw ConfigError(entry.loc(), "an allreduce entry needs cluster:");
  const ClusterConfig cluster = parse_cluster(*cluster_node, catalog);
  const ConfigNode& a = entry.at("allreduce");
  Platform platform(cluster);
  const ClusterFabric& fabric = platform.fabric();
  const int gpus = static_cast<int>(a.get_int("gpus"));
  if (gpus > fabric.gpus()) {
    throw ConfigError(a.at("gpus").loc(), "the cluster has " + std::to_string(fabric.gpus()) + " GPUs");
  }
  const CollectiveGroup group = CollectiveGroup::first(fabric, gpus);
  CollectiveRequest request;
  request.op = CollectiveOp::allreduce;
  request.bytes = a.get_quantity("bytes", Dimension::bytes);
  if (const ConfigNode* algo = a.find("algorithm")) {
    request.algorithm = *parse_algorithm(algo->as_string());
    if (const std::string why = unsupported_reason(request.op, *request.algorithm, group); !why.empty()) {
      throw ConfigError(algo->loc(), why);
    }
  }
  double seconds = 0;
  start_collective(platform.sim(), platform.fair_share(), fabric, group, request,
                   [&seconds](const CollectiveStats& s) { seconds = (s.end - s.start).to_seconds(); });
  platform.sim().run();
  return request.bytes / seconds * busbw_factor(request.op, gpus) / 1e9;
}

// Milliseconds of one LSTM layer: forward, or forward + backward data + backward weights.
double lstm_ms(const ConfigNode& entry, const GpuSpec& gpu) {
  const ConfigNode& l = entry.at("lstm");
  RecurrentShape shape;
  shape.cell = RecurrentCell::lstm;
  shape.hidden = l.get_int("hidden");
  shape.batch = l.get_int("batch");
  shape.steps = l.get_int("steps");
  shape.input = l.get_int_or("input", 0);
  shape.precision = precision_of(l.at("precision"), gpu);
  shape.train = l.get_string("pass") == "forward_backward";
  shape.input_projection = l.get_bool_or("input_projection", true);
  shape.weight_gradients = l.get_bool_or("weight_gradients", true);
  return estimate_op(gpu, recurrent_layer(gpu, shape)).time_s * 1e3;
}

}  // namespace

const ConfigNode& load_microbenchmarks(const std::filesystem::path& file, ConfigNode& storage) {
  storage = load_config(file, {});
  microbenchmarks_schema().validate(storage);
  return storage;
}

double predict_on_gpu(const ConfigNode& entry, const GpuSpec& gpu) {
  if (entry.has("gemm")) return gemm_tflops(entry, gpu);
  if (entry.has("lstm")) return lstm_ms(entry, gpu);
  throw ConfigError(entry.loc(), "only gemm and lstm entries are predicted from a GPU spec alone");
}

std::vector<ValidationRow> microbenchmark_cases(const std::filesystem::path& file, const SpecCatalog& catalog,
                                                const CaseFilter& include) {
  ConfigNode storage;
  const ConfigNode& root = load_microbenchmarks(file, storage);
  std::vector<ValidationRow> rows;
  for (const ConfigNode& entry : root.at("benchmarks").items()) {
    const OpKind& op = op_of(entry);
    const ConfigNode& measured = entry.at("measured");
    if (include && !include(entry.get_string("id"))) continue;
    ValidationRow row;
    row.id = entry.get_string("id");
    row.kind = op.key;
    row.metric = op.metric;
    row.unit = op.unit;
    row.measured = measured.get_number("value");
    try {
      row.predicted = row.kind == "allreduce" ? allreduce_busbw(entry, catalog)
                                              : predict_on_gpu(entry, gpu_of(entry, catalog, op.key));
    } catch (const std::invalid_argument& e) {  // a shape the op models reject
      throw ConfigError(entry.at(op.key).loc(), e.what());
    }
    row.trust = measured.get_string_or("trust", "");
    row.source = measured.get_string("source");
    row.category = measured.get_string("category");
    row.family = measured.get_string("family");
    row.file = file.filename().string();
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace hpcsim::validation_detail
