// `hpcsim kernel --gpu NAME OP ARGS [--explain]`: the analytical kernel model's time for one deep-learning op, and
// with --explain its teaching view (analysis/kernel_explain.h), with the WarpSim twin where the op has one.
// The ops and their shapes are driver/gpu_tools.h's; this file binds them to flags.
#include <iostream>
#include <map>
#include <memory>

#include "commands.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "driver/gpu_tools.h"
#include "report/gpu_tool_report.h"
#include "report/kernel_explain.h"

namespace hpcsim::cli {

namespace {

struct KernelOptions {
  std::string gpu;
  std::string format = "table";
  std::string dtype = "bf16";
  bool explain = false;
  KernelOpShape shape;                       // the op's flags
  std::map<const CLI::App*, std::string> ops;  // each op's subcommand
};

// The op's flags as given, " --m 1000 --n 10", for a message about its shape.
std::string given_sizes(const CLI::App* op) {
  std::string out;
  for (const CLI::Option* flag : op->get_options()) {
    if (flag->count() == 0 || flag->get_expected_min() == 0) continue;  // absent, or a switch
    for (const std::string& value : flag->results()) out.append(" ").append(flag->get_name()).append(" ").append(value);
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
    for (const auto& [sub, name] : o.ops) std::cerr << " " << sub->get_name();
    std::cerr << ")\n";
    return kExitBadInput;
  }
  const CLI::App* op = kernel->get_subcommands().at(0);
  if (!kernel->remaining().empty()) {
    std::cerr << "hpcsim kernel " << op->get_name() << ": unknown argument '" << kernel->remaining().front() << "'\n";
    return kExitBadInput;
  }
  const std::string& name = o.ops.at(op);
  try {
    const std::vector<Kernel> kernels = kernel_op(name, o.shape, gpu, precision);
    std::vector<KernelExplanation> explained;
    if (o.explain) {
      const std::vector<KernelTwin> twins = kernel_op_twins(name, o.shape, gpu, precision, kernels);
      check_twin_limits(twins, SourceLoc{"--explain"}, "the WarpSim twin of " + op->get_name() + given_sizes(op));
      explained = explain_kernels(gpu, kernels, twins, kernel_ops_with_twins());
    }
    const OpTime t = estimate_op(gpu, kernels);
    std::cout << (o.format == "json" ? kernel_time_json(gpu, name, t, o.explain, explained)
                                     : kernel_time_table(gpu, name, t, o.explain, explained));
  } catch (const ToolInputError& e) {
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

CLI::App* add_op(CLI::App* kernel, KernelOptions& o, const std::string& name, const std::string& help) {
  CLI::App* sub = kernel->add_subcommand(name, help);
  sub->fallthrough();  // --gpu, --format and --dtype may follow the op's own flags
  o.ops[sub] = name;
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
  KernelOpShape& sh = o->shape;

  auto* gemm_cmd = add_op(kernel, opts, "gemm", "Dense (batched) matrix multiply C[M,N] = A[M,K] B[K,N]");
  size(gemm_cmd, "--m", sh.gemm.m, "rows of A and C");
  size(gemm_cmd, "--n", sh.gemm.n, "columns of B and C");
  size(gemm_cmd, "--k", sh.gemm.k, "columns of A, rows of B");
  size(gemm_cmd, "--batch", sh.gemm.batch, "independent products (default 1)", false);

  auto* copy_cmd = add_op(kernel, opts, "copy", "Device-to-device copy");
  copy_cmd->add_option("--bytes", sh.copy_bytes, "Bytes to copy, e.g. 4GiB")->required();

  for (const char* name : {"lstm", "gru"}) {
    auto* cmd = add_op(kernel, opts, name, std::string("One ") + name + " layer over a sequence");
    size(cmd, "--hidden", sh.recurrent.hidden, "hidden units");
    size(cmd, "--batch", sh.recurrent.batch, "sequences");
    size(cmd, "--steps", sh.recurrent.steps, "time steps");
    size(cmd, "--input", sh.recurrent.input, "input features (default: hidden)", false);
    cmd->add_flag("--train", sh.recurrent.train, "Forward plus backward (data and weights)");
  }

  auto* conv_cmd = add_op(kernel, opts, "conv", "2-D convolution as implicit GEMM");
  size(conv_cmd, "--batch", sh.conv.n, "images");
  size(conv_cmd, "--c", sh.conv.c, "input channels");
  size(conv_cmd, "--h", sh.conv.h, "input height");
  size(conv_cmd, "--w", sh.conv.w, "input width");
  size(conv_cmd, "--k", sh.conv.k, "output channels");
  size(conv_cmd, "--r", sh.conv.r, "filter height");
  size(conv_cmd, "--s", sh.conv.s, "filter width");
  size(conv_cmd, "--stride", sh.conv.stride, "stride (default 1)", false);
  conv_cmd->add_option("--pad", sh.conv.pad, "zero padding (default 0)")->check(CLI::NonNegativeNumber);
  conv_cmd->add_option("--pass", sh.conv_pass, "fprop, dgrad or wgrad")->check(CLI::IsMember({"fprop", "dgrad", "wgrad"}));

  for (const char* name : {"softmax", "layernorm"}) {
    const bool is_softmax = std::string(name) == "softmax";
    auto* cmd = add_op(kernel, opts, name, is_softmax ? "Softmax over the last dimension" : "Layer norm over the last dimension");
    size(cmd, "--rows", sh.rows, "rows");
    size(cmd, "--cols", sh.cols, "values per row");
    cmd->add_flag("--backward", sh.backward, "The backward pass");
  }

  auto* attn_cmd = add_op(kernel, opts, "attention", "Scaled dot-product attention, forward");
  size(attn_cmd, "--batch", sh.attention.batch, "sequences");
  size(attn_cmd, "--heads", sh.attention.heads, "heads");
  size(attn_cmd, "--seq", sh.attention.seq, "sequence length");
  size(attn_cmd, "--head-dim", sh.attention.head_dim, "values per head (default 64)", false);
  attn_cmd->add_flag("--causal", sh.attention.causal, "Causal mask");
  attn_cmd->add_flag("--unfused", sh.unfused, "Separate QK^T, softmax and PV kernels (default: fused)");

  auto* opt_cmd = add_op(kernel, opts, "optimizer", "One optimizer step (fp32 parameters and state)");
  size(opt_cmd, "--params", sh.optimizer.parameters, "parameters");
  size(opt_cmd, "--tensors", sh.optimizer.tensors, "parameter tensors (default 1)", false);
  opt_cmd->add_option("--kind", sh.optimizer_kind, "sgd, momentum, adam, adamw or lamb")
      ->check(CLI::IsMember(kOptimizerKindNames.names()));
  opt_cmd->add_option("--impl", sh.optimizer_impl, "unfused, foreach or fused")->check(CLI::IsMember(kOptimizerImplNames.names()));

  auto* emb_cmd = add_op(kernel, opts, "embedding", "Embedding gather (or --backward scatter-add)");
  size(emb_cmd, "--lookups", sh.embedding.lookups, "rows looked up");
  size(emb_cmd, "--dim", sh.embedding.dim, "values per row");
  size(emb_cmd, "--vocab", sh.embedding.vocab, "rows in the table");
  emb_cmd->add_flag("--backward", sh.backward, "Scatter-add the gradients");

  auto* ew_cmd = add_op(kernel, opts, "elementwise", "A chain of elementwise ops, fused or one kernel each");
  size(ew_cmd, "--elements", sh.chain.elements, "values per tensor");
  size(ew_cmd, "--ops", sh.chain.ops, "ops in the chain (default 1)", false);
  size(ew_cmd, "--inputs", sh.chain.inputs, "tensors each op reads (default 1)", false);
  ew_cmd->add_flag("--fused", sh.chain.fused, "One kernel for the whole chain");

  return [o, kernel] { return run(*o, kernel); };
}

}  // namespace hpcsim::cli
