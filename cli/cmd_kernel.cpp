// `hpcsim kernel --gpu NAME OP ARGS [--explain]`: the analytical kernel model's time for one deep-learning op, and
// with --explain its teaching view (analysis/kernel_explain.h), with the WarpSim twin where the op has one.
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/json_writer.h"
#include "configs/units.h"
#include "models/gpu/ops/attention.h"
#include "models/gpu/ops/conv.h"
#include "models/gpu/ops/elementwise.h"
#include "models/gpu/ops/embedding.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/normalization.h"
#include "models/gpu/ops/optimizer.h"
#include "models/gpu/ops/recurrent.h"
#include "report/kernel_explain.h"

namespace hpcsim::cli {

namespace {

using Builder = std::function<std::vector<Kernel>(const GpuSpec&, Precision)>;
// The WarpSim programs standing for an op's kernels (kernel_twins.h), for --explain.
using TwinBuilder = std::function<std::vector<KernelTwin>(const GpuSpec&, Precision, const std::vector<Kernel>&)>;

struct KernelOptions {
  std::string gpu;
  std::string format = "table";
  std::string dtype = "bf16";
  bool explain = false;
  std::map<const CLI::App*, Builder> builders;
  std::map<const CLI::App*, TwinBuilder> twins;
};

// copy and elementwise kernels stream their arrays: each has its twin launch for launch.
std::vector<KernelTwin> streaming_twins(const GpuSpec&, Precision, const std::vector<Kernel>& kernels) {
  std::vector<KernelTwin> twins;
  for (const Kernel& k : kernels) twins.push_back(streaming_twin(k));
  return twins;
}

// Reported as a bad flag (exit 2) rather than an internal error.
struct FlagError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

std::string number(double v) { return json::number(v, 6); }

void print(const KernelOptions& o, const std::string& op, const GpuSpec& gpu, const OpTime& t,
           const std::vector<KernelExplanation>& explained) {
  const std::vector<std::pair<std::string, std::string>> rows = {
      {"time_s", number(t.time_s)},         {"flops_per_s", number(t.flops_per_s)},
      {"bytes_per_s", number(t.bytes_per_s)}, {"bound", std::string(to_string(t.bound))},
      {"occupancy", number(t.occupancy)},    {"kernels", std::to_string(t.launches)}};
  if (o.format == "json") {
    std::cout << "{\n  \"gpu\": " << json::quote(gpu.name) << ",\n  \"op\": " << json::quote(op);
    for (const auto& [key, value] : rows) {
      const bool text = key == "bound";
      std::cout << ",\n  " << json::quote(key) << ": " << (text ? json::quote(value) : value);
    }
    if (o.explain) std::cout << ",\n  \"explain\": " << kernel_explanations_json(explained, 2);
    std::cout << "\n}\n";
    return;
  }
  std::cout << op << " on " << gpu.name << "\n";
  for (const auto& [key, value] : rows) std::cout << "  " << key << std::string(14 - key.size(), ' ') << value << "\n";
  if (o.explain) std::cout << render_kernel_explanations(gpu, explained);
}

// The ops --explain can show warp cycles for, for the message where an op has no twin.
std::string ops_with_twins(const KernelOptions& o) {
  std::set<std::string> sorted;  // by name: the map's order is the subcommands' addresses
  for (const auto& [sub, twin] : o.twins) sorted.insert(sub->get_name());
  std::string names;
  for (const std::string& name : sorted) names += (names.empty() ? "" : ", ") + name;
  return names;
}

// The op's flags as given, " --m 1000 --n 10", for a message about its shape.
std::string given_sizes(const CLI::App* op) {
  std::string out;
  for (const CLI::Option* flag : op->get_options()) {
    if (flag->count() == 0 || flag->get_expected_min() == 0) continue;  // absent, or a switch
    for (const std::string& value : flag->results()) out += " " + flag->get_name() + " " + value;
  }
  return out;
}

int run(const KernelOptions& o, const CLI::App* kernel) {
  GpuSpec gpu;
  try {
    const SpecCatalog catalog(config_root());
    gpu = gpu_from_flag(catalog, o.gpu);
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  const Precision precision = *parse_precision(o.dtype);  // the flag only admits known names
  if (!gpu.supports(precision)) {
    std::cerr << "--dtype " << o.dtype << ": GPU '" << gpu.name << "' has no " << o.dtype << " math units\n";
    return kExitBadInput;
  }
  if (kernel->get_subcommands().empty()) {
    const std::vector<std::string> extra = kernel->remaining();
    std::cerr << "hpcsim kernel: " << (extra.empty() ? "an op is required" : "unknown op '" + extra.front() + "'")
              << " (known:";
    for (const auto& [sub, builder] : o.builders) std::cerr << " " << sub->get_name();
    std::cerr << ")\n";
    return kExitBadInput;
  }
  const CLI::App* op = kernel->get_subcommands().at(0);
  if (!kernel->remaining().empty()) {
    std::cerr << "hpcsim kernel " << op->get_name() << ": unknown argument '" << kernel->remaining().front() << "'\n";
    return kExitBadInput;
  }
  try {
    const std::vector<Kernel> kernels = o.builders.at(op)(gpu, precision);
    std::vector<KernelExplanation> explained;
    if (o.explain) {
      const auto twin = o.twins.find(op);
      const std::vector<KernelTwin> twins = twin == o.twins.end() ? std::vector<KernelTwin>{}
                                                                   : twin->second(gpu, precision, kernels);
      for (const KernelTwin& t : twins) {  // WarpSim simulates the twin's blocks one by one
        if (t.available) {
          check_count(CountLimit::blocks, static_cast<double>(t.program.launch.blocks), SourceLoc{"--explain"},
                      "the WarpSim twin of " + op->get_name() + given_sizes(op));
        }
      }
      explained = explain_kernels(gpu, kernels, twins, ops_with_twins(o));
    }
    print(o, op->get_name(), gpu, estimate_op(gpu, kernels), explained);
  } catch (const FlagError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  } catch (const std::invalid_argument& e) {  // the op's shape, named by its flags
    std::cerr << "hpcsim kernel " << op->get_name() << given_sizes(op) << ": " << e.what() << "\n";
    return kExitBadInput;
  } catch (const ConfigError& e) {
    std::cerr << e.what() << "\n";
    return kExitBadInput;
  }
  return kExitOk;
}

CLI::App* add_op(CLI::App* kernel, KernelOptions& o, const std::string& name, const std::string& help, Builder b) {
  CLI::App* sub = kernel->add_subcommand(name, help);
  sub->fallthrough();  // --gpu, --format and --dtype may follow the op's own flags
  o.builders[sub] = std::move(b);
  return sub;
}

// A size flag: a positive count.
const CLI::Validator kPositive(
    [](std::string& text) -> std::string {
      try {
        if (std::stod(text) > 0) return "";
      } catch (const std::exception&) {
      }
      return "must be a positive number, got '" + text + "'";
    },
    "POSITIVE");

template <typename T>
void size(CLI::App* sub, const std::string& flag, T& value, const std::string& help, bool required = true) {
  auto* opt = sub->add_option(flag, value, help)->check(kPositive);
  if (required) opt->required();
}

}  // namespace

Action add_kernel_command(CLI::App& app) {
  auto* kernel = app.add_subcommand("kernel", "Time one GPU op with the analytical kernel model");
  auto o = std::make_shared<KernelOptions>();
  kernel->add_option("--gpu", o->gpu, "GPU spec name (see `hpcsim list gpus`)")->required();
  kernel->add_option("--format", o->format, "Output format")->check(CLI::IsMember({"table", "json"}));
  kernel->add_option("--dtype", o->dtype, "Precision of the op's tensors (default bf16)")
      ->check(CLI::IsMember(
          kPrecisionNames.names({Precision::fp32, Precision::tf32, Precision::fp16, Precision::bf16, Precision::fp8})));
  kernel->add_flag("--explain", o->explain,
                   "Explain each kernel in plain words: occupancy and its binding limit, waves, sectors and traffic, "
                   "roofline, and warp cycles from WarpSim where the op has a twin (copy, elementwise, gemm)");
  kernel->require_subcommand(0, 1);
  kernel->allow_extras();  // an unknown op is reported by the action, naming it
  KernelOptions& opts = *o;

  auto g = std::make_shared<GemmShape>();
  auto* gemm_cmd = add_op(kernel, opts, "gemm", "Dense (batched) matrix multiply C[M,N] = A[M,K] B[K,N]",
                          [g](const GpuSpec& gpu, Precision p) {
                            GemmShape s = *g;
                            s.precision = p;
                            return std::vector<Kernel>{gemm(gpu, s)};
                          });
  opts.twins[gemm_cmd] = [g](const GpuSpec& gpu, Precision p, const std::vector<Kernel>&) {
    GemmShape s = *g;
    s.precision = p;
    return std::vector<KernelTwin>{gemm_twin(gpu, s)};
  };
  size(gemm_cmd, "--m", g->m, "rows of A and C");
  size(gemm_cmd, "--n", g->n, "columns of B and C");
  size(gemm_cmd, "--k", g->k, "columns of A, rows of B");
  size(gemm_cmd, "--batch", g->batch, "independent products (default 1)", false);

  auto bytes = std::make_shared<std::string>();
  auto* copy_cmd = add_op(kernel, opts, "copy", "Device-to-device copy", [bytes](const GpuSpec&, Precision) {
    double b = 0;
    try {
      b = parse_quantity(*bytes, Dimension::bytes, "B");
    } catch (const UnitError& e) {
      throw FlagError("--bytes " + *bytes + ": " + e.what());
    }
    if (!(b >= 1)) throw FlagError("--bytes " + *bytes + ": a copy needs at least one byte");
    return copy_op(b);
  });
  copy_cmd->add_option("--bytes", *bytes, "Bytes to copy, e.g. 4GiB")->required();
  opts.twins[copy_cmd] = streaming_twins;

  auto r = std::make_shared<RecurrentShape>();
  for (const auto& [name, cell] : {std::pair{"lstm", RecurrentCell::lstm}, std::pair{"gru", RecurrentCell::gru}}) {
    auto* cmd = add_op(kernel, opts, name, std::string("One ") + name + " layer over a sequence",
                       [r, cell = cell](const GpuSpec& gpu, Precision p) {
                         RecurrentShape s = *r;
                         s.cell = cell;
                         s.precision = p;
                         return recurrent_layer(gpu, s);
                       });
    size(cmd, "--hidden", r->hidden, "hidden units");
    size(cmd, "--batch", r->batch, "sequences");
    size(cmd, "--steps", r->steps, "time steps");
    size(cmd, "--input", r->input, "input features (default: hidden)", false);
    cmd->add_flag("--train", r->train, "Forward plus backward (data and weights)");
  }

  auto c = std::make_shared<ConvShape>();
  auto pass = std::make_shared<std::string>("fprop");
  auto* conv_cmd = add_op(kernel, opts, "conv", "2-D convolution as implicit GEMM",
                          [c, pass](const GpuSpec& gpu, Precision p) {
                            ConvShape s = *c;
                            s.precision = p;
                            const ConvPass cp = *pass == "fprop"   ? ConvPass::forward
                                                : *pass == "dgrad" ? ConvPass::backward_data
                                                                   : ConvPass::backward_weight;
                            if (s.out_h() < 1 || s.out_w() < 1) {
                              throw FlagError("--r/--s: the filter is larger than the padded input");
                            }
                            return std::vector<Kernel>{conv2d(gpu, s, cp)};
                          });
  size(conv_cmd, "--batch", c->n, "images");
  size(conv_cmd, "--c", c->c, "input channels");
  size(conv_cmd, "--h", c->h, "input height");
  size(conv_cmd, "--w", c->w, "input width");
  size(conv_cmd, "--k", c->k, "output channels");
  size(conv_cmd, "--r", c->r, "filter height");
  size(conv_cmd, "--s", c->s, "filter width");
  size(conv_cmd, "--stride", c->stride, "stride (default 1)", false);
  conv_cmd->add_option("--pad", c->pad, "zero padding (default 0)")->check(CLI::NonNegativeNumber);
  conv_cmd->add_option("--pass", *pass, "fprop, dgrad or wgrad")->check(CLI::IsMember({"fprop", "dgrad", "wgrad"}));

  struct Rows {
    std::int64_t rows = 1, cols = 1;
    bool backward = false;
  };
  for (const char* name : {"softmax", "layernorm"}) {
    auto rows = std::make_shared<Rows>();
    const bool is_softmax = std::string(name) == "softmax";
    auto* cmd = add_op(kernel, opts, name, is_softmax ? "Softmax over the last dimension" : "Layer norm over the last dimension",
                       [rows, is_softmax](const GpuSpec&, Precision p) {
                         return is_softmax ? softmax(rows->rows, rows->cols, p, rows->backward)
                                           : layer_norm(rows->rows, rows->cols, p, rows->backward);
                       });
    size(cmd, "--rows", rows->rows, "rows");
    size(cmd, "--cols", rows->cols, "values per row");
    cmd->add_flag("--backward", rows->backward, "The backward pass");
  }

  auto a = std::make_shared<AttentionShape>();
  auto unfused = std::make_shared<bool>(false);
  auto* attn_cmd = add_op(kernel, opts, "attention", "Scaled dot-product attention, forward",
                          [a, unfused](const GpuSpec& gpu, Precision p) {
                            AttentionShape s = *a;
                            s.precision = p;
                            return attention(gpu, s, !*unfused);
                          });
  size(attn_cmd, "--batch", a->batch, "sequences");
  size(attn_cmd, "--heads", a->heads, "heads");
  size(attn_cmd, "--seq", a->seq, "sequence length");
  size(attn_cmd, "--head-dim", a->head_dim, "values per head (default 64)", false);
  attn_cmd->add_flag("--causal", a->causal, "Causal mask");
  attn_cmd->add_flag("--unfused", *unfused, "Separate QK^T, softmax and PV kernels (default: fused)");

  auto opt = std::make_shared<OptimizerStep>();
  auto kind = std::make_shared<std::string>("adamw");
  auto impl = std::make_shared<std::string>("fused");
  auto* opt_cmd = add_op(kernel, opts, "optimizer", "One optimizer step (fp32 parameters and state)",
                         [opt, kind, impl](const GpuSpec&, Precision) {
                           OptimizerStep s = *opt;
                           s.kind = *kOptimizerKindNames.parse(*kind);  // flags checked against the tables
                           s.impl = *kOptimizerImplNames.parse(*impl);
                           if (s.tensors > s.parameters) throw FlagError("--tensors: more tensors than --params");
                           return optimizer_step(s);
                         });
  size(opt_cmd, "--params", opt->parameters, "parameters");
  size(opt_cmd, "--tensors", opt->tensors, "parameter tensors (default 1)", false);
  opt_cmd->add_option("--kind", *kind, "sgd, momentum, adam, adamw or lamb")
      ->check(CLI::IsMember(kOptimizerKindNames.names()));
  opt_cmd->add_option("--impl", *impl, "unfused, foreach or fused")->check(CLI::IsMember(kOptimizerImplNames.names()));

  auto e = std::make_shared<EmbeddingShape>();
  auto scatter = std::make_shared<bool>(false);
  auto* emb_cmd = add_op(kernel, opts, "embedding", "Embedding gather (or --backward scatter-add)",
                         [e, scatter](const GpuSpec&, Precision p) {
                           EmbeddingShape s = *e;
                           s.precision = p;
                           return *scatter ? embedding_scatter_add(s) : embedding_gather(s);
                         });
  size(emb_cmd, "--lookups", e->lookups, "rows looked up");
  size(emb_cmd, "--dim", e->dim, "values per row");
  size(emb_cmd, "--vocab", e->vocab, "rows in the table");
  emb_cmd->add_flag("--backward", *scatter, "Scatter-add the gradients");

  auto chain = std::make_shared<ElementwiseChain>();
  auto* ew_cmd = add_op(kernel, opts, "elementwise", "A chain of elementwise ops, fused or one kernel each",
                        [chain](const GpuSpec&, Precision p) {
                          ElementwiseChain s = *chain;
                          s.precision = p;
                          return elementwise_chain(s);
                        });
  size(ew_cmd, "--elements", chain->elements, "values per tensor");
  size(ew_cmd, "--ops", chain->ops, "ops in the chain (default 1)", false);
  size(ew_cmd, "--inputs", chain->inputs, "tensors each op reads (default 1)", false);
  ew_cmd->add_flag("--fused", chain->fused, "One kernel for the whole chain");
  opts.twins[ew_cmd] = streaming_twins;

  return [o, kernel] { return run(*o, kernel); };
}

}  // namespace hpcsim::cli
