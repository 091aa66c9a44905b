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

Model gnmt(const ModelParams& p) {
  // GNMT v2 as NVIDIA DeepLearningExamples trains it (PyTorch/Translation/GNMT, seq2seq/models/encoder.py,
  // decoder.py, gnmt.py): `layers` LSTM layers of 1,024 units per stack (default 4; Wu et al. 2016 used 8).
  // Encoder: a bidirectional layer (1,024 per direction), a layer over its 2,048-wide output, then
  // unidirectional layers. Decoder: one LSTM layer feeding normalized Bahdanau attention over the encoder
  // output, then layers whose input is the previous output concatenated with the attention context.
  // Source and target share one embedding table (share_embedding); a 32k BPE vocabulary. Residual
  // additions and dropout are left out (no parameters, negligible time next to the LSTMs).
  const std::int64_t units = p.hidden.value_or(1024), vocab = p.vocab.value_or(32000), seq = p.seq_len.value_or(50);
  const int layers = static_cast<int>(p.layers.value_or(4));
  if (layers < 2) throw std::invalid_argument("gnmt: layers must be at least 2");
  auto lstm = [units](int n, bool bidirectional = false) {
    return std::make_shared<Recurrent>(RecurrentConfig{CellType::lstm, units, n, bidirectional, true});
  };
  Network net("gnmt");
  const int src = net.add_input("source", {seq});
  const int tgt = net.add_input("target", {seq});
  net.add("source_embedding", std::make_shared<Embedding>(vocab, units), {src});
  net.add("encoder_bi", lstm(1, true));
  int memory = net.add("encoder_1", lstm(1));
  if (layers > 2) memory = net.add("encoder_rest", lstm(layers - 2));
  net.add("target_embedding", std::make_shared<Embedding>(vocab, units, /*tied=*/true), {tgt});
  int x = net.add("decoder_0", lstm(1));
  const int ctx = net.add("attention", std::make_shared<AdditiveAttention>(units), {x, memory});
  for (int l = 1; l < layers; ++l) {
    const int in = net.add("decoder_concat_" + std::to_string(l), std::make_shared<Concat>(-1), {x, ctx});
    x = net.add("decoder_" + std::to_string(l), lstm(1), {in});
  }
  net.add("logits", std::make_shared<Linear>(vocab));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  // DLE's trainer reports tokens/s over source plus target tokens (seq2seq/train/trainer.py).
  Model model{"gnmt", {net}};
  model.tokens_per_sample = 2 * seq;
  return model;
}

}  // namespace hpcsim::zoo
