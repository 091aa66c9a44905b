// The inference cost model: threads, per-op overheads, frameworks, memory limits and bad input.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/loader.h"
#include "models/cpu/cpu_op_time.h"
#include "workloads/inference/batch_latency.h"
#include "workloads/inference/offline_prediction.h"

using namespace hpcsim;

namespace {

InferenceSetup setup_of(const std::string& text) {
  return parse_inference_setup(parse_config_text(text, "serve.yaml"), SpecCatalog(HPCSIM_SOURCE_CONFIG_DIR));
}

// The message of the ConfigError a scenario raises, or "no error".
std::string error_of(const std::string& text) {
  try {
    setup_of(text);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

std::string roberta_c7g(const std::string& workload_extra) {
  return "kind: serve\ncluster: {node: c7g-4xlarge}\nworkload: {model: roberta-base, precision: bf16, seq_len: 128" +
         workload_extra + "}\n";
}

}  // namespace

TEST_CASE("CPU ops: small streaming ops use fewer threads: GEMMs use all, paying the fork/join", "[inference]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const NodeSpec node = parse_node_spec(catalog.load("nodes", ConfigNode::make_scalar("c7g-4xlarge", {}), "node"),
                                        "c7g-4xlarge", catalog);
  const CpuWorker w16 = cpu_worker(node.cpu, 16, 1), w1 = cpu_worker(node.cpu, 1, 1);
  const CpuOp small{CpuOpClass::streaming, Precision::fp32, 0, 4.0 * 1000, 1000};
  CHECK(cpu_op_threads(node.cpu, small, w16) == 1);
  CHECK(cpu_op_time_s(node.cpu, small, w16) == Approx(cpu_op_time_s(node.cpu, small, w1)));
  const CpuOp gemm{CpuOpClass::gemm, Precision::bf16, 2.0 * 1024 * 1024 * 1024, 3.0 * 1024 * 1024 * 4, 1024 * 1024};
  const double t16 = cpu_op_time_s(node.cpu, gemm, w16), t1 = cpu_op_time_s(node.cpu, gemm, w1);
  CHECK(t1 / t16 > 10);   // 16 cores, less the fork/join
  CHECK(t1 / t16 < 16);
  CHECK_THROWS_AS(cpu_worker(node.cpu, 16, 2), std::invalid_argument);  // 32 threads on 16 cores, no SMT
}

TEST_CASE("CPU ops: tensors that fit the worker's caches stay there between ops", "[inference]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const NodeSpec node = parse_node_spec(catalog.load("nodes", ConfigNode::make_scalar("xeon-8480p-2s", {}), "node"),
                                        "xeon-8480p-2s", catalog);
  // The workers split the last-level caches: 56 workers of 2 threads hold 2 x 2 MiB of L2 and 1/28 of a
  // socket's 105 MiB each; one worker on every core holds all of both sockets' caches.
  const CpuWorker many = cpu_worker(node.cpu, 2, 56), one = cpu_worker(node.cpu, 112, 1);
  CHECK(many.cache_bytes == Approx(2 * node.cpu.math.l2_per_core + node.cpu.math.llc * 2 / 56));
  CHECK(one.cache_bytes > 2 * node.cpu.math.llc);
  // A streaming op over 8 MiB: from the caches at the cores' L2 bandwidth, faster than from memory.
  CpuOp from_memory{CpuOpClass::streaming, Precision::fp32, 0, 8.0 * (1 << 20), 1 << 20};
  CpuOp from_cache = from_memory;
  std::swap(from_cache.bytes, from_cache.cached_bytes);
  CHECK(cpu_op_time_s(node.cpu, from_cache, many) < cpu_op_time_s(node.cpu, from_memory, many) / 2);
  // A spec without l2_bandwidth_per_core models no reuse: its workers hold no cache.
  NodeSpec plain = node;
  plain.cpu.math.l2_bandwidth_per_core = 0;
  CHECK(cpu_worker(plain.cpu, 2, 56).cache_bytes == 0);
  CHECK_THROWS_AS(cpu_op_time_s(plain.cpu, from_cache, many), std::invalid_argument);
}

