// Recurrent models: the Keras bidirectional-LSTM IMDB classifier and a GNMT-style translator.
#include "builders.h"
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
  // Wu et al. 2016 (GNMT): 8 encoder layers of 1,024 LSTM units, the first bidirectional, 8 decoder
  // layers, attention from the decoder to the encoder output, a 32k wordpiece vocabulary. Simplified:
  // the attention context is applied once above the decoder stack (not fed to every decoder layer) and
  // residual connections are left out (they have no parameters).
  const std::int64_t units = p.hidden.value_or(1024), vocab = p.vocab.value_or(32000), seq = p.seq_len.value_or(50);
  Network net("gnmt");
  const int src = net.add_input("source", {seq});
  const int tgt = net.add_input("target", {seq});
  net.add("source_embedding", std::make_shared<Embedding>(vocab, units), {src});
  net.add("encoder_bi", std::make_shared<Recurrent>(RecurrentConfig{CellType::lstm, units / 2, 1, true, true}));
  const int memory = net.add("encoder", std::make_shared<Recurrent>(RecurrentConfig{CellType::lstm, units, 7, false, true}));
  net.add("target_embedding", std::make_shared<Embedding>(vocab, units), {tgt});
  const int dec = net.add("decoder", std::make_shared<Recurrent>(RecurrentConfig{CellType::lstm, units, 8, false, true}));
  const int ctx = net.add("attention", std::make_shared<Attention>(AttentionConfig{.heads = 1}), {dec, memory});
  net.add("context_concat", std::make_shared<Concat>(-1), {dec, ctx});
  net.add("logits", std::make_shared<Linear>(vocab));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {"gnmt", {net}};
}

}  // namespace hpcsim::zoo
