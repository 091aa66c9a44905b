// Transformer encoders and decoders: BERT/RoBERTa/DistilBERT (post-norm, learned positions, pooler but
// DistilBERT's), ViT (pre-norm over image patches and a class token), Transformer-big
// (encoder-decoder, sinusoidal positions, one shared vocabulary), GPT (pre-norm, learned positions, tied
// output layer) and Llama 3 (RMSNorm, grouped-query attention, SwiGLU, rotary positions, untied output).
#include <stdexcept>

#include "builders.h"
#include "workloads/layers/attention.h"
#include "workloads/layers/elementwise.h"
#include "workloads/layers/linear.h"
#include "workloads/layers/normalization.h"
#include "workloads/layers/reshape.h"
#include "workloads/layers/softmax.h"

namespace hpcsim::zoo {

namespace {

struct Block {
  std::int64_t hidden, heads, kv_heads, ffn;
  bool causal, pre_norm, rms, swiglu, bias;
  double dropout;            // on each sublayer's output, before the residual addition
  double attention_dropout;  // on the attention probabilities
};

int norm(Network& net, const std::string& name, const Block& b, int input) {
  return net.add(name, std::make_shared<LayerNorm>(b.rms), {input});
}

int mlp(Network& net, const std::string& id, const Block& b, int x) {
  if (b.swiglu) {
    net.add(id + ".gate_up", std::make_shared<Linear>(2 * b.ffn, b.bias, false, TensorSplit::column), {x});  // gate and up
    net.add(id + ".swiglu", std::make_shared<Activation>(ActivationKind::swiglu));
  } else {
    net.add(id + ".fc1", std::make_shared<Linear>(b.ffn, b.bias, false, TensorSplit::column), {x});
    net.add(id + ".gelu", std::make_shared<Activation>(ActivationKind::gelu));
  }
  int y = net.add(id + ".fc2", std::make_shared<Linear>(b.hidden, b.bias, false, TensorSplit::row));
  if (b.dropout > 0) y = net.add(id + ".dropout", std::make_shared<Dropout>(b.dropout));
  return y;
}

// Self-attention, optional cross-attention over `memory`, then the MLP, each with a residual.
int block(Network& net, const std::string& id, const Block& b, int x, int memory = -1) {
  auto sublayer = [&](const std::string& part, auto&& body) {
    const int in = b.pre_norm ? norm(net, id + "." + part + "_norm", b, x) : x;
    const int y = body(in);
    x = net.add(id + "." + part + "_add", std::make_shared<Add>(), {y, x});
    if (!b.pre_norm) x = norm(net, id + "." + part + "_norm", b, x);
  };
  const AttentionConfig self{b.heads, b.kv_heads, 0, b.causal, b.bias, b.attention_dropout};
  sublayer("attn", [&](int in) {
    int y = net.add(id + ".attn", std::make_shared<Attention>(self), {in});
    if (b.dropout > 0) y = net.add(id + ".attn_dropout", std::make_shared<Dropout>(b.dropout));
    return y;
  });
  if (memory >= 0) {
    sublayer("cross", [&](int in) {
      return net.add(id + ".cross_attn", std::make_shared<Attention>(AttentionConfig{b.heads, b.kv_heads, 0, false, b.bias, b.attention_dropout}),
                     {in, memory});
    });
  }
  sublayer("mlp", [&](int in) { return mlp(net, id + ".mlp", b, in); });
  return x;
}

std::int64_t need(const std::optional<std::int64_t>& v, const char* what, const std::string& model) {
  if (!v) throw std::invalid_argument("model '" + model + "' needs '" + what + "'");
  if (*v < 1) throw std::invalid_argument("model '" + model + "': '" + what + "' must be >= 1");
  return *v;
}

}  // namespace

Model bert(const std::string& name, const ModelParams& p) {
  // Devlin et al. 2019 (BERT base L12 H768 A12, large L24 H1024 A16; 30,522 WordPiece tokens, 512
  // positions, 2 segments); RoBERTa-base (Liu et al. 2019): 50,265 BPE tokens, 514 positions, 1 segment.
  // "-pretraining": with the pretraining heads (Devlin et al. 2019, appendix A): the masked-LM head (dense
  // + GELU + layer norm, then the output projection tied to the token embedding, with its own bias) and
  // the next-sentence classifier. The masked-LM head runs on the masked positions only: 15 % of the tokens
  // (masked_lm_prob; 20 of 128 and 80 of 512 are DLE's max_predictions_per_seq), gathered as Google's
  // run_pretraining.py (gather_indexes) and NVIDIA DLE's (dense_seq_output, on by default) do.
  // "-mlm": HuggingFace's BertForMaskedLM (what AutoModelForMaskedLM builds for a BERT config, as torchbench's
  // hf_Bert and hf_DistilBert run it): no pooler, and the masked-LM head on every position, since inference
  // returns the logits of all tokens.
  // DistilBERT (Sanh et al. 2019, section 3: BERT-base's shape with the layers halved to 6, "the token-type
  // embeddings and the pooler are removed"; HuggingFace's DistilBertConfig defaults: 30,522 tokens, 512
  // positions, dim 768, hidden_dim 3072, 12 heads, dropout and attention_dropout 0.1): "distilbert" is
  // DistilBertModel, the encoder that distilbert-base-uncased's 66M parameters count.
  const bool pretraining = name.ends_with("-pretraining"), mlm = name.ends_with("-mlm");
  const bool large = name.starts_with("bert-large"), roberta = name == "roberta-base", distil = name == "distilbert";
  const std::int64_t hidden = p.hidden.value_or(large ? 1024 : 768);
  const std::int64_t layers = p.layers.value_or(large ? 24 : distil ? 6 : 12);
  // Dropout 0.1 on sublayer outputs and on attention probabilities (hidden_dropout_prob and
  // attention_probs_dropout_prob of Google's released BERT configs; RoBERTa keeps both).
  const Block b{hidden, p.heads.value_or(large ? 16 : 12), 0, p.ffn.value_or(4 * hidden), false, false, false, false,
                true, 0.1, 0.1};
  const std::int64_t vocab = p.vocab.value_or(roberta ? 50265 : 30522), seq = p.seq_len.value_or(512);
  Network net(name);
  const int tokens = net.add_input("tokens", {seq});
  if (distil) {
    net.add("token_embedding", std::make_shared<Embedding>(vocab, hidden), {tokens});
  } else {
    const int segments = net.add_input("segments", {seq});
    const int tok = net.add("token_embedding", std::make_shared<Embedding>(vocab, hidden), {tokens});
    const int seg = net.add("segment_embedding", std::make_shared<Embedding>(roberta ? 1 : 2, hidden), {segments});
    net.add("embedding_sum", std::make_shared<Add>(), {tok, seg});
  }
  net.add("position_embedding", std::make_shared<PositionEmbedding>(roberta ? 514 : 512));
  net.add("embedding_norm", std::make_shared<LayerNorm>());
  int x = net.add("embedding_dropout", std::make_shared<Dropout>(0.1));
  for (std::int64_t l = 0; l < layers; ++l) x = block(net, "layer" + std::to_string(l), b, x);
  if (distil) return {name, {net}};
  if (mlm) {
    net.add("mlm_transform", std::make_shared<Linear>(hidden), {x});
    net.add("mlm_gelu", std::make_shared<Activation>(ActivationKind::gelu));
    net.add("mlm_norm", std::make_shared<LayerNorm>());
    net.add("mlm_logits", std::make_shared<Linear>(vocab, true, true, TensorSplit::column));
    return {name, {net}};
  }
  net.add("cls", std::make_shared<FirstToken>(), {x});
  net.add("pooler", std::make_shared<Linear>(hidden));
  const int pooled = net.add("pooler_tanh", std::make_shared<Activation>(ActivationKind::tanh));
  if (pretraining) {
    const std::int64_t masked = (seq * 15 + 99) / 100;  // ceil(0.15 seq)
    net.add("mlm_positions", std::make_shared<GatherPositions>(masked), {x});
    net.add("mlm_transform", std::make_shared<Linear>(hidden));
    net.add("mlm_gelu", std::make_shared<Activation>(ActivationKind::gelu));
    net.add("mlm_norm", std::make_shared<LayerNorm>());
    net.add("mlm_logits", std::make_shared<Linear>(vocab, true, true, TensorSplit::column));
    net.add("mlm_loss", std::make_shared<CrossEntropyLoss>());
    net.add("nsp_logits", std::make_shared<Linear>(2), {pooled});
    net.add("nsp_loss", std::make_shared<CrossEntropyLoss>());
  }
  return {name, {net}};
}

Model vit(const std::string& name, const ModelParams& p) {
  // Dosovitskiy et al. 2021 ("An Image is Worth 16x16 Words"), table 1: ViT-Base 12 layers, hidden 768, MLP
  // 3072, 12 heads (86M); ViT-Large 24 / 1024 / 4096 / 16 (307M); /16: 16x16 patches, 224x224 images as
  // fine-tuned on ImageNet-1k, so 196 patches and the class token (equation 1: z0 = [x_class; x_p E] + E_pos),
  // pre-norm blocks with GELU MLPs (equations 2-3), a final LayerNorm and a 1,000-class linear head on the
  // class token (timm's vit_base_patch16_224 / vit_large_patch16_224: 86,567,656 / 304,326,632 parameters).
  // The patch embedding is a 16x16 convolution of stride 16, which is exactly a linear layer on each patch's
  // 16 x 16 x 3 values: the image enters as its 196 patches of 768 values (the same 3x224x224 numbers), and
  // the linear layer's GEMM is the convolution's. The class token is a learned [1, hidden] row (a one-entry
  // embedding table). No dropout: timm's default and the paper's fine-tuning of these models at inference.
  const bool large = name == "vit-l16";
  const std::int64_t patch = 16, resolution = p.resolution.value_or(224);
  if (resolution % patch != 0) {
    throw std::invalid_argument("model '" + name + "': resolution must be a multiple of the 16-pixel patch");
  }
  const std::int64_t hidden = p.hidden.value_or(large ? 1024 : 768), layers = p.layers.value_or(large ? 24 : 12);
  const std::int64_t patches = (resolution / patch) * (resolution / patch);
  const Block b{hidden, p.heads.value_or(large ? 16 : 12), 0, p.ffn.value_or(4 * hidden), false, true, false, false,
                true, 0.0, 0.0};
  Network net(name);
  const int image = net.add_input("patches", {patches, patch * patch * 3});
  const int embedded = net.add("patch_embedding", std::make_shared<Linear>(hidden), {image});
  const int cls_index = net.add_input("class_index", {1});
  const int cls = net.add("class_token", std::make_shared<Embedding>(1, hidden), {cls_index});
  net.add("tokens", std::make_shared<Concat>(0), {cls, embedded});
  int x = net.add("position_embedding", std::make_shared<PositionEmbedding>(patches + 1));
  for (std::int64_t l = 0; l < layers; ++l) x = block(net, "layer" + std::to_string(l), b, x);
  net.add("final_norm", std::make_shared<LayerNorm>(), {x});
  net.add("cls", std::make_shared<FirstToken>());
  net.add("head", std::make_shared<Linear>(1000));
  return {name, {net}};
}

Model transformer_big(const ModelParams& p) {
  // Vaswani et al. 2017, "big": 6+6 layers, d 1024, 16 heads, ffn 4096, dropout 0.3, one shared
  // source/target embedding that is also the output layer (32k BPE on WMT En-De in fairseq's recipe).
  const std::int64_t hidden = p.hidden.value_or(1024), layers = p.layers.value_or(6), vocab = p.vocab.value_or(32768);
  const std::int64_t seq = p.seq_len.value_or(128);
  // The paper applies (residual) dropout to sublayer outputs and embeddings only, none on attention weights.
  const Block enc{hidden, p.heads.value_or(16), 0, p.ffn.value_or(4096), false, false, false, false, true, 0.3, 0.0};
  Block dec = enc;
  dec.causal = true;
  Network net("transformer-big");
  const int src = net.add_input("source", {seq});
  const int tgt = net.add_input("target", {seq});
  int x = net.add("source_embedding", std::make_shared<Embedding>(vocab, hidden), {src});
  for (std::int64_t l = 0; l < layers; ++l) x = block(net, "encoder" + std::to_string(l), enc, x);
  const int memory = x;
  int y = net.add("target_embedding", std::make_shared<Embedding>(vocab, hidden, true), {tgt});
  for (std::int64_t l = 0; l < layers; ++l) y = block(net, "decoder" + std::to_string(l), dec, y, memory);
  net.add("logits", std::make_shared<Linear>(vocab, false, true, TensorSplit::column), {y});
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {"transformer-big", {net}};
}

Model gpt(const std::string& name, const ModelParams& given) {
  ModelParams p = given;
  if (name == "gpt3-175b") {
    // Brown et al. 2020, table 2.1: 96 layers, d_model 12,288, 96 heads, d_ff = 4 d_model, 2,048 tokens.
    p.layers = p.layers.value_or(96), p.hidden = p.hidden.value_or(12288), p.heads = p.heads.value_or(96);
  }
  const std::int64_t layers = need(p.layers, "layers", name), hidden = need(p.hidden, "hidden", name);
  const std::int64_t heads = need(p.heads, "heads", name);
  const std::int64_t vocab = p.vocab.value_or(50257), seq = p.seq_len.value_or(2048);  // GPT-2's BPE
  // Attention-probability dropout 0.1: GPT-2's attn_pdrop and Megatron-LM's --attention-dropout default.
  // Their hidden dropout (also 0.1) is not modelled: Megatron fuses it into its bias-dropout-add kernel.
  const Block b{hidden, heads, 0, p.ffn.value_or(4 * hidden), true, true, false, false, true, 0.0, 0.1};
  Network net(name);
  net.add_input("tokens", {seq});
  net.add("token_embedding", std::make_shared<Embedding>(vocab, hidden));
  int x = net.add("position_embedding", std::make_shared<PositionEmbedding>(seq));
  for (std::int64_t l = 0; l < layers; ++l) x = block(net, "layer" + std::to_string(l), b, x);
  net.add("final_norm", std::make_shared<LayerNorm>(), {x});
  net.add("logits", std::make_shared<Linear>(vocab, false, true, TensorSplit::column));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {name, {net}};
}

Model llama3(const std::string& name, const ModelParams& p) {
  // Llama 3 herd paper (Dubey et al. 2024), table 3: 8B 32 layers d 4096 ffn 14,336 32 heads;
  // 70B 80 / 8192 / 28,672 / 64; 405B 126 / 16,384 / 53,248 / 128; 8 KV heads and a 128,256 vocabulary
  // for all; 8,192-token pre-training sequences. Llama 3.1 and 3.3 keep these shapes (Meta's model cards).
  // Llama 2 70B (Touvron et al. 2023, table 1 and the released config.json): 80 layers, d 8192, ffn 28,672,
  // 64 heads, grouped-query attention with 8 KV heads, a 32,000-token vocabulary, 4,096-token context.
  std::int64_t layers = 32, hidden = 4096, ffn = 14336, heads = 32, vocab = 128256, seq = 8192;
  if (name == "llama3-70b" || name == "llama2-70b") layers = 80, hidden = 8192, ffn = 28672, heads = 64;
  if (name == "llama3.1-405b") layers = 126, hidden = 16384, ffn = 53248, heads = 128;
  if (name == "llama2-70b") vocab = 32000, seq = 4096;
  layers = p.layers.value_or(layers), hidden = p.hidden.value_or(hidden), ffn = p.ffn.value_or(ffn);
  heads = p.heads.value_or(heads);
  vocab = p.vocab.value_or(vocab), seq = p.seq_len.value_or(seq);
  const Block b{hidden, heads, 8, ffn, true, true, true, true, false, 0.0, 0.0};  // no dropout (attention_dropout 0.0)
  Network net(name);
  net.add_input("tokens", {seq});
  int x = net.add("token_embedding", std::make_shared<Embedding>(vocab, hidden));
  for (std::int64_t l = 0; l < layers; ++l) x = block(net, "layer" + std::to_string(l), b, x);
  net.add("final_norm", std::make_shared<LayerNorm>(true), {x});
  net.add("logits", std::make_shared<Linear>(vocab, false, false, TensorSplit::column));
  net.add("loss", std::make_shared<CrossEntropyLoss>());
  return {name, {net}};
}

}  // namespace hpcsim::zoo