TEST_CASE("CPU ops: a BLAS packs its operand before the math, not under it", "[inference]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const NodeSpec node = parse_node_spec(catalog.load("nodes", ConfigNode::make_scalar("c6i-2xlarge", {}), "node"),
                                        "c6i-2xlarge", catalog);
  const CpuWorker w = cpu_worker(node.cpu, 4, 1);
  // A math-bound GEMM: 100 MB streamed under its math costs nothing more; packed first, it adds its time.
  const CpuOp math_only{CpuOpClass::gemm, Precision::fp32, 1e11, 0, 1e6};
  CpuOp streamed = math_only;
  streamed.bytes = 1e8;
  CpuOp packed = math_only;
  packed.packed_bytes = 1e8;
  const double bandwidth = 4 * node.cpu.math.memory_bandwidth_per_core * node.cpu.math.library.memory;
  CHECK(cpu_op_time_s(node.cpu, streamed, w) == Approx(cpu_op_time_s(node.cpu, math_only, w)));
  CHECK(cpu_op_time_s(node.cpu, packed, w) - cpu_op_time_s(node.cpu, math_only, w) == Approx(1e8 / bandwidth));
}

TEST_CASE("CPU inference: weights not frozen are packed on every call, frozen ones once", "[inference]") {
  // RoBERTa-base at seq 128 on 16 Graviton3 cores: its GEMMs are math-bound, so halving the memory bandwidth
  // costs the frozen graph little, and eager or compiled-unfrozen runs one more pass over its 85.6M GEMM
  // weights (fp32).
  const std::string base = "kind: serve\ncluster: {node: c7g-4xlarge}\nworkload: {model: roberta-base, precision: fp32, "
                           "seq_len: 128, threads: 16";
  for (const std::string extra : {"", ", compile: true", ", compile: true, freeze: true"}) {
    const InferenceSetup s = setup_of(base + extra + "}\n");
    InferenceSetup halved = s;
    halved.node.cpu.math.memory_bandwidth_per_core /= 2;
    const double added = batch_latency_s(halved, 1) - batch_latency_s(s, 1);
    // One pass at a worker's bandwidth (16 cores' share, at most the socket's) and the library's fraction.
    const auto one_pass = [](const InferenceSetup& at) {
      return 85.6e6 * 4 / (cpu_worker(at.node.cpu, 16, 1).memory_bandwidth * at.node.cpu.math.library.memory);
    };
    INFO(extra);
    CHECK(s.frozen == (extra.find("freeze") != std::string::npos));
    if (s.frozen) {
      CHECK(added < 0.1 * one_pass(s));
    } else {
      // (and a little more: the streaming ops that go to memory slow down too)
      CHECK(added > one_pass(halved) - one_pass(s));
      CHECK(added < 1.1 * (one_pass(halved) - one_pass(s)));
    }
  }
}

TEST_CASE("CPU inference: a frozen graph folds batch norms and packs fast-math weights once", "[inference]") {
  // ResNet-50 in bf16 fast math on 16 Graviton3 cores under torch.compile: without freezing (Inductor's
  // default) every call reorders the 25.5M weights (0.71 ns each on c7g) and runs each batch norm as a pass
  // of its own; frozen, neither.
  const std::string base = "cluster: {node: c7g-4xlarge}\nworkload: {model: resnet50, precision: bf16, compile: true";
  const InferenceSetup unfrozen = setup_of(base + "}\n");
  const InferenceSetup frozen = setup_of(base + ", freeze: true}\n");
  CHECK(batch_latency_s(unfrozen, 1) - batch_latency_s(frozen, 1) > 25.5e6 * 0.71e-9);
  InferenceSetup no_reorder_cost = unfrozen;
  no_reorder_cost.node.cpu.math.library.weight_reorder_s = 1e-15;
  CHECK(batch_latency_s(no_reorder_cost, 32) > batch_latency_s(frozen, 32));  // the batch norms' passes
  // Runtimes whose weights are always constants are frozen without the key.
  CHECK(setup_of("cluster: {node: g4dn-xlarge}\nworkload: {model: resnet50, precision: fp16, framework: tensorrt}\n")
            .frozen);
  CHECK(setup_of("cluster: {node: m7g-2xlarge}\nworkload: {model: bert-base, precision: fp32, framework: onnxruntime}\n")
            .frozen);
}

