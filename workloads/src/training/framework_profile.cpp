#include "workloads/training/framework_profile.h"

#include "configs/config_error.h"

namespace hpcsim {

namespace {

Schema mode_schema() {
  return Schema::map({
      required("dispatch", Schema::quantity(Dimension::time).at_least(0)),
      optional("forward_dispatch", Schema::quantity(Dimension::time).at_least(0),
               "host time per op when each op is called from Python (an eager forward pass: inference)",
               "dispatch"),
      optional("autograd_record", Schema::quantity(Dimension::time).at_least(0),
               "host time per op to record its autograd node, in a forward pass run without torch.no_grad "
               "(inference's workload.no_grad: false)",
               "0: nothing recorded per op"),
      required("fusion", Schema::one_of(kFusionScopeNames.names())),
      required("cuda_graphs", Schema::boolean()),
  });
}

ExecutionMode parse_mode(const ConfigNode& node) {
  ExecutionMode m;
  m.dispatch_s = node.get_quantity("dispatch", Dimension::time);
  m.forward_dispatch_s = node.get_quantity_or("forward_dispatch", Dimension::time, m.dispatch_s);
  m.autograd_record_s = node.get_quantity_or("autograd_record", Dimension::time, 0);
  const std::string fusion = node.get_string("fusion");
  m.fusion = *kFusionScopeNames.parse(fusion);  // the schema admits only the table's names
  m.cuda_graphs = node.get_bool("cuda_graphs");
  return m;
}

OptimizerImpl optimizer_of(const std::string& text) {
  return *kOptimizerImplNames.parse(text);  // the schema admits only the table's names
}

}  // namespace

const Schema& framework_profile_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("trains", Schema::boolean(), "false: an inference runtime, which a training workload refuses",
               "true"),
      required("eager", mode_schema()),
      optional("compiled", mode_schema()),
      required("compiled_by_default", Schema::boolean()),
      required("loader_workers_per_gpu", Schema::integer().at_least(0)),
      required("optimizer", Schema::one_of(kOptimizerImplNames.names())),
      required("memory_format", Schema::one_of(kMemoryFormatNames.names())),
      required("overlaps_gradient_reduce", Schema::boolean()),
      optional("bucket_params", Schema::integer().at_least(1),
               "parameters per data-parallel gradient bucket (at least; see bucket_params_per_replica)",
               "none: DDP's 25 MB of gradients (bucket_cap_mb)"),
      optional("bucket_params_per_replica", Schema::integer().at_least(0),
               "parameters per bucket per data-parallel replica, when that is more than bucket_params", "0"),
      required("attention", Schema::one_of(kAttentionKernelNames.names())),
      optional("linear_bias", Schema::one_of({"epilogue", "separate"})),
      optional("freezes_weights", Schema::boolean(),
               "inference: the weights are constants of the runtime's graph (batch norm folded into the conv "
               "before it, weights packed once)",
               "false"),
      optional("packs_sequences", Schema::boolean(),
               "inference: a batch of requests of different lengths runs packed, on its real tokens (no padding)",
               "false"),
      optional("tunes_for_largest_batch", Schema::boolean(),
               "inference: kernels are chosen once, for the largest batch the engine has run (a serving endpoint's "
               "max_batch), and run every batch",
               "false"),
  });
  return schema;
}

FrameworkProfile parse_framework_profile(const ConfigNode& node, std::string name) {
  framework_profile_schema().validate(node);
  FrameworkProfile f;
  f.name = std::move(name);
  f.trains = node.get_bool_or("trains", true);
  f.eager = parse_mode(node.at("eager"));
  f.has_compiled = node.has("compiled");
  if (f.has_compiled) f.compiled = parse_mode(node.at("compiled"));
  f.compiled_by_default = node.get_bool("compiled_by_default");
  f.loader_workers_per_gpu = static_cast<int>(node.get_int("loader_workers_per_gpu"));
  f.optimizer = optimizer_of(node.get_string("optimizer"));
  f.memory_format = *kMemoryFormatNames.parse(node.get_string("memory_format"));  // the schema admits only these
  f.overlaps_gradient_reduce = node.get_bool("overlaps_gradient_reduce");
  f.bucket_params = node.get_int_or("bucket_params", 0);
  f.bucket_params_per_replica = node.get_int_or("bucket_params_per_replica", 0);
  if (f.bucket_params_per_replica > 0 && f.bucket_params == 0) {
    throw ConfigError(node.at("bucket_params_per_replica").loc(), "bucket_params_per_replica needs bucket_params");
  }
  f.attention = *kAttentionKernelNames.parse(node.get_string("attention"));
  f.linear_bias_epilogue = node.get_string_or("linear_bias", "epilogue") == "epilogue";
  f.freezes_weights = node.get_bool_or("freezes_weights", false);
  f.packs_sequences = node.get_bool_or("packs_sequences", false);
  f.tunes_for_largest_batch = node.get_bool_or("tunes_for_largest_batch", false);
  if (f.compiled_by_default && !f.has_compiled) {
    throw ConfigError(node.at("compiled_by_default").loc(), "compiled_by_default needs a compiled: mode");
  }
  return f;
}

FrameworkProfile load_framework_profile(const SpecCatalog& catalog, const ConfigNode& name_node) {
  return parse_framework_profile(catalog.load("frameworks", name_node, "framework"), name_node.as_string());
}

}  // namespace hpcsim
