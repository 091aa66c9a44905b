#include "workloads/scenario/training_scenario.h"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <utility>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/overrides.h"
#include "models/network/topology.h"
#include "workloads/resilience/checkpoint_state.h"
#include "workloads/scenario/scenario_kind.h"
#include "workloads/scheduling/node_leaves.h"
#include "workloads/training/training_memory.h"

namespace hpcsim {

namespace {
Schema positive_int() { return Schema::integer().at_least(1); }
}  // namespace

namespace {

const std::vector<std::string>& optimizer_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& [kind, kind_name] : kOptimizerKindNames.entries) {
      out.emplace_back(kind_name);
      for (OptimizerImpl impl : {OptimizerImpl::fused, OptimizerImpl::foreach, OptimizerImpl::unfused}) {
        out.push_back(std::string(kind_name) + "-" + std::string(kOptimizerImplNames.name(impl)));
      }
    }
    return out;
  }();
  return names;
}

}  // namespace

Schema validation_category_schema() {
  return Schema::one_of({"cnn", "rnn", "gan", "transformer", "scaling", "micro"});
}

const Schema& training_scenario_schema() {
  static const Schema schema = Schema::map({
      extends_field(),
      optional("kind", scenario_kind_schema(), "what the file describes: training (these keys), serve (an inference endpoint, hpcsim serve), plan (hpcsim plan)", "training"),
      optional("name", Schema::string(), "the run's name in outputs and the results store", "the file's name without .yaml"),
      optional("description", Schema::string(), "free text (not read)", "none"),
      required("cluster", cluster_schema(), "the machine: node type, node count, network"),
      required("workload", Schema::map({
                               required("model", Schema::string(),
                                        "a zoo name (built in or configs/models) or a model YAML path relative to this file"),
                               optional("batch_per_gpu", positive_int(),
                                        "samples per GPU per pass; with micro_batch, per optimizer step (a multiple of it)",
                                        "none: give batch_per_gpu, micro_batch or tokens_per_gpu"),
                               optional("global_batch", positive_int(),
                                        "samples per optimizer step over all replicas: sets microbatches to "
                                        "global_batch / (micro batch x dp)",
                                        "micro batch x microbatches x dp"),
                               optional("micro_batch", positive_int(), "samples per GPU through one forward/backward pass",
                                        "batch_per_gpu, or tokens_per_gpu / seq_len"),
                               optional("tokens_per_gpu", positive_int(),
                                        "the micro batch as a token budget: tokens_per_gpu / seq_len samples, rounded down",
                                        "none"),
                               optional("seq_len", positive_int(), "sequence length in tokens (models that take it)",
                                        "the model's own"),
                               optional("resolution", positive_int(), "input image side in pixels (models that take it)",
                                        "the model's own"),
                               optional("layers", positive_int(), "layers or blocks (models that take it)",
                                        "the model's own (gpt requires it)"),
                               optional("hidden", positive_int(), "hidden size (models that take it)",
                                        "the model's own (gpt requires it)"),
                               optional("heads", positive_int(), "attention heads (models that take it)",
                                        "the model's own (gpt requires it)"),
                               optional("ffn", positive_int(), "feed-forward inner size (models that take it)",
                                        "the model's own (gpt: 4 x hidden)"),
                               optional("vocab", positive_int(), "vocabulary size (models that take it)",
                                        "the model's own (gpt requires it)"),
                               required("precision", Schema::one_of(kPrecisionNames.names({Precision::fp32, Precision::tf32, Precision::fp16,
                                                                         Precision::bf16, Precision::fp8, Precision::mxfp8,
                                                                         Precision::nvfp4, Precision::mxfp4})),
                                        "precision the model's math runs in; the GPU must have units for it (fp8, "
                                        "mxfp8, nvfp4, mxfp4: dense and attention-projection GEMMs in it, the rest in bf16)"),
                               optional("framework", Schema::string(),
                                        "software profile in configs/frameworks, one that trains: dispatch cost, fusion and the defaults below",
                                        "pytorch"),
                               required("optimizer", Schema::one_of(optimizer_names()),
                                        "the optimizer, optionally with its implementation (adamw-fused)"),
                               optional("optimizer_impl", Schema::one_of(kOptimizerImplNames.names()),
                                        "how the optimizer step runs: fused kernels, foreach (multi-tensor) or one "
                                        "kernel per tensor; must agree with optimizer's suffix",
                                        "optimizer's suffix, else the framework's"),
                               optional("compile", Schema::boolean(),
                                        "run under the framework's compiler (torch.compile, XLA, hybridize)",
                                        "false (jax always compiles)"),
                               optional("cuda_graphs", Schema::boolean(),
                                        "replay the step as CUDA graphs: no host dispatch per kernel",
                                        "false, unless the framework's mode uses them"),
                               optional("overlap_gradient_reduce", Schema::boolean(),
                                        "reduce data-parallel gradients bucket by bucket while the last microbatch's backward runs (each pipeline "
                                        "chunk's, with pipeline parallelism, as Megatron-Core does)",
                                        "the framework's"),
                               optional("overlap_param_gather", Schema::boolean(),
                                        "ZeRO-1/2 (Megatron's distributed optimizer): gather the updated parameters "
                                        "bucket by bucket behind the next step's forward instead of after the update "
                                        "(Megatron's --overlap-param-gather); needs parallelism.zero 1 or 2",
                                        "false"),
                               optional("activation_checkpointing",
                                        Schema::string(),
                                        "true, false, full or selective: recompute in backward instead of keeping activations; true or full, each "
                                        "block's forward from its input; selective, the core attention only "
                                        "(Megatron's --recompute-granularity selective)",
                                        "false"),
                               optional("tp_comm_overlap", Schema::boolean(),
                                        "overlap the tensor-parallel all-gathers and reduce-scatters with the GEMMs "
                                        "they feed, in tp chunks (Megatron-Core --tp-comm-overlap, Transformer Engine "
                                        "userbuffers); needs tp > 1 and parallelism.sequence_parallel",
                                        "false"),
                               optional("steps", positive_int(),
                                        "optimizer steps to train: training time is steps x step time (a training job "
                                        "gives them beside its workload)",
                                        "1"),
                               optional("dataset", Schema::string(), "what is read each step: a name in configs/datasets",
                                        "none: the data is already on the GPU"),
                               optional("loader_workers", positive_int(), "data-loader worker processes per GPU",
                                        "the framework's"),
                               optional("page_cache_warm", Schema::boolean(),
                                        "a later epoch: the dataset may be served from the host's page cache", "false"),
                               optional("page_cache_fraction", Schema::number().at_least(0).at_most(1),
                                        "the share of each node's host memory its page cache may hold (a job's "
                                        "memory limit counts the cache: cgroup memory.max)",
                                        "0.5"),
                               optional("d_steps", positive_int(),
                                        "GAN: discriminator updates per generator update", "1"),
                               optional("gan", Schema::map({
                                                   optional("r1_interval", Schema::integer().at_least(0),
                                                            "R1 regularization (a double backward through D) every N "
                                                            "iterations; 0: never",
                                                            "stylegan2: 16, else 0"),
                                                   optional("pl_interval", Schema::integer().at_least(0),
                                                            "path-length regularization (a double backward through G) "
                                                            "every N iterations; 0: never",
                                                            "stylegan2: 4, else 0"),
                                                   optional("pl_batch_shrink", positive_int(),
                                                            "path-length regularization runs on the micro batch divided by this",
                                                            "2"),
                                                   optional("fp16_resolutions", Schema::integer().at_least(-1),
                                                            "only the N highest-resolution blocks run in 16-bit, the rest "
                                                            "in fp32; -1: every layer in the run's precision",
                                                            "stylegan2: 4, else -1"),
                                                   optional("augment", Schema::boolean(),
                                                            "ADA augmentation of every discriminator input",
                                                            "stylegan2: true, else false"),
                                                   optional("ema", Schema::boolean(),
                                                            "keep a moving average of the generator's weights (G_ema)",
                                                            "stylegan2: true, else false"),
                                               }),
                                        "GAN recipe (StyleGAN2-ADA's knobs); needs a generator and a discriminator",
                                        "stylegan2: StyleGAN2-ADA's recipe, else everything off"),
                               optional("memory_format", Schema::one_of(kMemoryFormatNames.names()),
                                        "layout of image tensors, nhwc being channels-last (models with convolutions)",
                                        "the framework's"),
                               optional("attention", Schema::one_of(kAttentionKernelNames.names()),
                                        "self-attention kernels: fused (flash) or one per step (models with self-attention)",
                                        "the framework's"),
                               optional("sequence_lengths", Schema::string(),
                                        "real sample lengths: a name in configs/sequence-lengths; its longest must be seq_len",
                                        "none: every sample is seq_len long"),
                               optional("length_bin", positive_int(),
                                        "draw each batch from a bin this many tokens wide and pad it to its longest "
                                        "sample; needs sequence_lengths",
                                        "none: every sample is padded to seq_len"),
                               optional("pad_multiple", positive_int(),
                                        "binned batches are padded up to a multiple of this; needs length_bin", "1"),
                           }), "what is trained and how"),
      optional("parallelism", Schema::map({
                                  optional("dp", positive_int(),
                                           "data-parallel replicas; dp x tp x pp x cp may not exceed the GPUs",
                                           "the GPUs / (tp x pp x cp), which must divide"),
                                  optional("tp", positive_int(), "tensor-parallel degree", "1"),
                                  optional("pp", positive_int(), "pipeline-parallel stages", "1"),
                                  optional("vp", positive_int(),
                                           "virtual pipeline stages per GPU (interleaved schedule); needs pp > 1", "1"),
                                  optional("cp", positive_int(), "context-parallel degree (the sequence split)", "1"),
                                  optional("zero", Schema::integer().at_least(0).at_most(3),
                                           "ZeRO stage: 1 shards optimizer state, 2 also gradients, 3 also parameters; "
                                           "2 and 3 need pp = 1",
                                           "0, or 3 with fsdp"),
                                  optional("fsdp", Schema::boolean(),
                                           "FSDP: ZeRO-3 sharding with per-unit all-gathers", "false"),
                                  optional("sequence_parallel", Schema::boolean(),
                                           "Megatron sequence parallelism: norms and residual adds run on 1/tp of "
                                           "the tokens and tensor-parallel layers keep 1/tp of their inputs; "
                                           "needs tp > 1",
                                           "false"),
                                  optional("tp_pp_dp_mapping", Schema::boolean(),
                                           "Megatron's --use-tp-pp-dp-mapping: ranks ordered tp, cp, pp, dp, so one "
                                           "model replica's GPUs (all its stages) sit together and the data-parallel "
                                           "groups span replicas",
                                           "false (tp, cp, dp, pp)"),
                                  optional("microbatches", positive_int(),
                                           "passes per optimizer step (pipeline microbatches or gradient accumulation)",
                                           "from global_batch or batch_per_gpu / micro_batch, else 1"),
                                  optional("schedule", Schema::one_of(kPipelineScheduleNames.names()),
                                           "pipeline schedule; interleaved exactly when vp > 1",
                                           "interleaved when vp > 1, else 1f1b"),
                              }), "how the work is cut across GPUs", "data parallelism over every GPU"),
      optional("measured",
               measured_schema({Schema::one_of({"samples_per_s", "tokens_per_s", "tflops_per_gpu",
                                                "hardware_tflops_per_gpu", "step_time_s", "s_per_kimg"}),
                                "what was measured; the prediction is compared in the same metric",
                                validation_category_schema()}),
               "a published measurement the prediction is validated against", "none"),
      optional("resilience", resilience_schema(),
               "the whole run with failures, checkpoints and restarts (docs/resilience.md)", "none: one step"),
      optional("stragglers", straggler_schema(),
               "slow GPUs and degraded links among the fleet the job is drawn from: the step with them and the "
               "expected step (docs/resilience.md)", "none"),
      optional("mixed_nodes", mixed_nodes_schema(),
               "a second node type (GPU generation) for some of the cluster's nodes in the same data-parallel job: "
               "the job's step and the batch split (docs/resilience.md)", "none: every node is cluster.node"),
  });
  return schema;
}