TEST_CASE("CPU inference: a small batch's activations stay in cache, a large batch's go to memory", "[inference]") {
  // ResNet-50 int8 on Sapphire Rapids as MLPerf's server runs it (56 workers x 2 threads): with the cache
  // model, batch 4 costs less per image than batch 64, whose activations no longer fit the worker's share.
  const InferenceSetup spr = setup_of(
      "cluster: {node: xeon-8480p-2s}\nworkload: {model: resnet50, precision: int8, compile: true, threads: 2}\n"
      "serving: {workers: 56}\n");
  CHECK(batch_latency_s(spr, 4) / 4 < batch_latency_s(spr, 64) / 64);
}

TEST_CASE("CPU inference: threads, compile and batch change the answer", "[inference]") {
  const InferenceSetup eager = setup_of(roberta_c7g(", threads: 16"));
  const InferenceSetup compiled = setup_of(roberta_c7g(", threads: 16, compile: true"));
  const InferenceSetup four = setup_of(roberta_c7g(", threads: 4"));
  const InferenceSetup old = setup_of(roberta_c7g(", threads: 16, framework: pytorch1"));
  CHECK(batch_latency_s(compiled, 1) < batch_latency_s(eager, 1));  // fewer ops, no per-call weight reorder
  CHECK(batch_latency_s(four, 1) > batch_latency_s(eager, 1));
  // Eager fast math's weight reorder (c7g's weight_reorder: the measured reference reorder) costs the same
  // per weight on any thread count: one more ns per weight adds one ns per GEMM weight (RoBERTa-base's
  // encoder and pooler, 85.6M; the embeddings are gathers) at 4 threads as at 16.
  for (const InferenceSetup* s : {&eager, &four}) {
    InferenceSetup slower = *s;
    slower.node.cpu.math.library.weight_reorder_s += 1e-9;
    CHECK(batch_latency_s(slower, 1) - batch_latency_s(*s, 1) == Approx(85.6e6 * 1e-9).epsilon(0.01));
  }
  CHECK(batch_latency_s(old, 1) == Approx(batch_latency_s(eager, 1)));  // same eager dispatch cost
  // Batching amortizes the weights and the per-op costs: throughput grows with the batch (a little at seq
  // 128, where batch 1 is already bound by the math units).
  CHECK(8 / batch_latency_s(eager, 8) > 1 / batch_latency_s(eager, 1));
}

TEST_CASE("CPU inference: a masked-LM decoder tied to the embedding still reads and reorders its matrix", "[inference]") {
  // torchbench's hf_Bert on Graviton3 in eager fast math: one more ns per weight adds the encoder's 85.0M, the
  // head's transform 0.59M and the tied 768 x 30,522 decoder's 23.4M GEMM weights (and their 0.11M biases,
  // which the model charges with them).
  const InferenceSetup mlm = setup_of(
      "kind: serve\ncluster: {node: c7g-4xlarge}\nworkload: {model: bert-base-mlm, precision: bf16, threads: 16, "
      "seq_len: 512}\n");
  InferenceSetup slower = mlm;
  slower.node.cpu.math.library.weight_reorder_s += 1e-9;
  const double weights = 12 * (4 * 768.0 * 768 + 2 * 768.0 * 3072) + 768.0 * 768 + 768.0 * 30522;
  const double biases = 12 * (4 * 768.0 + 3072 + 768) + 768 + 30522;
  CHECK(batch_latency_s(slower, 1) - batch_latency_s(mlm, 1) == Approx((weights + biases) * 1e-9).epsilon(1e-6));
}

