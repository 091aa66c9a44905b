#pragma once
// The C++ zoo builders (one family per file) and the small graph helpers they share.
#include <memory>
#include <string>

#include "workloads/layers/network.h"
#include "workloads/zoo/zoo.h"

namespace hpcsim::zoo {

Model resnet(const std::string& name, int depth, const ModelParams& p);     // resnet.cpp
Model googlenet(const ModelParams& p);                                      // inception.cpp
Model inception_v3(const ModelParams& p);                                   // inception_v3.cpp
Model stylegan2(const ModelParams& p);                                      // stylegan2.cpp
Model bert(const std::string& name, const ModelParams& p);                  // transformer.cpp
Model vit(const std::string& name, const ModelParams& p);                   // transformer.cpp
Model transformer_big(const ModelParams& p);                                // transformer.cpp
Model gpt(const std::string& name, const ModelParams& p);                   // transformer.cpp
Model llama3(const std::string& name, const ModelParams& p);                // transformer.cpp
Model bilstm(const ModelParams& p);                                         // recurrent_models.cpp
Model gnmt(const ModelParams& p);                                           // recurrent_models.cpp
Model gnmt_tf(const ModelParams& p);                                        // recurrent_models.cpp
Model dcgan(const ModelParams& p);                                          // gan.cpp

// conv (no bias) + batch norm (+ ReLU): returns the last node.
int conv_bn(Network& net, const std::string& name, int input, std::int64_t filters, int kh, int kw, int stride,
            int pad_h, int pad_w, bool relu = true);
inline int conv_bn(Network& net, const std::string& name, int input, std::int64_t filters, int k, int stride,
                   int pad, bool relu = true) {
  return conv_bn(net, name, input, filters, k, k, stride, pad, pad, relu);
}

}  // namespace hpcsim::zoo
