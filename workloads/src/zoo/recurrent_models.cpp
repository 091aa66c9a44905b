// Recurrent models: the Keras bidirectional-LSTM IMDB classifier and the GNMT v2 translator.
#include <stdexcept>
#include <string>

#include "builders.h"
#include "workloads/layers/additive_attention.h"
#include "workloads/layers/attention.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/recurrent.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

namespace hpcsim::zoo {

Model bilstm(const ModelParams& p) {
  // keras.io "Bidirectional LSTM on IMDB": Embedding(20000, 128), two Bidirectional(LSTM(64)), Dense(1),
  // 200-token reviews.
  Network net("bilstm");
  net.add_input("tokens", {p.seq_len.value_or(200)});
  net.add("embedding", std::make_shared<Embedding>(p.vocab.value_or(20000), 128));
  net.add("bilstm", std::make_shared<Recurrent>(RecurrentConfig{CellType::lstm, p.hidden.value_or(64), 2, true, false}));
  net.add("dense", std::make_shared<Linear>(1));
  net.add("loss", std::make_shared<CrossEntropyLoss>());  // one class: sigmoid + binary cross-entropy
  return {"bilstm", {net}};
}

namespace {

// How a GNMT decoder runs: DLE PyTorch's over whole sequences (cuDNN), or TensorFlow's nmt one target
// step at a time (stepwise cells and attention).
Model build_gnmt(const ModelParams& p, bool stepwise_decoder);

}  // namespace

Model gnmt(const ModelParams& p) { return build_gnmt(p, false); }

// GNMT v2 as tensorflow/nmt trains it (DeepLearningExamples TensorFlow/Translation/GNMT, nmt.py defaults:
// use_fused_lstm true for the encoder, use_fused_lstm_dec false): the same network, but the decoder runs
// under dynamic_decode, a tf.while_loop over target steps (gnmt_model.py, GNMTAttentionMultiCell): every
// decoder LSTM layer is a stepwise LSTMCell and the attention is computed one step at a time. The encoder's
// LSTMBlockFusedCell runs its whole sequence in one op, as cuDNN does.
Model gnmt_tf(const ModelParams& p) {
  Model m = build_gnmt(p, true);
  m.name = "gnmt-tf";
  return m;
}

namespace {

Model build_gnmt(const ModelParams& p, bool stepwise_decoder) {
  // GNMT v2 as NVIDIA DeepLearningExamples trains it (PyTorch/Translation/GNMT, seq2seq/models/encoder.py,
  // decoder.py, gnmt.py; train.py defaults): `layers` LSTM layers of 1,024 units per stack (default 4; Wu
  // et al. 2016 used 8). Encoder: a bidirectional layer (1,024 per direction), a layer over its 2,048-wide
  // output, then unidirectional layers with residual additions; dropout 0.2 on every LSTM layer's input
  // (the embedding included). Decoder: one LSTM layer feeding normalized Bahdanau attention over the
  // encoder output, then layers whose input is the previous output (after dropout 0.2) concatenated with
  // the attention context, residual from the third layer on. Source and target share one embedding table
  // (share_embedding); a 32k BPE vocabulary; label smoothing 0.1 (seq2seq/train/smoothing.py, log-softmax
  // in fp32).
  const std::int64_t units = p.hidden.value_or(1024), vocab = p.vocab.value_or(32000), seq = p.seq_len.value_or(50);
  const int layers = static_cast<int>(p.layers.value_or(4));
  if (layers < 2) throw std::invalid_argument("gnmt: layers must be at least 2");
  static constexpr double kDropout = 0.2, kSmoothing = 0.1;
  auto lstm = [units](bool bidirectional = false, bool stepwise = false) {
    return std::make_shared<Recurrent>(RecurrentConfig{CellType::lstm, units, 1, bidirectional, true, stepwise});
  };
  auto dropout = [] { return std::make_shared<Dropout>(kDropout); };
  Network net("gnmt");
  const int src = net.add_input("source", {seq});
  const int tgt = net.add_input("target", {seq});
  net.add("source_embedding", std::make_shared<Embedding>(vocab, units), {src});
  net.add("encoder_dropout_0", dropout());
  net.add("encoder_0", lstm(true));
  net.add("encoder_dropout_1", dropout());
  int memory = net.add("encoder_1", lstm());
  for (int l = 2; l < layers; ++l) {
    const std::string id = std::to_string(l);
    const int residual = memory;
    net.add("encoder_dropout_" + id, dropout(), {memory});
    const int y = net.add("encoder_" + id, lstm());
    memory = net.add("encoder_residual_" + id, std::make_shared<Add>(), {y, residual});
  }
  net.add("target_embedding", std::make_shared<Embedding>(vocab, units, /*tied=*/true), {tgt});
  int x = net.add("decoder_0", lstm(false, stepwise_decoder));
  const int ctx = net.add("attention", std::make_shared<AdditiveAttention>(units, stepwise_decoder), {x, memory});
  for (int l = 1; l < layers; ++l) {
    const std::string id = std::to_string(l);
    const int residual = x;
    const int dropped = net.add("decoder_dropout_" + id, dropout(), {x});
    const int in = net.add("decoder_concat_" + id, std::make_shared<Concat>(-1), {dropped, ctx});
    x = net.add("decoder_" + id, lstm(false, stepwise_decoder), {in});
    if (l >= 2) x = net.add("decoder_residual_" + id, std::make_shared<Add>(), {x, residual});
  }
  net.add("logits", std::make_shared<Linear>(vocab), {x});
  net.add("loss", std::make_shared<CrossEntropyLoss>(kSmoothing));
  // DLE's trainer reports tokens/s over source plus target tokens (seq2seq/train/trainer.py).
  Model model{"gnmt", {net}};
  model.tokens_per_sample = 2 * seq;
  return model;
}

}  // namespace

}  // namespace hpcsim::zoo
