#include "models/collectives/nvls.h"

namespace hpcsim {

double nvls_efficiency(std::string_view cc) {
  if (cc.starts_with("9.")) return 0.85;
  if (cc.starts_with("10.")) return 0.74;
  return 0;
}

double nvls_port_fraction(const NodeSpec& node) {
  if (node.gpu_link.kind != "nvswitch" || node.gpus < 2) return 0;
  return nvls_efficiency(node.gpu.compute_capability) * (kNvlsChannels - 1) / kNvlsChannels;
}

}  // namespace hpcsim