TEST_CASE("GPU inference: fused runtime beats eager at batch 1: memory bounds the batch", "[inference]") {
  const std::string base = "cluster: {node: g4dn-xlarge}\nworkload: {model: resnet50, precision: fp16, framework: ";
  const InferenceSetup eager = setup_of(base + "pytorch}\n");
  const InferenceSetup trt = setup_of(base + "tensorrt}\n");
  CHECK(batch_latency_s(trt, 1) < batch_latency_s(eager, 1));
  const int most = max_batch_in_memory(eager);
  CHECK(most > 64);
  CHECK_THROWS_AS(batch_latency_s(eager, most + 1), std::invalid_argument);
  CHECK_THROWS_AS(batch_latency_s(eager, 0), std::invalid_argument);
  const OfflineResult offline = offline_throughput(eager, 64, 64, 2);
  CHECK(offline.throughput_rps > 2 / batch_latency_s(eager, 1));
}

TEST_CASE("inference: an eager forward pass pays the framework's per-op cost from Python", "[inference]") {
  // Batch 1 on a GPU and on CPU cores: every op costs forward_dispatch, not the training step's average.
  for (const std::string node : {"g5-2xlarge", "c7g-4xlarge"}) {
    const InferenceSetup s = setup_of("cluster: {node: " + node + "}\nworkload: {model: roberta-base, precision: " +
                                      (node == "g5-2xlarge" ? "fp16" : "fp32") + ", seq_len: 128}\n");
    CHECK(s.framework.eager.forward_dispatch_s > s.framework.eager.dispatch_s);
    InferenceSetup averaged = s;
    averaged.framework.eager.forward_dispatch_s = s.framework.eager.dispatch_s;
    CHECK(batch_latency_s(averaged, 1) < batch_latency_s(s, 1));
  }
}

TEST_CASE("inference setup: bad input is a ConfigError at its key", "[inference]") {
  CHECK(error_of("cluster: {node: c7g-4xlarge}\nworkload: {model: resnet50, precision: fp32, freeze: true}\n")
            .find("serve.yaml:2:54: freeze: true freezes a compiled graph") != std::string::npos);
  CHECK(error_of("cluster: {node: c7g-4xlarge}\nworkload: {model: resnet50, precision: fp16}\n")
            .find("serve.yaml:2:") != std::string::npos);  // Graviton3 has no fp16 units
  CHECK(error_of("cluster: {node: c7g-4xlarge}\nworkload: {model: resnet50, precision: fp32, threads: 64}\n")
            .find("hardware threads") != std::string::npos);
  CHECK(error_of("cluster: {node: c7g-4xlarge}\nworkload: {model: resnet50, precision: fp32, batch: 4}\n")
            .find("serve.yaml:2:") != std::string::npos);  // unknown key
  CHECK(error_of("cluster: {node: cpu-2s-generic}\nworkload: {model: resnet50, precision: fp32}\n")
            .find("cpu.math") != std::string::npos);
  CHECK(error_of("cluster: {node: g4dn-xlarge}\nworkload: {model: resnet50, precision: fp16}\nparallelism: {tp: 2}\n")
            .find("serve.yaml:3:") != std::string::npos);
}