namespace {

std::optional<std::int64_t> optional_int(const ConfigNode& map, std::string_view key) {
  if (!map.has(key)) return std::nullopt;
  return map.get_int(key);
}

// Builds the model the workload names: a zoo name, or a model YAML path relative to the scenario file.
Model build_workload_model(const ConfigNode& w, const ModelParams& params, const std::filesystem::path& config_root) {
  const ConfigNode& model = w.at("model");
  std::string name = model.as_string();
  const bool path = name.find('/') != std::string::npos || name.ends_with(".yaml");
  if (path) {
    name = (std::filesystem::path(model.loc().file).parent_path() / name).lexically_normal().string();
  } else {
    Schema::one_of(zoo_names(config_root)).validate(model);  // unknown names: "did you mean", at the key
  }
  // A size the model does not take would be silently ignored: say so at its key.
  const std::vector<std::string> takes = model_size_keys(name);
  for (const char* key : {"seq_len", "resolution", "layers", "hidden", "heads", "ffn", "vocab"}) {
    const ConfigNode* given = w.find(key);
    if (given == nullptr || std::find(takes.begin(), takes.end(), key) != takes.end()) continue;
    std::string what = takes.empty() ? "none (its sizes are fixed" + std::string(path ? " in its file)" : ")") : "";
    for (const std::string& t : takes) what += (what.empty() ? "" : ", ") + t;
    throw ConfigError(given->loc(), "model '" + model.as_string() + "' takes no '" + key + "' (it takes: " + what + ")");
  }
  try {
    return build_model(name, params, config_root);
  } catch (const ConfigError&) {
    throw;
  } catch (const std::invalid_argument& e) {  // a missing or impossible size, a shape that does not fit
    const SourceLoc& at = blame(w.loc(), {w.find("seq_len"), w.find("resolution"), w.find("layers"), w.find("hidden"),
                                          w.find("heads"), w.find("ffn"), w.find("vocab"), &model});
    throw ConfigError(at, std::string("workload.model '") + model.as_string() + "': " + e.what());
  }
}

}  // namespace

