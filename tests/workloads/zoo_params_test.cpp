// Model zoo acceptance: exact parameter counts (each derived by hand in the model file or beside the
// check), shapes, forward FLOPs against published figures, and the errors of bad model files.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "configs/config_error.h"
#include "workloads/zoo/model_yaml.h"
#include "workloads/zoo/zoo.h"

using namespace hpcsim;

namespace {

Model zoo(const std::string& name, const ModelParams& p = {}) { return build_model(name, p, HPCSIM_SOURCE_CONFIG_DIR); }

double rel(double a, double b) { return std::abs(a - b) / b; }

// Writes the model to a file of its own under the temp folder (never the working tree), loads it and
// returns the error message; the file is removed again.
std::string load_error(const std::string& yaml) {
  const std::string path = (std::filesystem::temp_directory_path() /
                            ("hpcsim-zoo-" + std::to_string(::getpid()) + "-model.yaml")).string();
  std::ofstream(path) << yaml;
  std::string message = "(no error)";
  try {
    load_model_yaml(path);
  } catch (const ConfigError& e) {
    message = e.what();
  }
  std::filesystem::remove(path);
  return message;
}

}  // namespace

TEST_CASE("zoo: exact parameter counts of the CNNs") {
  CHECK(zoo("lenet5").params() == 61706);        // simplified LeNet-5: 6/16 conv channels, 120/84/10
  CHECK(zoo("alexnet").params() == 61100840);    // torchvision
  CHECK(zoo("vgg16").params() == 138357544);     // torchvision
  CHECK(zoo("resnet50").params() == 25557032);   // torchvision
  CHECK(zoo("resnet101").params() == 44549160);  // torchvision
  CHECK(zoo("resnet152").params() == 60192808);  // torchvision
  CHECK(zoo("googlenet").params() == 6624904);   // torchvision, without the auxiliary classifiers
}

TEST_CASE("zoo: the Keras seed models") {
  CHECK(zoo("keras-cnn-mnist").params() == 93322);        // 320 + 18,496 + 36,928 + 36,928 + 650
  // 1,280,000 + SimpleRNN 64*(128+64)+64 = 12,352 + Dense 65. (1,288,321 would leave out the
  // recurrent 64x64 kernel: 1,292,417 - 1,288,321 = 4,096.)
  CHECK(zoo("keras-simplernn").params() == 1292417);
  CHECK(zoo("keras-lstm-textgen").params() == 2701584);   // 1,280,000 + 131,584 + 1,290,000
  const Model gan = zoo("keras-gan-mnist");
  CHECK(gan.network("generator").params() == 227344);     // 100*256+256 + 256*784+784
  CHECK(gan.network("discriminator").params() == 201217); // 784*256+256 + 257
  CHECK(gan.network("generator").output_shape() == Shape{784});
  CHECK(zoo("bilstm").params() == 2757761);  // keras.io IMDB BiLSTM: 2,560,000 + 2 x 98,816 + 129
  // PyTorch DCGAN tutorial: generator 3,576,704, discriminator 2,765,568 at 64 px.
  const Model dcgan = zoo("dcgan");
  CHECK(dcgan.network("generator").params() == 3576704);
  CHECK(dcgan.network("discriminator").params() == 2765568);
  CHECK(dcgan.network("generator").output_shape() == Shape{3, 64, 64});
  CHECK(zoo("dcgan", {.resolution = 256}).network("generator").output_shape() == Shape{3, 256, 256});
}

TEST_CASE("zoo: transformers") {
  // BERT-base with the pooler (embeddings 23,837,184 + 12 x 7,087,872 + pooler 590,592); without the
  // pooler it is 108,891,648. Masked-LM and NSP heads are not counted.
  CHECK(zoo("bert-base").params() == 109482240);
  CHECK(zoo("bert-large").params() == 335141888);
  CHECK(zoo("roberta-base").params() == 124645632);
  // GPT-3 175B: 96 x (12h^2 + 13h) + 50,257h + 2,048h + 2h = 174.6e9, within 0.5 % of 175e9.
  CHECK(rel(static_cast<double>(zoo("gpt3-175b").params()), 175e9) < 0.005);
  // Llama 3: 8.03e9, 70.6e9, 405.9e9 (Meta's model cards).
  CHECK(rel(static_cast<double>(zoo("llama3-8b").params()), 8.03e9) < 0.01);
  CHECK(rel(static_cast<double>(zoo("llama3-70b").params()), 70.6e9) < 0.01);
  CHECK(rel(static_cast<double>(zoo("llama3.1-405b").params()), 405.9e9) < 0.01);
  // Llama 2 70B: 80 x (2 x 8192^2 + 2 x 8192 x 1024 + 3 x 8192 x 28,672 + 2 x 8192) + 2 x 32,000 x 8192 + 8192
  // = 68,976,648,192, the count of the released checkpoint.
  CHECK(zoo("llama2-70b").params() == 68976648192);
  // The parameterized gpt: GPT-2 small shapes (12 x 768, 12 heads, 1,024 positions) = 124,439,808.
  CHECK(zoo("gpt", {.seq_len = 1024, .layers = 12, .hidden = 768, .heads = 12}).params() == 124439808);
  CHECK_THROWS_AS(zoo("gpt", {.layers = 12}), std::invalid_argument);  // hidden and heads missing
  CHECK(zoo("transformer-big").params() > 170e6);
  CHECK(zoo("gnmt").params() > 100e6);
}

