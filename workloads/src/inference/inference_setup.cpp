#include "workloads/inference/inference_setup.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "workloads/pricing/node_price.h"
#include "workloads/training/sequence_lengths.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim {

namespace {

Schema positive_count() { return Schema::integer().at_least(1); }

std::optional<std::int64_t> optional_int(const ConfigNode& w, const char* key) {
  if (!w.has(key)) return std::nullopt;
  return w.get_int(key);
}

}  // namespace

const Schema& inference_cluster_schema() {
  static const Schema schema = Schema::map({
      required("node", Schema::string(), "the instance type: a name in configs/nodes"),
      optional("nodes", positive_count(), "instances per replica", "1"),
  });
  return schema;
}

const Schema& inference_parallelism_schema() {
  static const Schema schema = Schema::map({
      optional("tp", positive_count(), "GPUs per replica (tensor parallel)", "1 on a GPU node"),
  });
  return schema;
}

const Schema& inference_workload_schema() {
  static const Schema schema = Schema::map({
      required("model", Schema::string(), "a zoo model or a model YAML"),
      required("precision", Schema::one_of(kPrecisionNames.names({Precision::fp32, Precision::tf32, Precision::fp16,
                                                                Precision::bf16, Precision::fp8, Precision::int8})),
               "what the math runs in; on CPUs bf16 is fast math (fp32 weights, bf16 GEMMs)"),
      optional("framework", Schema::string(), "software profile in configs/frameworks", "pytorch"),
      optional("compile", Schema::boolean(), "run under the framework's compiler (torch.compile)", "false"),
      optional("freeze", Schema::boolean(),
               "compile with the weights frozen as constants (torch.jit.freeze, Inductor's freezing): batch norms "
               "fold into their convolution and weights are packed once",
               "false (a runtime whose weights are always constants, e.g. tensorrt, freezes them anyway)"),
      optional("no_grad", Schema::boolean(),
               "the forward pass runs under torch.no_grad / inference_mode; false: grad mode is on and an eager "
               "framework records each op's autograd node (its profile's autograd_record per op)",
               "true"),
      optional("threads", positive_count(), "intra-op threads per worker (CPU)", "every core of the instance"),
      optional("cpu_backend", Schema::string(),
               "the math library the framework runs the ops on (CPU): the node's cpu.math.library or one of its "
               "cpu.math.backends (e.g. openblas for PyTorch's fp32 matmuls under TORCH_MKLDNN_MATMUL_MIN_DIM)",
               "the node's cpu.math.library"),
      optional("seq_len", positive_count(), "tokens per request (encoders)", "the model's"),
      optional("sequence_lengths", Schema::string(),
               "requests' real lengths: a name in configs/sequence-lengths whose longest is seq_len; a framework "
               "that packs sequences runs each batch on them",
               "every request is seq_len tokens"),
      optional("input_len", positive_count(), "prompt tokens per request (LLMs)", "none"),
      optional("output_len", positive_count(), "generated tokens per request (LLMs)", "none"),
      optional("resolution", positive_count(), "image side (CNNs)", "the model's"),
      optional("layers", positive_count(), "transformer layers (e.g. 6 for DistilBERT)", "the model's"),
      optional("memory_format", Schema::one_of(kMemoryFormatNames.names()), "image tensor layout (GPU)", "the framework's"),
  });
  return schema;
}