namespace {

void parse_optimizer(const ConfigNode& w, WorkloadConfig& c) {
  const ConfigNode& node = w.at("optimizer");
  const std::string text = node.as_string();
  const std::string kind = text.substr(0, text.find('-'));
  c.optimizer = *kOptimizerKindNames.parse(kind);  // the schema admits only the table's names
  std::optional<std::string> impl;
  if (text.find('-') != std::string::npos) impl = text.substr(text.find('-') + 1);
  if (const ConfigNode* given = w.find("optimizer_impl")) {
    if (impl && *impl != given->as_string()) {
      throw ConfigError(given->loc(), "optimizer_impl is " + given->as_string() + " but optimizer says " + text);
    }
    impl = given->as_string();
  }
  if (impl) {
    c.optimizer_impl_given = true;
    c.optimizer_impl = *kOptimizerImplNames.parse(*impl);
  }
}

// The frameworks are the catalog's files (configs/frameworks); a training workload takes those that train.
// A switch that grew modes: every spelling of true and false ConfigNode::as_bool takes, and the modes by name.
Recompute parse_recompute(const ConfigNode& node) {
  if (const std::optional<Recompute> named = kRecomputeNames.parse(node.text()); named && *named != Recompute::none) {
    return *named;
  }
  try {
    return node.as_bool() ? Recompute::full : Recompute::none;
  } catch (const ConfigError&) {
    throw ConfigError(node.loc(), "expected true, false, 'full' or 'selective', got " + node.describe());
  }
}

void check_trains(const ConfigNode& framework, const SpecCatalog& catalog) {
  if (load_framework_profile(catalog, framework).trains) return;
  std::string trains;
  for (const std::string& name : catalog.names("frameworks")) {
    if (load_framework_profile(catalog, ConfigNode::make_scalar(name, framework.loc())).trains) {
      if (!trains.empty()) trains += ", ";
      trains += name;
    }
  }
  throw ConfigError(framework.loc(), "framework '" + framework.as_string() +
                                         "' is an inference runtime; a training workload needs one of: " + trains);
}

}  // namespace