TEST_CASE("zoo: shapes and forward FLOPs against published figures") {
  const Model r50 = zoo("resnet50");
  const Network& net = r50.network("resnet50");
  CHECK(net.nodes()[net.find("fc")].output == Shape{1000});
  // torchvision: ResNet-50 4.09 GMACs at 224x224 (multiply-adds of convolutions and the classifier).
  // forward_flops counts 2 per multiply-add plus elementwise work (BN, ReLU, adds: about 1 %).
  const double gmacs = net.forward_flops({1, Precision::fp32}) / 2 / 1e9;
  CHECK(gmacs == Approx(4.09).epsilon(0.03));
  // Transformers: ~2 FLOPs per parameter per token forward (Kaplan et al. 2020), plus attention.
  const Model g = zoo("gpt3-175b");
  const double per_token = g.networks[0].forward_flops({1, Precision::bf16}) / 2048;
  CHECK(per_token / (2 * 174.6e9) == Approx(1.05).epsilon(0.05));
}

TEST_CASE("zoo: unknown names and bad model files are ConfigErrors with locations") {
  try {
    zoo("resnet51");
    FAIL("unknown model accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("did you mean 'resnet50'") != std::string::npos);
  }
  // A name longer than a file name may be: "File name too long" escaped as an internal error (tests/fuzz).
  CHECK_THROWS_AS(zoo(std::string(5000, 'x')), ConfigError);
  std::string err = load_error("input: [1, 28, 28]\nlayers:\n  - {type: conv2dd, filters: 8, kernel_size: 3}\n");
  CHECK(err.find(":3:12: ") != std::string::npos);
  CHECK(err.find("did you mean 'conv2d'") != std::string::npos);
  err = load_error("input: [1, 28, 28]\nlayers:\n  - {type: conv2d, filters: 8, kernel: 3}\n");
  CHECK(err.find(":3:32: unknown key 'kernel'; valid keys: filters, kernel_size") != std::string::npos);
  // Shape mismatch: a 5x5 filter on a 4x4 map, reported at the layer.
  err = load_error("input: [1, 4, 4]\nlayers:\n  - {type: flatten}\n  - {type: conv2d, filters: 8, kernel_size: 5}\n");
  CHECK(err.find(":4:5: ") != std::string::npos);
  CHECK(err.find("expects [channels, height, width], got [16]") != std::string::npos);
  err = load_error("input: [8]\nlayers:\n  - {type: dense, units: 4, name: a}\n  - {type: add, inputs: [a, b]}\n");
  CHECK(err.find(":4:") != std::string::npos);
  CHECK(err.find("'b'") != std::string::npos);
  err = load_error("input: [8]\nlayer:\n  - {type: dense, units: 4}\n");
  CHECK(err.find("did you mean 'layers'") != std::string::npos);
  err = load_error("input: [8]\nlayers:\n  - {type: dense, units: 0}\n");
  CHECK(err.find(":3:") != std::string::npos);
  // Attention-probability dropout is a rate in [0, 0.99], checked at its value.
  err = load_error("input: [16, 64]\nlayers:\n  - {type: attention, heads: 4, dropout: 1.5}\n");
  CHECK(err.find(":3:42: must be <= 0.99") != std::string::npos);
}

TEST_CASE("zoo: every name builds, and the same name gives the same network") {
  for (const std::string& name : zoo_names(HPCSIM_SOURCE_CONFIG_DIR)) {
    if (name == "gpt") continue;  // needs sizes
    INFO(name);
    const Model m = zoo(name);
    CHECK(m.params() > 0);
    CHECK(zoo(name).params() == m.params());
  }
}

TEST_CASE("zoo: BERT pretraining heads add the masked-LM transform, its bias and the next-sentence layer") {
  for (const auto& [base, hidden] : {std::pair<std::string, std::int64_t>{"bert-base", 768}, {"bert-large", 1024}}) {
    const std::int64_t heads = hidden * hidden + hidden + 2 * hidden  // transform and its layer norm
                               + 30522                                // output bias (weights tied)
                               + 2 * hidden + 2;                      // next-sentence classifier
    CHECK(zoo(base + "-pretraining").params() == zoo(base).params() + heads);
  }
  // Devlin et al. 2019 quote 340M (two significant figures) for BERT-large.
  CHECK(zoo("bert-large-pretraining").params() >= 335e6);
  CHECK(zoo("bert-large-pretraining").params() < 345e6);
}

TEST_CASE("zoo: bert-base-mlm is HuggingFace's BertForMaskedLM: no pooler, the masked-LM head on every token") {
  // 108,891,648 without the pooler + transform 768 x 768 + 768 + its layer norm 2 x 768 + the decoder's bias
  // (its weights are the token embedding's) = 109,514,298, the count transformers reports for
  // BertForMaskedLM on bert-base-uncased.
  const Model mlm = zoo("bert-base-mlm");
  CHECK(mlm.params() == 109514298);
  CHECK(mlm.networks.front().output_shape() == Shape{512, 30522});
  CHECK(zoo("bert-base-mlm", {.seq_len = 128}).networks.front().output_shape() == Shape{128, 30522});
}

TEST_CASE("zoo: gnmt is DLE's GNMT v2 (4 + 4 LSTM layers) and `layers` sets the depth of each stack") {
  const Model v2 = zoo("gnmt");
  // One more layer per stack adds an encoder LSTM over 1,024 inputs, 4u(1024 + u + 1) = 8,392,704, and a
  // decoder LSTM over the output concatenated with the attention context, 4u(2048 + u + 1) = 12,587,008.
  CHECK(v2.params() - zoo("gnmt", {.layers = 3}).params() == 8392704 + 12587008);
  CHECK(zoo("gnmt", {.layers = 4}).params() == v2.params());
  // DLE GNMT v2 (seq2seq/models: shared 32k embedding, 9 LSTM layer-directions, classifier): about 160M.
  CHECK(rel(static_cast<double>(v2.params()), 160e6) < 0.05);
  CHECK_THROWS_AS(zoo("gnmt", {.layers = 1}), std::invalid_argument);
}

TEST_CASE("zoo: ViT-B/16, ViT-L/16 (Dosovitskiy et al. 2021) and DistilBERT (Sanh et al. 2019)") {
  // ViT-B/16: patch embedding 768 x 768 + 768 = 590,592, class token 768, positions 197 x 768 = 151,296,
  // 12 x 7,087,872 (the BERT-base layer: attention 2,362,368, MLP 4,722,432, two norms 3,072), final norm
  // 1,536, head 768 x 1000 + 1000 = 769,000: 86,567,656, timm's vit_base_patch16_224.
  CHECK(zoo("vit-b16").params() == 86567656);
  // ViT-L/16: 787,456 + 1,024 + 201,728 + 24 x 12,596,224 + 2,048 + 1,025,000 = 304,326,632 (timm's).
  CHECK(zoo("vit-l16").params() == 304326632);
  // 197 tokens (196 patches and the class token) through the encoder, 1,000 logits out.
  const Model b16 = zoo("vit-b16");
  const Network& net = b16.network("vit-b16");
  CHECK(net.nodes()[net.find("position_embedding")].output == Shape{197, 768});
  CHECK(net.nodes()[net.find("head")].output == Shape{1000});
  // Forward: 17.6 GMACs at 224x224 (timm's and fvcore's count for ViT-B/16); ours adds softmax, norms, GELU.
  CHECK(net.forward_flops({1, Precision::fp32}) / 2 / 1e9 == Approx(17.6).epsilon(0.04));
  // At 384x384 (the paper's fine-tuning resolution): 576 patches; a resolution off the 16-pixel grid is refused.
  const Model b16_384 = zoo("vit-b16", {.resolution = 384});
  const Network& net384 = b16_384.network("vit-b16");
  CHECK(net384.nodes()[net384.find("position_embedding")].output == Shape{577, 768});
  CHECK_THROWS_AS(zoo("vit-b16", {.resolution = 200}), std::invalid_argument);
  // DistilBERT (DistilBertModel of distilbert-base-uncased): embeddings 30,522 x 768 + 512 x 768 + 1,536 =
  // 23,835,648 (no token types), 6 x 7,087,872, no pooler: 66,362,880.
  CHECK(zoo("distilbert").params() == 66362880);
  CHECK(zoo("distilbert").params() == zoo("bert-base", {.layers = 6}).params() - 2 * 768 - 590592);
}