TEST_CASE("GPU inference: a framework that packs sequences runs a batch on its requests' real lengths", "[inference]") {
  // MLPerf's BERT on an H100 with TensorRT's variable-length kernels: SQuAD v1.1 features average 172 of
  // their 384 tokens, so a packed batch costs what a batch of 172-token requests costs.
  const std::string base = "cluster: {node: dgx-h100}\nworkload: {model: bert-large, precision: int8, framework: tensorrt, ";
  const InferenceSetup packed = setup_of(base + "seq_len: 384, sequence_lengths: squad-v1.1-bert-384}\n");
  const InferenceSetup mean = setup_of(base + "seq_len: 172}\n");
  const InferenceSetup padded = setup_of(base + "seq_len: 384}\n");
  CHECK(packed.mean_tokens == Approx(15249479.0 / 88641));
  CHECK(batch_latency_s(packed, 256) == Approx(batch_latency_s(mean, 256)));
  CHECK(batch_latency_s(packed, 256) < 0.6 * batch_latency_s(padded, 256));

  // A framework that pads, a seq_len other than the distribution's longest, an unknown distribution.
  CHECK(error_of("cluster: {node: dgx-h100}\nworkload: {model: bert-large, precision: fp16, seq_len: 384,\n"
                 "  sequence_lengths: squad-v1.1-bert-384}\n")
            .find("serve.yaml:3:") != std::string::npos);
  CHECK(error_of(base + "seq_len: 512, sequence_lengths: squad-v1.1-bert-384}\n").find("384") != std::string::npos);
  CHECK(error_of(base + "seq_len: 384, sequence_lengths: squad}\n").find("squad-v1.1-bert-384") != std::string::npos);
}

TEST_CASE("inference setup: a priced node gives the replica's price", "[inference]") {
  const InferenceSetup h100 = setup_of("cluster: {node: dgx-h100}\nworkload: {model: resnet50, precision: fp16}\n");
  REQUIRE(replica_price_per_hour(h100).has_value());
  CHECK(*replica_price_per_hour(h100) > 0);
}

TEST_CASE("GPU inference: inputs arriving in host memory are copied over PCIe before each batch", "[inference]") {
  const InferenceSetup local = setup_of("cluster: {node: dgx-a100-80gb}\nworkload: {model: resnet50, precision: fp16, "
                                        "framework: tensorrt}\n");
  InferenceSetup remote = local;
  remote.host_input_bytes = 602112;  // one fp32 224x224x3 image
  const double extra1 = batch_latency_s(remote, 1) - batch_latency_s(local, 1);
  const double extra64 = batch_latency_s(remote, 64) - batch_latency_s(local, 64);
  // PCIe 4 x16 carries ~25-30 GB/s of payload: 20-25 us per image, linear in the batch.
  CHECK(extra1 > 15e-6);
  CHECK(extra1 < 40e-6);
  CHECK(extra64 == Approx(64 * extra1).epsilon(1e-9));
  // A front end's receive buffers are not page-locked: the copy runs at its compute-input rate when that is
  // the slower, and never faster than the link.
  InferenceSetup staged = remote;
  staged.host_input_bandwidth = 6e9;
  CHECK(batch_latency_s(staged, 64) - batch_latency_s(local, 64) == Approx(64 * 602112 / 6e9).epsilon(1e-9));
  staged.host_input_bandwidth = 1e12;
  CHECK(batch_latency_s(staged, 64) == batch_latency_s(remote, 64));
  // A CPU replica computes where the request lands: no copy.
  const InferenceSetup cpu = setup_of("cluster: {node: c7g-4xlarge}\nworkload: {model: resnet50, precision: fp32}\n");
  InferenceSetup cpu_remote = cpu;
  cpu_remote.host_input_bytes = 602112;
  CHECK(batch_latency_s(cpu_remote, 4) == batch_latency_s(cpu, 4));
}