LoaderConfig WorkloadConfig::loader(int workers_per_gpu) const {
  LoaderConfig out;
  out.workers_per_gpu = workers_per_gpu;
  out.page_cache_warm = page_cache_warm;
  out.page_cache_fraction = page_cache_fraction;
  return out;
}

WorkloadConfig parse_workload(const ConfigNode& w, const std::filesystem::path& config_root) {
  WorkloadConfig c;
  c.model = w.get_string("model");
  c.params = ModelParams{optional_int(w, "seq_len"), optional_int(w, "resolution"), optional_int(w, "layers"),
                         optional_int(w, "hidden"),  optional_int(w, "heads"),      optional_int(w, "ffn"),
                         optional_int(w, "vocab")};
  c.built = build_workload_model(w, c.params, config_root);
  c.precision = *parse_precision(w.get_string("precision"));
  parse_optimizer(w, c);
  c.framework = w.get_string_or("framework", "pytorch");
  if (const ConfigNode* framework = w.find("framework")) check_trains(*framework, SpecCatalog(config_root));
  c.compile = w.get_bool_or("compile", false);
  c.cuda_graphs = w.get_bool_or("cuda_graphs", false);
  if (w.has("overlap_gradient_reduce")) c.overlap_gradient_reduce = w.get_bool("overlap_gradient_reduce");
  c.overlap_param_gather = w.get_bool_or("overlap_param_gather", false);
  if (const ConfigNode* ac = w.find("activation_checkpointing")) c.recompute = parse_recompute(*ac);
  if (w.has("tp_comm_overlap")) c.tp_comm_overlap = w.get_bool("tp_comm_overlap");
  c.page_cache_warm = w.get_bool_or("page_cache_warm", false);
  if (w.has("page_cache_fraction")) c.page_cache_fraction = w.get_number("page_cache_fraction");
  c.steps = static_cast<int>(w.get_int_or("steps", 1));
  if (w.has("dataset")) c.dataset = w.get_string("dataset");
  if (w.has("loader_workers")) c.loader_workers = static_cast<int>(w.get_int("loader_workers"));
  c.d_steps = static_cast<int>(w.get_int_or("d_steps", 1));
  if (w.has("memory_format")) c.memory_format = kMemoryFormatNames.parse(w.get_string("memory_format"));
  if (w.has("attention")) c.attention = kAttentionKernelNames.parse(w.get_string("attention"));
  for (const char* key : {"length_bin", "pad_multiple"}) {
    if (const ConfigNode* given = w.find(key); given != nullptr && !w.has("sequence_lengths")) {
      throw ConfigError(given->loc(), std::string(key) + " pads batches by their real lengths: it needs "
                                                         "workload.sequence_lengths (a name in configs/sequence-lengths)");
    }
  }
  if (w.has("length_bin")) c.length_bin = w.get_int("length_bin");
  if (const ConfigNode* multiple = w.find("pad_multiple"); multiple != nullptr && !c.length_bin) {
    throw ConfigError(multiple->loc(), "pad_multiple rounds binned batches up: it needs workload.length_bin "
                                       "(without it every sample is padded to seq_len)");
  }
  c.pad_multiple = w.get_int_or("pad_multiple", 1);
  if (c.model == "stylegan2") c.gan = stylegan2_ada_recipe();  // what train.py runs by default
  if (const ConfigNode* gan = w.find("gan")) {
    if (c.built.networks.size() < 2) {
      throw ConfigError(gan->loc(), "gan needs a model with a generator and a discriminator; " + c.model +
                                        " has one network");
    }
    c.gan.r1_interval = static_cast<int>(gan->get_int_or("r1_interval", c.gan.r1_interval));
    c.gan.pl_interval = static_cast<int>(gan->get_int_or("pl_interval", c.gan.pl_interval));
    // A step simulates the whole cycle of lcm(r1_interval, pl_interval) iterations (2,147,483,647 and 4
    // wrapped an int and printed -inf: tests/fuzz).
    const std::int64_t cycle = c.gan.cycle_iterations();
    const ConfigNode* interval = gan->find("r1_interval") ? gan->find("r1_interval") : gan->find("pl_interval");
    std::string what = "the GAN step's regularization cycle (lcm of r1_interval ";
    what += std::to_string(c.gan.r1_interval);
    what += " and pl_interval ";
    what += std::to_string(c.gan.pl_interval);
    what += ")";
    check_count(CountLimit::gan_iterations, static_cast<double>(cycle), interval ? interval->loc() : gan->loc(), what);
    c.gan.pl_batch_shrink = static_cast<int>(gan->get_int_or("pl_batch_shrink", c.gan.pl_batch_shrink));
    c.gan.fp16_resolutions = static_cast<int>(gan->get_int_or("fp16_resolutions", c.gan.fp16_resolutions));
    c.gan.augment = gan->get_bool_or("augment", c.gan.augment);
    c.gan.weight_average = gan->get_bool_or("ema", c.gan.weight_average);
  }
  // Keys about layers the model does not have would be silently ignored: say so at the key.
  const auto has_layer = [&c](bool LayerTraits::*trait) {
    for (const Network& net : c.built.networks) {
      for (const LayerNode& node : net.nodes()) {
        if (node.layer && node.layer->traits().*trait) return true;
      }
    }
    return false;
  };
  if (const ConfigNode* format = w.find("memory_format"); format != nullptr && !has_layer(&LayerTraits::convolution)) {
    throw ConfigError(format->loc(), "memory_format is the layout of image tensors; model '" + c.model +
                                         "' has no convolutions");
  }
  if (const ConfigNode* attention = w.find("attention"); attention != nullptr && !has_layer(&LayerTraits::self_attention)) {
    throw ConfigError(attention->loc(), "attention picks the self-attention kernels; model '" + c.model +
                                            "' has no self-attention layer");
  }
  if (w.has("d_steps") && c.built.networks.size() < 2) {
    throw ConfigError(w.at("d_steps").loc(), "d_steps needs a model with a generator and a discriminator (a GAN); " +
                                                 c.model + " has one network");
  }

  // The micro batch: samples through one forward/backward pass of a replica.
  const ConfigNode* batch = w.find("batch_per_gpu");
  const ConfigNode* micro = w.find("micro_batch");
  const ConfigNode* tokens = w.find("tokens_per_gpu");
  if (tokens != nullptr) {
    if (batch != nullptr || micro != nullptr) {
      throw ConfigError(tokens->loc(), "tokens_per_gpu sets the batch from a token budget; give it or "
                                       "batch_per_gpu/micro_batch, not both");
    }
    const std::int64_t seq = c.built.token_input_length();
    if (seq <= 0) throw ConfigError(tokens->loc(), "tokens_per_gpu needs a sequence model; " + c.model + " has no token input");
    const std::int64_t samples = tokens->as_int() / seq;
    if (samples < 1) {
      throw ConfigError(tokens->loc(), "tokens_per_gpu " + std::to_string(tokens->as_int()) +
                                           " is less than one sequence of " + std::to_string(seq) + " tokens");
    }
    c.batch_per_gpu = static_cast<int>(samples);
  } else if (micro != nullptr) {
    c.batch_per_gpu = static_cast<int>(micro->as_int());
    if (batch != nullptr && batch->as_int() % micro->as_int() != 0) {
      throw ConfigError(batch->loc(), "batch_per_gpu " + std::to_string(batch->as_int()) +
                                          " is not a multiple of micro_batch " + std::to_string(micro->as_int()));
    }
  } else if (batch != nullptr) {
    c.batch_per_gpu = static_cast<int>(batch->as_int());
  } else {
    throw ConfigError(w.loc(), "workload needs batch_per_gpu, micro_batch or tokens_per_gpu");
  }
  // A micro-batch's largest tensor, like one sample's (Network::add), within what a GPU can hold: past it the
  // 64-bit sizes the step forms from the batch would overflow.
  const std::int64_t largest = c.built.largest_tensor();
  if (static_cast<double>(largest) * c.batch_per_gpu > static_cast<double>(kMaxTensorElements)) {
    const ConfigNode* given = tokens != nullptr ? tokens : micro != nullptr ? micro : batch;
    throw ConfigError(blame(given->loc(), {w.find("seq_len"), w.find("resolution"), w.find("hidden"), w.find("ffn"),
                                           w.find("vocab"), given}),
                      "a micro-batch of " + std::to_string(c.batch_per_gpu) + " samples of " + c.model + " makes a tensor of " +
                          std::to_string(largest) + " x " + std::to_string(c.batch_per_gpu) +
                          " elements, more than 2^48, more than any GPU holds");
  }
  return c;
}

