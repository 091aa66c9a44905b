#include "workloads/layers/recurrent.h"

#include "layer_support.h"
#include "models/gpu/ops/gemm.h"
#include "models/gpu/ops/recurrent.h"

namespace hpcsim {

using namespace layer_support;

namespace {

std::int64_t gate_count(CellType cell) { return cell == CellType::lstm ? 4 : cell == CellType::gru ? 3 : 1; }

// Biases per gate: Keras keeps one; a GRU with reset_after (the cuDNN form) keeps an input and a
// recurrent bias.
std::int64_t biases_per_gate(CellType cell) { return cell == CellType::gru ? 2 : 1; }

// Values per unit and step kept for backward: the gate activations plus the states (h, and c for LSTM).
double saved_per_unit(CellType cell) { return cell == CellType::lstm ? 6 : cell == CellType::gru ? 4 : 1; }

Kernel named(Kernel k, const std::string& what, std::int64_t count = 1) {
  k.name = what + "_" + k.name;
  k.count = count;
  return k;
}

// A SimpleRNN layer has no cuDNN op of its own here: the LSTM schedule with one tanh gate.
std::vector<Kernel> simple_rnn(const GpuSpec& gpu, std::int64_t units, std::int64_t input, std::int64_t batch,
                               std::int64_t steps, Precision p) {
  const std::int64_t rows = batch * steps;
  const double cells = static_cast<double>(batch * units);
  return {named(gemm(gpu, {rows, units, input, 1, p}), "input_projection"),
          named(gemm(gpu, {batch, units, units, 1, p}), "recurrent", steps),
          named(pointwise("tanh", cells, 10, 2, 1, p), "pointwise", steps),
          named(pointwise("tanh_backward", cells, 3, 2, 1, p), "pointwise_backward", steps),
          named(gemm(gpu, {batch, units, units, 1, p}), "recurrent_backward_data", steps),
          named(gemm(gpu, {units, units, rows, 1, p}), "recurrent_backward_weight"),
          named(gemm(gpu, {input, units, rows, 1, p}), "input_backward_weight"),
          named(gemm(gpu, {rows, input, units, 1, p}), "input_backward_data")};
}

// One LSTM layer as TensorFlow's LSTMCell runs it inside a while loop (RecurrentConfig::stepwise). Per
// step, forward (tensorflow/python/ops/rnn_cell_impl.py, LSTMCell.call): concat([x, h]), matmul, bias_add,
// split, the forget-bias add, 3 sigmoids, 2 tanh, 3 multiplies and an add: one GEMM and 13 elementwise
// kernels over the batch's cells; the DropoutWrapper on the input (random_uniform, add, floor, multiply:
// 4) and automatic mixed precision's casts of the matmul's activation input and output (2). Under mixed
// precision the fp32 kernel is cast to fp16 in every iteration too (the cast sits inside the loop body).
// Backward per step: two gradient kernels per forward elementwise op, d[x, h] = dgates W^T,
// dW = [x, h]^T dgates and its fp32 accumulation into the loop's gradient accumulator
// (control_flow_ops.py, WhileContext.AddBackpropAccumulator).
std::vector<Kernel> stepwise_lstm(const GpuSpec& gpu, std::int64_t units, std::int64_t input, std::int64_t batch,
                                  std::int64_t steps, Precision p) {
  const std::int64_t gates = 4 * units, xh = input + units;
  const double cells = static_cast<double>(batch * units);
  constexpr int kForwardOps = 13 + 4 + 2;
  constexpr int kBackwardOps = 2 * kForwardOps;
  std::vector<Kernel> out = {
      named(gemm(gpu, {batch, gates, xh, 1, p}), "cell_matmul", steps),
      named(pointwise("cell_op", cells, 1, 2, 1, p), "cell_pointwise", steps * kForwardOps),
      named(pointwise("cell_op_grad", cells, 1, 2, 1, p), "cell_pointwise_backward", steps * kBackwardOps),
      named(gemm(gpu, {batch, xh, gates, 1, p}), "cell_matmul_backward_data", steps),
      named(gemm(gpu, {xh, gates, batch, 1, p}), "cell_matmul_backward_weight", steps),
      named(pointwise("dw_accumulate", static_cast<double>(xh * gates), 1, 2, 1, Precision::fp32),
            "cell_accumulate_backward_weight", steps)};
  if (bytes_per_element(p) < 4) {
    out.push_back(named(pointwise("kernel_cast", static_cast<double>(xh * gates), 0, 1, 1, p), "cell_cast", steps));
  }
  return out;
}

void sort_into(LayerKernels& out, const std::vector<Kernel>& kernels, std::int64_t directions) {
  for (Kernel k : kernels) {
    k.count *= directions;
    if (k.name.find("backward_weight") != std::string::npos) {
      out.backward_weight.push_back(k);
    } else if (k.name.find("backward") != std::string::npos) {
      out.backward_data.push_back(k);
    } else {
      out.forward.push_back(k);
    }
  }
}

}  // namespace

Recurrent::Recurrent(RecurrentConfig config) : c_(config) {
  if (c_.units < 1 || c_.layers < 1) throw std::invalid_argument("recurrent: units and layers must be >= 1");
  if (c_.stepwise && c_.cell != CellType::lstm) throw std::invalid_argument("recurrent: stepwise cells are LSTM only");
}

std::string Recurrent::type() const {
  return c_.cell == CellType::lstm ? "lstm" : c_.cell == CellType::gru ? "gru" : "simple_rnn";
}

// LSTM and GRU cells run their gate GEMMs on CPUs as GEMMs; a simple RNN's small cell as streaming ops.
LayerTraits Recurrent::traits() const {
  return {.recurrent = true, .cpu_op_class = c_.cell == CellType::simple ? CpuOpClass::streaming : CpuOpClass::gemm};
}

std::int64_t Recurrent::layer_input(const Shape& in, int layer) const {
  return layer == 0 ? in[1] : c_.units * (c_.bidirectional ? 2 : 1);
}

Shape Recurrent::output_shape(const Shapes& in) const {
  const Shape& x = single_input(in, 2, "a sequence [steps, features]");
  const std::int64_t width = c_.units * (c_.bidirectional ? 2 : 1);
  return c_.return_sequences ? Shape{x[0], width} : Shape{width};
}

std::int64_t Recurrent::params(const Shapes& in) const {
  output_shape(in);
  const std::int64_t g = gate_count(c_.cell), u = c_.units, dirs = c_.bidirectional ? 2 : 1;
  std::int64_t total = 0;
  for (int l = 0; l < c_.layers; ++l) {
    total += capped_product({dirs, g, u, layer_input(in[0], l) + u}) + capped_product({dirs, g, biases_per_gate(c_.cell), u});
  }
  return total;
}

double Recurrent::forward_flops(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const double g = static_cast<double>(gate_count(c_.cell)), u = static_cast<double>(c_.units);
  const double rows = static_cast<double>(in[0][0] * run.batch), dirs = c_.bidirectional ? 2 : 1;
  double total = 0;
  for (int l = 0; l < c_.layers; ++l) {
    // Input and recurrent products, then about ten elementwise operations per gate value.
    total += dirs * rows * g * u * (2.0 * static_cast<double>(layer_input(in[0], l) + c_.units) + 10);
  }
  return total;
}

double Recurrent::activation_bytes(const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const double rows = static_cast<double>(in[0][0] * run.batch), dirs = c_.bidirectional ? 2 : 1;
  double values = 0;
  for (int l = 0; l < c_.layers; ++l) {
    values += rows * static_cast<double>(layer_input(in[0], l)) +
              dirs * rows * saved_per_unit(c_.cell) * static_cast<double>(c_.units);
  }
  return values * value_bytes(run.precision);
}

LayerKernels Recurrent::kernels(const GpuSpec& gpu, const Shapes& in, const LayerRun& run) const {
  output_shape(in);
  const std::int64_t steps = in[0][0], dirs = c_.bidirectional ? 2 : 1;
  LayerKernels out;
  for (int l = 0; l < c_.layers; ++l) {
    const std::int64_t input = layer_input(in[0], l);
    if (c_.stepwise) {
      sort_into(out, stepwise_lstm(gpu, c_.units, input, run.batch, steps, run.precision), dirs);
    } else if (c_.cell == CellType::simple) {
      sort_into(out, simple_rnn(gpu, c_.units, input, run.batch, steps, run.precision), dirs);
    } else {
      const RecurrentShape s{c_.cell == CellType::lstm ? RecurrentCell::lstm : RecurrentCell::gru,
                             c_.units, run.batch, steps, input, run.precision, true};
      sort_into(out, recurrent_layer(gpu, s), dirs);
    }
  }
  return out;
}

}  // namespace hpcsim