TEST_CASE("CPU inference: eager attention is HuggingFace's 20 calls, compiled 7", "[inference]") {
  // RoBERTa-base: one more us per framework call adds one us per call. Eager, per layer, attention's 20 and
  // the block's dropout, add, norm, fc1, gelu, fc2, dropout, add and norm; around the layers the embeddings
  // (token, segment, sum, position, norm, dropout) and the pooler (first token, dense, tanh). Compiled,
  // attention's 7, the two norms, fc1 and fc2 (dropouts vanish, adds and activations fuse into their
  // producers); the token and segment gathers, the embedding norm and the pooler's dense.
  for (const bool compile : {false, true}) {
    const InferenceSetup s = setup_of(roberta_c7g(compile ? ", compile: true" : ""));
    InferenceSetup slower = s;
    ExecutionMode& mode = compile ? slower.framework.compiled : slower.framework.eager;
    mode.forward_dispatch_s += 1e-6;
    const double calls = (batch_latency_s(slower, 1) - batch_latency_s(s, 1)) / 1e-6;
    CHECK(calls == Approx(compile ? 12 * (7 + 4) + 4 : 12 * (20 + 9) + 6 + 3).margin(0.01));
  }
}

TEST_CASE("CPU ops: GEMMs and convolutions run at the vector (licence) clock, streaming ops at cpu.clock",
          "[inference]") {
  const SpecCatalog catalog(HPCSIM_SOURCE_CONFIG_DIR);
  const auto node_of = [&](const std::string& name) {
    return parse_node_spec(catalog.load("nodes", ConfigNode::make_scalar(name, {}), "node"), name, catalog);
  };
  // Sapphire Rapids: AMX int8 math on one core (no fork/join, no bytes) at the spec's 2.0 GHz vector clock
  // (xeon-8480p-2s.yaml [SPRV]), not its 3.0 GHz all-core turbo: 2048 ops per clock at oneDNN's GEMM fraction.
  const NodeSpec spr = node_of("xeon-8480p-2s");
  const CpuWorker one = cpu_worker(spr.cpu, 1, 1);
  const CpuOp gemm{CpuOpClass::gemm, Precision::int8, 1e12, 0, 1e6};
  CHECK(cpu_math_clock_hz(spr.cpu, gemm) == Approx(2.0e9));
  CHECK(cpu_op_time_s(spr.cpu, gemm, one) == Approx(1e12 / (2.0e9 * 2048 * spr.cpu.math.library.gemm)));
  CpuOp conv = gemm;
  conv.op_class = CpuOpClass::conv;
  CHECK(cpu_math_clock_hz(spr.cpu, conv) == Approx(2.0e9));
  // Streaming ops (elementwise, norms) are bound by memory and keep the all-core clock.
  const CpuOp streaming{CpuOpClass::streaming, Precision::fp32, 1e9, 0, 1e6};
  CHECK(cpu_math_clock_hz(spr.cpu, streaming) == Approx(3.0e9));
  // The same op on the spec without its HPC clocks runs at cpu.clock, 1.5 times faster.
  NodeSpec no_clocks = spr;
  no_clocks.cpu.hpc.clocks.vector_hz = 0;
  CHECK(cpu_op_time_s(spr.cpu, gemm, one) / cpu_op_time_s(no_clocks.cpu, gemm, one) == Approx(1.5));
  // Ice Lake c6i (base 2.9 GHz, AWS's 3.5 GHz all-core turbo) and Emerald Rapids (base 1.9 GHz, no longer
  // Sapphire Rapids' inherited 2.0); Graviton3 gives no licence clock and runs at its one clock.
  CHECK(cpu_math_clock_hz(node_of("c6i-2xlarge").cpu, gemm) == Approx(2.9e9));
  CHECK(cpu_math_clock_hz(node_of("xeon-8592p-2s").cpu, gemm) == Approx(1.9e9));
  const NodeSpec graviton = node_of("c7g-4xlarge");
  CHECK(cpu_math_clock_hz(graviton.cpu, gemm) == Approx(graviton.cpu.clock_hz));
}

