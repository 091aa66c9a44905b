// What layers declare of themselves (LayerTraits), which the cost models ask instead of type() names.
#include <catch2/catch.hpp>

#include "workloads/layers/additive_attention.h"
#include "workloads/layers/attention.h"
#include "workloads/layers/conv2d.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/normalization.h"
#include "workloads/layers/pooling.h"
#include "workloads/layers/recurrent.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

using namespace hpcsim;

TEST_CASE("only dense layers and attention keep fp8 under fp8 training", "[layers]") {
  const Linear dense(64);
  const Conv2d conv({.filters = 8, .kernel_h = 3, .kernel_w = 3});
  CHECK(layer_precision(dense.traits(), Precision::fp8) == Precision::fp8);
  CHECK(layer_precision(Attention({.heads = 4}).traits(), Precision::fp8) == Precision::fp8);
  CHECK(layer_precision(conv.traits(), Precision::fp8) == Precision::bf16);
  CHECK(layer_precision(conv.traits(), Precision::fp16) == Precision::fp16);
}

TEST_CASE("layers declare what they are", "[layers]") {
  CHECK(Attention({.heads = 4}).traits().self_attention);
  CHECK_FALSE(AdditiveAttention(32).traits().self_attention);
  CHECK(AdditiveAttention(32).traits().recurrent);
  CHECK(Recurrent({.cell = CellType::gru, .units = 8}).traits().recurrent);
  CHECK(Conv2d({.filters = 8, .kernel_h = 1, .kernel_w = 1}).traits().convolution);
  CHECK(CrossEntropyLoss().traits().loss);
  CHECK(Dropout(0.1).traits().eval_identity);
  CHECK(Flatten().traits().view);
  CHECK(BatchNorm().traits().batch_statistics);
  CHECK_FALSE(LayerNorm().traits().batch_statistics);
  CHECK(Activation(ActivationKind::relu).traits().in_place);
  CHECK_FALSE(Activation(ActivationKind::gelu).traits().in_place);
  CHECK(Embedding(100, 8).traits().gathers_rows);
}

TEST_CASE("a CPU forward's op class and op counts come from the layer", "[layers][inference]") {
  CHECK(Linear(8).traits().cpu_op_class == CpuOpClass::gemm);
  CHECK(Recurrent({.cell = CellType::lstm, .units = 8}).traits().cpu_op_class == CpuOpClass::gemm);
  CHECK(Conv2dTranspose({.filters = 8, .kernel_h = 2, .kernel_w = 2}).traits().cpu_op_class == CpuOpClass::conv);
  CHECK(LayerNorm().traits().cpu_op_class == CpuOpClass::streaming);
  const LayerTraits attention = Attention({.heads = 4}).traits();
  CHECK(attention.eager_ops == 20);
  CHECK(attention.compiled_ops == 7);
  CHECK(Linear(8).traits().eager_ops == 1);
}

TEST_CASE("a dense layer tied to an embedding reads the matrix it does not own", "[layers]") {
  const Shapes in{{16, 32}};
  const Linear own(100), tied(100, true, true);
  CHECK(own.weights_read(in) == own.params(in));
  CHECK(tied.params(in) == 100);  // its bias
  CHECK(tied.weights_read(in) == 100 + 32 * 100);
}