namespace {

int degree(const ConfigNode* p, std::string_view key) {
  return p != nullptr && p->has(key) ? static_cast<int>(p->get_int(key)) : 1;
}

[[noreturn]] void inconsistent(const ConfigNode& at, const std::string& why) { throw ConfigError(at.loc(), why); }

// A layout check reads the degrees and the cluster's GPU count: it fails at the one of them a flag gave,
// if any (what a what-if changed), else at `fallback`.
[[noreturn]] void bad_layout(const ConfigNode& root, const ConfigNode* p, const ConfigNode& fallback,
                             const std::string& why) {
  const ConfigNode* cluster = root.find("cluster");
  const auto key = [](const ConfigNode* map, std::string_view k) {
    return map != nullptr && map->is_map() ? map->find(k) : nullptr;
  };
  throw ConfigError(blame(fallback.loc(), {key(p, "dp"), key(p, "tp"), key(p, "pp"), key(p, "cp"), key(cluster, "nodes"),
                                           key(cluster, "gpus_per_node"), key(cluster, "node")}),
                    why);
}

void parse_parallelism(const ConfigNode& root, TrainingScenario& s) {
  const ConfigNode* p = root.find("parallelism");
  const ConfigNode& w = root.at("workload");
  const ConfigNode& at = p != nullptr ? *p : root;
  ParallelismConfig& par = s.parallelism;
  par.layout.tp = degree(p, "tp"), par.layout.pp = degree(p, "pp"), par.layout.vp = degree(p, "vp"), par.layout.cp = degree(p, "cp");
  const int gpus = s.cluster.gpus();
  // The products in 64 bits, each degree first held to the GPUs: in int, tp = 2^31-1 at pp 16 wrapped to a
  // product that passed these checks.
  for (const int degree_value : {par.layout.tp, par.layout.pp, par.layout.cp}) {
    if (degree_value > gpus) {
      bad_layout(root, p, at, "tp x pp x cp = " + std::to_string(par.layout.tp) + " x " + std::to_string(par.layout.pp) +
                                  " x " + std::to_string(par.layout.cp) + " but the cluster has " + std::to_string(gpus) + " GPUs");
    }
  }
  const std::int64_t model_parallel = std::int64_t{par.layout.tp} * par.layout.pp * par.layout.cp;
  if (model_parallel > gpus) {
    bad_layout(root, p, at, "tp x pp x cp = " + std::to_string(model_parallel) + " but the cluster has " +
                                std::to_string(gpus) + " GPUs");
  }
  if (p != nullptr && p->has("dp")) {
    par.layout.dp = static_cast<int>(p->get_int("dp"));
    if (par.layout.dp * model_parallel > gpus) {
      bad_layout(root, p, p->at("dp"), "dp x tp x pp x cp = " + std::to_string(par.layout.dp * model_parallel) +
                                    " but the cluster has " + std::to_string(gpus) + " GPUs");
    }
  } else {
    if (gpus % model_parallel != 0) {
      bad_layout(root, p, at, "the cluster's " + std::to_string(gpus) + " GPUs do not divide into tp x pp x cp = " +
                                  std::to_string(model_parallel) + " groups; set parallelism.dp");
    }
    par.layout.dp = gpus / model_parallel;
  }

  // Tensor parallelism splits layers that have a tensor-parallel form (Megatron's attention and MLP blocks);
  // a model without any (a CNN) cannot be split over tp GPUs.
  if (par.layout.tp > 1) {
    bool splits = false;
    for (const Network& net : s.workload.built.networks)
      for (const LayerNode& node : net.nodes()) splits |= node.layer && node.layer->tensor_split() != TensorSplit::none;
    if (!splits) {
      inconsistent(p->at("tp"), "tp " + std::to_string(par.layout.tp) + ": model '" + s.workload.model +
                                    "' has no tensor-parallel layers (Megatron splits attention and MLP blocks); use tp: 1");
    }
  }

  // Pipeline schedule: interleaved exactly when there are virtual stages.
  if (p != nullptr && p->has("schedule")) {
    const std::string name = p->get_string("schedule");
    par.schedule = *kPipelineScheduleNames.parse(name);
    if ((par.schedule == PipelineSchedule::interleaved) != (par.layout.vp > 1)) {
      inconsistent(p->at("schedule"), par.layout.vp > 1 ? "vp > 1 (virtual stages) needs schedule: interleaved"
                                                 : "schedule: interleaved needs vp > 1 virtual stages per GPU");
    }
  } else if (par.layout.vp > 1) {
    par.schedule = PipelineSchedule::interleaved;
  }
  if (par.layout.vp > 1 && par.layout.pp == 1) inconsistent(p->at("vp"), "vp (virtual pipeline stages) needs pp > 1");
  // pp x vp in 64 bits: each is at most 2^31-1, and their product in int would wrap (vp = 2^31-1 at pp 16 read as
  // -16 stages, which passed this check).
  const std::int64_t virtual_stages = std::int64_t{par.layout.pp} * par.layout.vp;
  if (virtual_stages > 1) {
    // Each (virtual) stage takes a contiguous run of at least one layer.
    std::size_t layers = 0;
    for (const Network& net : s.workload.built.networks)
      for (const LayerNode& node : net.nodes()) layers += node.layer ? 1 : 0;
    if (static_cast<std::uint64_t>(virtual_stages) > layers) {
      inconsistent(p->at(p->has("pp") ? "pp" : "vp"),
                   "pp x vp = " + std::to_string(virtual_stages) + " pipeline stages, but model '" +
                       s.workload.model + "' has " + std::to_string(layers) + " layers to cut (each stage needs one)");
    }
  }

  // Sharding.
  par.zero = p != nullptr && p->has("zero") ? static_cast<int>(p->get_int("zero")) : 0;
  par.fsdp = p != nullptr && p->get_bool_or("fsdp", false);
  if (par.fsdp) {
    if (p->has("zero") && par.zero != 3) inconsistent(p->at("zero"), "fsdp shards like zero: 3; zero is " + std::to_string(par.zero));
    par.zero = 3;
  }
  if (par.zero >= 2 && par.layout.pp > 1) {
    inconsistent(p->has("zero") ? p->at("zero") : p->at("fsdp"),
                 "ZeRO stage 2 and 3 (and FSDP) shard gradients, which pipeline parallelism accumulates over "
                 "microbatches; use zero: 1 with pp > 1 (as DeepSpeed requires)");
  }

  if (s.workload.overlap_param_gather && par.zero != 1 && par.zero != 2) {
    inconsistent(w.at("overlap_param_gather"), "overlap_param_gather gathers the parameters a sharded optimizer "
                                               "updated; it needs parallelism.zero 1 or 2 (Megatron's "
                                               "--use-distributed-optimizer), zero is " + std::to_string(par.zero));
  }

  par.sequence_parallel = p != nullptr && p->get_bool_or("sequence_parallel", false);
  par.layout.tp_pp_dp = p != nullptr && p->get_bool_or("tp_pp_dp_mapping", false);
  if (par.sequence_parallel && par.layout.tp == 1) {
    inconsistent(p->at("sequence_parallel"), "sequence_parallel splits the sequence over the tensor-parallel group; "
                                             "it needs tp > 1");
  }

  // Megatron asserts it ("Tensor parallel communication/GEMM overlap can happen only when sequence
  // parallelism is enabled", arguments.py): the overlapped collectives are sequence parallelism's.
  if (const ConfigNode* overlap = w.find("tp_comm_overlap"); overlap != nullptr && overlap->as_bool()) {
    if (par.layout.tp == 1) inconsistent(*overlap, "tp_comm_overlap overlaps tensor-parallel communication; it needs tp > 1");
    if (!par.sequence_parallel) {
      inconsistent(*overlap, "tp_comm_overlap pipelines sequence parallelism's all-gathers and reduce-scatters with the "
                       "GEMMs; it needs parallelism.sequence_parallel: true (as Megatron-Core asserts)");
    }
  }

  // Microbatches per optimizer step: given, or from the global batch, or from batch_per_gpu / micro_batch.
  const std::int64_t micro = s.workload.batch_per_gpu;
  std::optional<std::int64_t> m;
  if (w.has("micro_batch") && w.has("batch_per_gpu")) m = w.get_int("batch_per_gpu") / micro;
  if (p != nullptr && p->has("microbatches")) {
    const std::int64_t given = p->get_int("microbatches");
    if (m && *m != given) {
      inconsistent(p->at("microbatches"), "microbatches is " + std::to_string(given) + " but batch_per_gpu / micro_batch = " +
                                              std::to_string(*m));
    }
    m = given;
  }
  if (const ConfigNode* global = w.find("global_batch")) {
    const std::int64_t per_step = micro * par.layout.dp;
    if (global->as_int() % per_step != 0) {
      inconsistent(*global, "global_batch " + std::to_string(global->as_int()) + " is not a multiple of micro batch " +
                                std::to_string(micro) + " x dp " + std::to_string(par.layout.dp) + " = " + std::to_string(per_step));
    }
    const std::int64_t from_global = global->as_int() / per_step;
    if (m && *m != from_global) {
      inconsistent(*global, "global_batch " + std::to_string(global->as_int()) + " needs " + std::to_string(from_global) +
                                " microbatches of " + std::to_string(micro) + " per replica, but " + std::to_string(*m) +
                                " are set");
    }
    m = from_global;
  }
  if (m) {
    const ConfigNode* from = p != nullptr && p->has("microbatches") ? &p->at("microbatches")
                             : w.has("global_batch")                ? &w.at("global_batch")
                                                                    : &w.at("batch_per_gpu");
    // A step simulates every microbatch on every pipeline stage (and virtual stage): that is what costs.
    const double stages = static_cast<double>(par.layout.pp) * static_cast<double>(par.layout.vp);
    check_count(CountLimit::microbatches, static_cast<double>(*m) * stages, from->loc(),
                stages > 1 ? "the step (" + std::to_string(*m) + " microbatches x " +
                                 std::to_string(static_cast<std::int64_t>(stages)) + " pipeline stages)"
                           : std::string("the step"));
  }
  par.microbatches = static_cast<int>(m.value_or(1));
  if (par.schedule == PipelineSchedule::interleaved && par.microbatches % par.layout.pp != 0) {
    inconsistent(p->at("vp"), "the interleaved schedule needs microbatches (" + std::to_string(par.microbatches) +
                                  ") to be a multiple of pp (" + std::to_string(par.layout.pp) + ")");
  }
}

}  // namespace