TEST_CASE("inference: without torch.no_grad, eager PyTorch records each op's autograd node", "[inference]") {
  // BERT-base at seq 8 on c6i, as the hf-neuron-samples script calls it (no torch.no_grad()): each framework
  // call pays pytorch1's autograd_record (2 us: pytorch/pytorch issue #41383's 6.8 vs ~5 us per op) on top of
  // its 13 us from Python.
  const std::string base = "cluster: {node: c6i-2xlarge}\nworkload: {model: bert-base, precision: fp32, "
                           "framework: pytorch1, threads: 4, seq_len: 8";
  const InferenceSetup plain = setup_of(base + "}\n");
  const InferenceSetup recording = setup_of(base + ", no_grad: false}\n");
  CHECK_FALSE(plain.records_autograd);
  CHECK(recording.records_autograd);
  CHECK(plain.framework.eager.autograd_record_s == Approx(2e-6));
  CHECK(recording.framework.eager.forward_dispatch_s == Approx(15e-6));
  InferenceSetup slower = plain;
  slower.framework.eager.forward_dispatch_s += 1e-6;
  const double calls = (batch_latency_s(slower, 1) - batch_latency_s(plain, 1)) / 1e-6;
  CHECK(calls > 300);
  CHECK(batch_latency_s(recording, 1) - batch_latency_s(plain, 1) == Approx(2e-6 * calls).epsilon(1e-6));
  // A compiled graph records one node for the whole graph: nothing per op.
  const std::string compiled = "cluster: {node: c7g-4xlarge}\nworkload: {model: bert-base, precision: fp32, "
                               "seq_len: 8, compile: true";
  CHECK(batch_latency_s(setup_of(compiled + ", no_grad: false}\n"), 1) ==
        Approx(batch_latency_s(setup_of(compiled + "}\n"), 1)));
  // A runtime that records no autograd refuses the key, at the key.
  CHECK(error_of("cluster: {node: g5-2xlarge}\nworkload: {model: resnet50, precision: fp16, framework: tensorrt, "
                 "no_grad: false}\n")
            .find("serve.yaml:2:") != std::string::npos);
  CHECK(error_of("cluster: {node: g5-2xlarge}\nworkload: {model: resnet50, precision: fp16, framework: tensorrt, "
                 "no_grad: false}\n")
            .find("records no autograd") != std::string::npos);
}

TEST_CASE("CPU inference: workload.cpu_backend runs the ops on another of the node's math libraries", "[inference]") {
  // The Graviton MLP (62M fp32 weights) compiled and frozen on c7g.xlarge: oneDNN+ACL packs the frozen weights
  // once; OpenBLAS (c7g's `backends.openblas`, the same fractions) packs them on every call, one more pass over
  // the 248 MB at the worker's bandwidth.
  const std::string base = "cluster: {node: c7g-xlarge}\nworkload: {model: graviton-mlp, precision: fp32, threads: 4, "
                           "compile: true, freeze: true";
  const InferenceSetup acl = setup_of(base + "}\n");
  const InferenceSetup openblas = setup_of(base + ", cpu_backend: openblas}\n");
  CHECK(acl.node.cpu.math.library.name == "acl");
  CHECK(openblas.node.cpu.math.library.name == "openblas");
  CHECK(openblas.node.cpu.math.library.packs_weights_every_call);
  const double pass = 62.0e6 * 4 / (cpu_worker(openblas.node.cpu, 4, 1).memory_bandwidth * 0.8);
  const double added = batch_latency_s(openblas, 10) - batch_latency_s(acl, 10);
  CHECK(added > 0.95 * pass);
  CHECK(added < 1.05 * pass);
  // Naming the default library is the same run as leaving the key out.
  CHECK(batch_latency_s(setup_of(base + ", cpu_backend: acl}\n"), 10) == batch_latency_s(acl, 10));
}