InferenceSetup parse_inference_setup(const ConfigNode& root, const SpecCatalog& catalog) {
  InferenceSetup s;
  const ConfigNode& cluster = root.at("cluster");
  inference_cluster_schema().validate(cluster);
  const ConfigNode& node_name = cluster.at("node");
  s.node_name = node_name.as_string();
  s.node = parse_node_spec(catalog.load("nodes", node_name, "node"), s.node_name, catalog);
  s.nodes = static_cast<int>(cluster.get_int_or("nodes", 1));

  const ConfigNode& w = root.at("workload");
  inference_workload_schema().validate(w);
  if (const ConfigNode* layers = w.find("layers")) {
    check_count(CountLimit::layers, static_cast<double>(layers->as_int()), layers->loc(), "the model");
  }
  s.model_name = w.get_string("model");
  s.seq_len = w.get_int_or("seq_len", 0);
  s.input_len = w.get_int_or("input_len", 0);
  s.output_len = w.get_int_or("output_len", 0);
  const ConfigNode& precision = w.at("precision");
  s.precision = *parse_precision(precision.as_string());
  if (const ConfigNode* framework = w.find("framework")) {
    s.framework = load_framework_profile(catalog, *framework);
  } else {
    s.framework = load_framework_profile(catalog, ConfigNode::make_scalar("pytorch", w.loc()));
  }
  s.compile = w.get_bool_or("compile", false);
  if (const ConfigNode* format = w.find("memory_format")) s.framework.memory_format = *kMemoryFormatNames.parse(format->as_string());
  if (s.compile && !s.framework.has_compiled) {
    throw ConfigError(w.at("compile").loc(), "framework " + s.framework.name + " has no compiler to run compile: true");
  }
  const bool freeze = w.get_bool_or("freeze", false);
  if (freeze && !s.compiled()) {
    throw ConfigError(w.at("freeze").loc(), "freeze: true freezes a compiled graph: set compile: true");
  }
  s.frozen = s.framework.freezes_weights || freeze;
  if (const ConfigNode* no_grad = w.find("no_grad"); no_grad && !no_grad->as_bool()) {
    if (s.framework.eager.autograd_record_s <= 0) {
      throw ConfigError(no_grad->loc(), "framework " + s.framework.name +
                                            " records no autograd per op (no autograd_record in its profile): "
                                            "no_grad: false applies to eager PyTorch");
    }
    // Grad mode on: every eager op called from Python also records its autograd node (a compiled graph
    // records one node for the whole graph, so nothing per op).
    s.records_autograd = true;
    if (!s.compiled()) s.framework.eager.forward_dispatch_s += s.framework.eager.autograd_record_s;
  }
  if (const ConfigNode* lengths = w.find("sequence_lengths")) {
    if (!s.framework.packs_sequences) {
      throw ConfigError(lengths->loc(), "framework " + s.framework.name +
                                            " pads every request to seq_len; sequence_lengths needs one that packs "
                                            "sequences (packs_sequences: true, e.g. tensorrt)");
    }
    const SequenceLengths real = load_sequence_lengths(catalog, *lengths);
    if (s.seq_len != real.max_length()) {
      throw ConfigError(w.has("seq_len") ? w.at("seq_len").loc() : lengths->loc(),
                        "seq_len must be the longest length of " + real.name + ": " + std::to_string(real.max_length()));
    }
    s.mean_tokens = real.mean();
  }
  // A packed batch runs its requests' real tokens: on average the distribution's mean per request, so the
  // model is built at that length (attention's cost grows with each sequence's square, so a batch of mixed
  // lengths costs a little more than this for it).
  const std::int64_t built_len =
      s.mean_tokens > 0 ? std::max<std::int64_t>(1, std::llround(s.mean_tokens)) : s.seq_len;
  const ModelParams params{built_len > 0 ? std::optional<std::int64_t>(built_len) : optional_int(w, "input_len"),
                           optional_int(w, "resolution"), optional_int(w, "layers"), {}, {}, {}, {}};
  try {
    s.model = build_model(s.model_name, params, catalog.root());
  } catch (const ConfigError& e) {
    throw ConfigError(w.at("model").loc(), e.what());
  } catch (const std::invalid_argument& e) {
    throw ConfigError(w.at("model").loc(), e.what());
  }

  if (const ConfigNode* par = root.find("parallelism")) {
    inference_parallelism_schema().validate(*par);
    s.tp = static_cast<int>(par->get_int_or("tp", 1));
  }
  if (const ConfigNode* serving = root.find("serving")) {
    if (const ConfigNode* workers = serving->find("workers")) {
      positive_count().validate(*workers);
      s.workers = static_cast<int>(workers->as_number());
    }
  }

  if (s.on_gpu()) {
    if (s.tp > s.node.gpus * s.nodes) {
      throw ConfigError(root.at("parallelism").at("tp").loc(), "tp " + std::to_string(s.tp) + " needs more GPUs than the " +
                                                                   std::to_string(s.node.gpus * s.nodes) + " of " + s.node_name);
    }
    if (!s.node.gpu.supports(s.precision)) {
      throw ConfigError(precision.loc(), s.node.gpu.name + " has no " + precision.as_string() + " math units");
    }
    if (w.has("threads")) throw ConfigError(w.at("threads").loc(), "threads are for replicas on CPUs; " + s.node_name + " has GPUs");
    if (w.has("cpu_backend")) {
      throw ConfigError(w.at("cpu_backend").loc(), "cpu_backend is for replicas on CPUs; " + s.node_name + " has GPUs");
    }
  } else {
    if (!s.node.cpu.math.present()) {
      throw ConfigError(node_name.loc(), s.node_name + " describes no cpu.math (math units, math library): it cannot run a model");
    }
    if (s.precision == Precision::tf32 || s.precision == Precision::fp16 || s.precision == Precision::fp8 ||
        s.node.cpu.math.ops_per_cycle_at(s.precision) <= 0) {
      throw ConfigError(precision.loc(), s.node.cpu.model + " has no " + precision.as_string() + " math units");
    }
    const ConfigNode* backend = w.find("cpu_backend");
    if (backend) {
      const CpuMathLibrary* chosen = s.node.cpu.math.find_library(backend->as_string());
      if (!chosen) {
        throw ConfigError(backend->loc(), s.node_name + " has no math library " + backend->as_string() +
                                              " (its cpu.math: " + s.node.cpu.math.library_names() + ")");
      }
      s.node.cpu.math.library = *chosen;  // every op of this run goes through it
    }
    if (!s.node.cpu.math.library.runs_precision(s.precision)) {
      throw ConfigError(backend ? backend->loc() : precision.loc(),
                        "math library " + s.node.cpu.math.library.name + " on " + s.node_name + " does not run " +
                            precision.as_string() + " (its precisions in the node spec)");
    }
    const int cores = s.node.cpu.sockets * s.node.cpu.cores_per_socket;
    s.threads = static_cast<int>(w.get_int_or("threads", cores / s.workers > 0 ? cores / s.workers : 1));
    if (s.threads * s.workers > cores * s.node.cpu.threads_per_core) {
      throw ConfigError(w.has("threads") ? w.at("threads").loc() : w.loc(),
                        std::to_string(s.workers) + " workers x " + std::to_string(s.threads) +
                            " threads exceed the " + std::to_string(cores * s.node.cpu.threads_per_core) +
                            " hardware threads of " + s.node_name);
    }
  }
  if (catalog.names("prices").size() > 0) {
    for (const std::string& n : catalog.names("prices")) {
      if (n == s.node_name) s.price_per_hour = load_price(catalog, node_name, Pricing::cloud).cloud_per_hour;
    }
  }
  return s;
}

}  // namespace hpcsim