TrainingScenario parse_training_scenario(const ConfigNode& root, const SpecCatalog& catalog, std::string name) {
  // Checked before the schema: another kind's file need not have a training scenario's sections.
  if (runnable_scenario_kind(root) != ScenarioKind::training)
    throw ConfigError(root.at("kind").loc(), "not a training scenario (kind: " + root.at("kind").as_string() + ")");
  training_scenario_schema().validate(root);
  TrainingScenario s;
  s.name = root.get_string_or("name", std::move(name));

  s.cluster = parse_cluster(root.at("cluster"), catalog);
  {  // every GPU of a training cluster is simulated (grouped by symmetry where it can be)
    const ConfigNode& c = root.at("cluster");
    const ConfigNode& at = c.has("gpus_per_node") ? c.at("gpus_per_node") : c.has("nodes") ? c.at("nodes") : c;
    check_count(CountLimit::gpus, static_cast<double>(s.cluster.nodes) * s.cluster.gpus_per_node, at.loc(),
                "the cluster (" + std::to_string(s.cluster.nodes) + " nodes x " + std::to_string(s.cluster.gpus_per_node) +
                    " GPUs)");
  }
  if (const ConfigNode* layers = root.at("workload").find("layers")) {
    check_count(CountLimit::layers, static_cast<double>(layers->as_int()), layers->loc(), "the model");
  }
  if (const ConfigNode* storage = root.at("cluster").find("storage")) {
    s.storage_spec = parse_storage_spec(catalog.load("storage", *storage, "storage"), storage->as_string(), catalog);
    s.storage = storage->as_string();
  }
  if (const ConfigNode* fs = root.at("cluster").find("filesystem")) {
    if (s.storage) {
      throw ConfigError(fs->loc(), "cluster.filesystem and cluster.storage both say where the data is: give one");
    }
    s.filesystem_spec =
        parse_filesystem_spec(catalog.load("filesystems", *fs, "file system"), fs->as_string(), catalog);
    s.filesystem = fs->as_string();
  }

  s.workload = parse_workload(root.at("workload"), catalog.root());
  if (!s.cluster.node.gpu.supports(s.workload.precision)) {
    throw ConfigError(root.at("workload").at("precision").loc(),
                      "the " + s.cluster.node.gpu.name + " has no " +
                          std::string(to_string(s.workload.precision)) + " math units");
  }
  const ConfigNode& w = root.at("workload");
  if (const ConfigNode* framework = w.find("framework")) {
    s.framework = load_framework_profile(catalog, *framework);
  } else {
    const ConfigNode pytorch = ConfigNode::make_scalar("pytorch", w.loc());
    s.framework = load_framework_profile(catalog, pytorch);
  }
  if (!s.workload.optimizer_impl_given) s.workload.optimizer_impl = s.framework.optimizer;
  if (s.workload.compile && !s.framework.has_compiled) {
    throw ConfigError(w.at("compile").loc(), "framework " + s.framework.name + " has no compiler to run compile: true");
  }
  if (const ConfigNode* workers = w.find("loader_workers")) {
    // Every GPU's loader workers read at once: the storage model holds each reader (and an int count of them
    // overflowed into "no reader" at 2^31 workers).
    check_count(CountLimit::readers,
                static_cast<double>(*s.workload.loader_workers) * s.cluster.nodes * s.cluster.gpus_per_node,
                workers->loc(), "the data loaders (" + std::to_string(*s.workload.loader_workers) + " workers x " +
                                    std::to_string(s.cluster.nodes * s.cluster.gpus_per_node) + " GPUs)");
  }
  if (const ConfigNode* dataset = w.find("dataset")) {
    s.dataset = load_dataset_spec(catalog, *dataset);
    if (!s.dataset->synthetic && !s.storage_spec && !s.filesystem_spec) {
      throw ConfigError(dataset->loc(), "dataset " + dataset->as_string() +
                                            " is read from storage: set cluster.storage (a name in configs/storage) "
                                            "or cluster.filesystem (configs/filesystems)");
    }
  }
  parse_parallelism(root, s);
  if (const ConfigNode* lengths = w.find("sequence_lengths")) {
    s.sequence_lengths = load_sequence_lengths(catalog, *lengths);
    const std::vector<std::string> takes = model_size_keys(s.workload.model);
    if (std::find(takes.begin(), takes.end(), "seq_len") == takes.end()) {
      throw ConfigError(lengths->loc(), "sequence_lengths varies the sequence length, which model '" +
                                            s.workload.model + "' does not take (no seq_len)");
    }
    const std::int64_t seq = s.workload.built.token_input_length();
    if (seq != s.sequence_lengths->max_length()) {
      throw ConfigError(lengths->loc(), "'" + lengths->as_string() + "' holds lengths up to " +
                                            std::to_string(s.sequence_lengths->max_length()) + " tokens, but the model's seq_len is " +
                                            std::to_string(seq));
    }
    if (const ConfigNode* multiple = w.find("pad_multiple"); multiple != nullptr && multiple->as_int() > seq) {
      throw ConfigError(multiple->loc(), "pad_multiple " + std::to_string(multiple->as_int()) +
                                             " is longer than the model's seq_len " + std::to_string(seq));
    }
    if (s.workload.length_bin) {
      // Every data-parallel rank draws its batch from the same bin and pads it to its own longest sample;
      // the synchronous step waits for the longest, so the step runs at the longest of dp x batch samples.
      const std::int64_t drawn = std::int64_t{s.workload.batch_per_gpu} * s.parallelism.layout.dp;
      for (const PaddedLength& p :
           binned_batch_lengths(*s.sequence_lengths, *s.workload.length_bin, drawn, s.workload.pad_multiple)) {
        ModelParams params = s.workload.params;
        params.seq_len = std::min(p.length, seq);
        try {
          s.length_mix.push_back({p, build_model(s.workload.model, params, catalog.root())});
        } catch (const std::invalid_argument& e) {  // a length the model cannot take
          throw ConfigError(lengths->loc(), "model '" + s.workload.model + "' at a padded length of " +
                                                std::to_string(params.seq_len.value_or(0)) + ": " + e.what());
        }
      }
    }
  }

  if (const ConfigNode* m = root.find("measured")) {
    s.measured = parse_measured(*m);
  }
  if (const ConfigNode* r = root.find("resilience")) {
    ResilienceJob job;
    job.nodes = s.cluster.nodes;
    job.gpus = s.cluster.gpus();
    job.node_leaf = node_leaves(s.cluster);
    job.state_bytes = checkpoint_state_bytes(s.workload);
    if (s.workload.params.seq_len) {
      job.tokens_per_step = static_cast<double>(s.global_batch()) * static_cast<double>(*s.workload.params.seq_len);
    }
    job.storage = s.storage_spec ? &*s.storage_spec : nullptr;
    job.filesystem = s.filesystem_spec ? &*s.filesystem_spec : nullptr;
    s.resilience = parse_resilience(*r, catalog, job);
  }
  if (const ConfigNode* g = root.find("stragglers")) {
    s.stragglers = parse_stragglers(*g);
    if (s.stragglers->slow_links > 0 && !s.cluster.network) {
      throw ConfigError(g->at("slow_links").loc(), "stragglers.slow_links: the cluster has no network (cluster.network)");
    }
  }
  if (const ConfigNode* mixed = root.find("mixed_nodes")) {
    // Resilience and stragglers take the step of one node type; with two they are not modelled together.
    for (const char* other : {"resilience", "stragglers"}) {
      if (root.has(other)) {
        throw ConfigError(mixed->loc(), std::string("mixed_nodes with a ") + other +
                                            ": section is not modelled (give one of them)");
      }
    }
    const ConfigNode* p = root.find("parallelism");
    s.mixed_nodes = parse_mixed_nodes(*mixed, catalog, s.cluster, s.parallelism.layout, s.workload.precision,
                                      p != nullptr ? p->find("dp") : nullptr);
  }
  return s;
}

}  // namespace hpcsim
