#include "workloads/zoo/zoo.h"

#include <algorithm>
#include <functional>
#include <map>

#include "builders.h"
#include "configs/catalog.h"
#include "configs/config_error.h"
#include "configs/schema.h"
#include "workloads/zoo/model_yaml.h"

namespace hpcsim {

namespace {

using Builder = std::function<Model(const ModelParams&)>;

const std::map<std::string, Builder>& builders() {
  static const std::map<std::string, Builder> table = {
      {"resnet50", [](const ModelParams& p) { return zoo::resnet("resnet50", 50, p); }},
      {"resnet101", [](const ModelParams& p) { return zoo::resnet("resnet101", 101, p); }},
      {"resnet152", [](const ModelParams& p) { return zoo::resnet("resnet152", 152, p); }},
      {"googlenet", zoo::googlenet},
      {"inception-v3", zoo::inception_v3},
      {"bilstm", zoo::bilstm},
      {"gnmt", zoo::gnmt},
      {"gnmt-tf", zoo::gnmt_tf},
      {"dcgan", zoo::dcgan},
      {"stylegan2", zoo::stylegan2},
      {"bert-base", [](const ModelParams& p) { return zoo::bert("bert-base", p); }},
      {"bert-large", [](const ModelParams& p) { return zoo::bert("bert-large", p); }},
      {"bert-base-pretraining", [](const ModelParams& p) { return zoo::bert("bert-base-pretraining", p); }},
      {"bert-large-pretraining", [](const ModelParams& p) { return zoo::bert("bert-large-pretraining", p); }},
      {"bert-base-mlm", [](const ModelParams& p) { return zoo::bert("bert-base-mlm", p); }},
      {"roberta-base", [](const ModelParams& p) { return zoo::bert("roberta-base", p); }},
      {"distilbert", [](const ModelParams& p) { return zoo::bert("distilbert", p); }},
      {"vit-b16", [](const ModelParams& p) { return zoo::vit("vit-b16", p); }},
      {"vit-l16", [](const ModelParams& p) { return zoo::vit("vit-l16", p); }},
      {"transformer-big", zoo::transformer_big},
      {"gpt", [](const ModelParams& p) { return zoo::gpt("gpt", p); }},
      {"gpt3-175b", [](const ModelParams& p) { return zoo::gpt("gpt3-175b", p); }},
      {"llama2-70b", [](const ModelParams& p) { return zoo::llama3("llama2-70b", p); }},
      {"llama3-8b", [](const ModelParams& p) { return zoo::llama3("llama3-8b", p); }},
      {"llama3-70b", [](const ModelParams& p) { return zoo::llama3("llama3-70b", p); }},
      {"llama3.1-405b", [](const ModelParams& p) { return zoo::llama3("llama3.1-405b", p); }},
  };
  return table;
}

const std::vector<std::string>& transformer_keys() {
  static const std::vector<std::string> keys = {"seq_len", "layers", "hidden", "heads", "ffn", "vocab"};
  return keys;
}

bool is_path(const std::string& s) {
  return s.find('/') != std::string::npos || (s.size() > 5 && s.substr(s.size() - 5) == ".yaml");
}

}  // namespace

std::vector<std::string> builtin_model_names() {
  std::vector<std::string> names;
  for (const auto& [name, b] : builders()) names.push_back(name);
  return names;
}

std::vector<std::string> zoo_names(const std::filesystem::path& config_root) {
  std::vector<std::string> names = builtin_model_names();
  for (const std::string& n : SpecCatalog(config_root).names("models")) names.push_back(n);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return names;
}

Model build_model(const std::string& name_or_path, const ModelParams& params, const std::filesystem::path& config_root) {
  if (is_path(name_or_path)) return load_model_yaml(name_or_path);
  if (const auto it = builders().find(name_or_path); it != builders().end()) return it->second(params);
  const std::filesystem::path file = config_root / "models" / (name_or_path + ".yaml");
  // The error_code form: a name past the file system's limits is an unknown model, not an exception.
  if (std::error_code ec; std::filesystem::exists(file, ec)) return load_model_yaml(file);
  // Unknown: the schema's message lists the names and suggests the closest.
  Schema::one_of(zoo_names(config_root)).validate(ConfigNode::make_scalar(name_or_path, SourceLoc{"model", 0, 0}));
  throw ConfigError(SourceLoc{"model", 0, 0}, "unknown model '" + name_or_path + "'");
}

std::vector<std::string> model_size_keys(const std::string& name) {
  if (is_path(name) || !builders().contains(name)) return {};
  if (name.starts_with("resnet") || name == "googlenet" || name == "inception-v3" || name == "dcgan") {
    return {"resolution"};
  }
  if (name == "stylegan2") return {"resolution", "layers", "hidden"};  // hidden: channel_base
  if (name == "bilstm") return {"seq_len", "hidden", "vocab"};
  if (name.starts_with("vit-")) return {"resolution", "layers", "hidden", "heads", "ffn"};
  if (name == "gnmt" || name == "gnmt-tf") return {"seq_len", "layers", "hidden", "vocab"};
  return transformer_keys();  // BERT, RoBERTa, Transformer-big, GPT, Llama
}

}  // namespace hpcsim