TEST_CASE("CPU ops: OpenBLAS runs a small product on one thread, a larger one on M N K / 262,144", "[inference]") {
  const InferenceSetup s = setup_of(
      "cluster: {node: c7g-4xlarge}\nworkload: {model: graviton-mlp, precision: fp32, cpu_backend: openblas}\n");
  const CpuWorker w16 = cpu_worker(s.node.cpu, 16, 1);
  const auto gemm = [](double m, double n, double k) {
    return CpuOp{CpuOpClass::gemm, Precision::fp32, 2 * m * n * k, 4 * (m * k + k * n + m * n), m * n};
  };
  CHECK(cpu_op_threads(s.node.cpu, gemm(64, 64, 64), w16) == 1);          // 262,144: not above
  CHECK(cpu_op_threads(s.node.cpu, gemm(64, 64, 65), w16) == 1);          // 266,240 / 262,144 = 1.02
  CHECK(cpu_op_threads(s.node.cpu, gemm(128, 128, 256), w16) == 16);      // 4,194,304 / 262,144 = 16
  CHECK(cpu_op_threads(s.node.cpu, gemm(128, 128, 128), w16) == 8);       // 2,097,152 / 262,144 = 8
  CHECK(cpu_op_threads(s.node.cpu, gemm(1024, 1024, 1024), w16) == 16);   // at most the worker's
  // The default library splits every product over all threads.
  const InferenceSetup acl =
      setup_of("cluster: {node: c7g-4xlarge}\nworkload: {model: graviton-mlp, precision: fp32}\n");
  CHECK(cpu_op_threads(acl.node.cpu, gemm(64, 64, 64), w16) == 16);
}

TEST_CASE("inference setup: a cpu_backend the node lacks, or one that does not run the precision, is refused",
          "[inference]") {
  const std::string c7g = "cluster: {node: c7g-xlarge}\nworkload: {model: graviton-mlp, threads: 4, ";
  CHECK(error_of(c7g + "precision: fp32, cpu_backend: mkl}\n")
            .find("serve.yaml:2:75: c7g-xlarge has no math library mkl (its cpu.math: acl, openblas)") !=
        std::string::npos);
  // PyTorch sends bf16 fast math and int8 products to oneDNN, never to the BLAS.
  CHECK(error_of(c7g + "precision: bf16, cpu_backend: openblas}\n")
            .find("serve.yaml:2:75: math library openblas on c7g-xlarge does not run bf16") != std::string::npos);
  CHECK(error_of("cluster: {node: g4dn-xlarge}\nworkload: {model: resnet50, precision: fp16, cpu_backend: acl}\n")
            .find("serve.yaml:2:59: cpu_backend is for replicas on CPUs") != std::string::npos);
  // A node spec whose backend repeats the default library's name is refused at the backend's key.
  const std::string spec = "cpu:\n  model: x\n  sockets: 1\n  cores_per_socket: 4\n  clock: 2 GHz\n"
                           "  flops_per_socket: 0.1 TFLOP/s\n  memory_bandwidth_per_socket: 100 GB/s\n  math:\n"
                           "    ops_per_cycle: {fp32: 32}\n    memory_bandwidth_per_core: 10 GB/s\n"
                           "    library: {name: acl, gemm: 0.6, conv: 0.4, memory: 0.8, fork_join: 5 us, grain_elements: 1}\n"
                           "    backends:\n      acl: {gemm: 0.6, conv: 0.4, memory: 0.8, fork_join: 5 us, grain_elements: 1}\n";
  try {
    parse_cpu_math(parse_config_text(spec, "node.yaml").at("cpu").at("math"));
    FAIL("no error");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("node.yaml:13:7: backend acl has the name of this CPU's default library") !=
          std::string::npos);
  }
  const std::string bad_precision = spec.substr(0, spec.find("    backends")) +
                                    "    backends:\n      openblas: {gemm: 0.6, conv: 0.4, memory: 0.8, fork_join: 5 us, "
                                    "grain_elements: 1, precisions: [fp16]}\n";
  CHECK_THROWS_AS(parse_cpu_math(parse_config_text(bad_precision, "node.yaml").at("cpu").at("math")), ConfigError);
}
