// CPU inference: each layer's forward as ops timed on the worker's cores (models/cpu/cpu_op_time.h), plus
// the framework's host dispatch per op, which is what makes eager PyTorch slow at small batches.
#include "forward_pass.h"

#include "models/cpu/cpu_op_time.h"

namespace hpcsim::inference_detail {

namespace {

// A frozen inference graph (torch.jit.freeze, Inductor's freezing, IPEX, oneDNN graph) folds an eval-mode
// batch norm into the preceding convolution's weights and bias: it runs no op and moves no bytes. Eager
// PyTorch runs it as an op of its own, and so does Inductor without freezing (its default: the batch norm
// becomes a generated pointwise kernel, with the ReLU after it fused in). (In the zoo's CNNs every
// batch_norm follows a convolution.)
bool folds_into_producer(const LayerTraits& traits, bool frozen) { return frozen && traits.batch_statistics; }

// Framework ops one layer is: its own count eager; compiled, views and eval identities cost nothing and
// elementwise layers fuse into their producer's kernel.
int ops_of(const LayerTraits& traits, bool compiled, bool frozen) {
  if (!compiled) return traits.eager_ops;
  if (folds_into_producer(traits, frozen) || traits.view || traits.eval_identity || traits.elementwise_forward) return 0;
  return traits.compiled_ops;
}

}  // namespace

double cpu_forward_s(const InferenceSetup& setup, int batch) {
  const CpuSpec& cpu = setup.node.cpu;
  const CpuWorker worker = cpu_worker(cpu, setup.threads, setup.workers);
  const ExecutionMode& mode = setup.framework.mode(setup.compile);
  const bool compiled = setup.compiled();
  // Tensors between ops: int8 under int8 inference; fp32 otherwise (Arm's bf16 fast math converts inside
  // the GEMM and keeps fp32 tensors and weights).
  const double value_bytes = setup.precision == Precision::int8 ? 1.0 : 4.0;
  const double weight_bytes = setup.precision == Precision::int8 ? 1.0 : 4.0;
  // Fast math on weights that are not frozen (eager, or compiled without freezing: the graph takes them as
  // inputs) hands the library fp32 weights on every call: it reorders them into its blocked bf16 layout
  // (read fp32, write bf16) each time. Frozen weights are packed once, at load.
  const bool reorders_weights = setup.precision == Precision::bf16 && !setup.frozen;
  // Otherwise such a call hands the BLAS a plain weight matrix, which it packs into its blocked panels before
  // computing (Goto and van de Geijn, "Anatomy of high-performance matrix multiplication", ACM TOMS 2008:
  // the packed copy of B is made on every call; oneMKL's cblas_?gemm_pack exists to make it once). The pack
  // reads the weights from memory ahead of the math instead of under it.
  // A BLAS called per op packs them on every call even in a frozen graph (cblas_?gemm keeps no packed copy).
  const bool packs_weights_per_call =
      (!setup.frozen || cpu.math.library.packs_weights_every_call) && !reorders_weights;
  const LayerRun run{batch, setup.precision, 1, true, false, true, !compiled};
  double total = 0;
  for (const Network& net : setup.model.networks) {
    for (const LayerNode& n : net.nodes()) {
      if (!n.layer) continue;
      const LayerTraits traits = n.layer->traits();
      if (traits.loss) continue;
      total += ops_of(traits, compiled, setup.frozen) * mode.forward_dispatch_s;
      if (traits.eval_identity || traits.view) continue;
      if (compiled && traits.elementwise_forward) continue;  // fused into its producer
      if (folds_into_producer(traits, setup.frozen)) continue;
      CpuOp op;
      op.op_class = traits.cpu_op_class;
      op.math = op.op_class == CpuOpClass::streaming ? Precision::fp32 : setup.precision;
      op.flops = n.layer->forward_flops(n.input_shapes, run);
      const double out = static_cast<double>(elements(n.output)) * batch;
      op.output_elements = out;
      double inputs = 0;
      for (const Shape& s : n.input_shapes) inputs += static_cast<double>(elements(s)) * batch;
      const double params = static_cast<double>(n.layer->weights_read(n.input_shapes));
      if (traits.gathers_rows) {
        op.bytes = 2 * out * value_bytes;  // gathers rows: reads and writes what it outputs
      } else {
        // The op's input was the last op's output: while both fit the worker's caches they never reach
        // memory. Weights do (every request reads them all; they outlive no cache across the model).
        const double activations = (inputs + out) * value_bytes;
        (activations <= worker.cache_bytes ? op.cached_bytes : op.bytes) = activations;
        const bool packed = packs_weights_per_call && op.op_class != CpuOpClass::streaming;
        (packed ? op.packed_bytes : op.bytes) += params * weight_bytes;
      }
      total += cpu_op_time_s(cpu, op, worker);
      if (reorders_weights && op.op_class != CpuOpClass::streaming && params > 0) {
        if (cpu.math.library.weight_reorder_s > 0) {
          total += params * cpu.math.library.weight_reorder_s;
        } else {
          const CpuOp reorder{CpuOpClass::streaming, Precision::fp32, 0, params * (4.0 + 2.0), params};
          total += cpu_op_time_s(cpu, reorder, worker);
        }
      }
    }
  }
  return total;
}

}  // namespace hpcsim::inference_detail
