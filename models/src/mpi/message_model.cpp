#include "models/mpi/message_model.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace hpcsim {

SizeFactor::SizeFactor(std::vector<std::pair<double, double>> steps) : steps_(std::move(steps)) {
  for (const auto& [t, v] : steps_)
    if (!(t >= 0) || !std::isfinite(t) || !(v > 0) || !std::isfinite(v))
      throw std::invalid_argument("a size factor needs thresholds >= 0 and finite values > 0");
  std::sort(steps_.begin(), steps_.end());
}

SizeFactor SizeFactor::parse(const std::string& text) {
  std::vector<std::pair<double, double>> steps;
  std::stringstream in(text);
  std::string piece;
  while (std::getline(in, piece, ';')) {
    if (piece.find_first_not_of(" \t") == std::string::npos) continue;
    const std::size_t colon = piece.find(':');
    if (colon == std::string::npos) throw std::invalid_argument("'" + piece + "' is not threshold:value");
    const std::string a = piece.substr(0, colon), b = piece.substr(colon + 1);
    char* ea = nullptr;
    char* eb = nullptr;
    const double t = std::strtod(a.c_str(), &ea);
    const double v = std::strtod(b.c_str(), &eb);
    if (ea == a.c_str() || *ea != '\0' || eb == b.c_str() || *eb != '\0')
      throw std::invalid_argument("'" + piece + "' is not threshold:value");
    if (!(t >= 0) || !std::isfinite(t) || !(v > 0) || !std::isfinite(v))
      throw std::invalid_argument("'" + piece + "' needs a threshold >= 0 and a value > 0");
    steps.emplace_back(t, v);
  }
  if (steps.empty()) throw std::invalid_argument("no threshold:value pair in '" + text + "'");
  return SizeFactor(std::move(steps));
}

double SizeFactor::at(double bytes) const {
  double v = 1;
  for (const auto& [t, f] : steps_) {
    if (bytes < t) break;
    v = f;
  }
  return v;
}

MessageModel smpi_message_model() {
  MessageModel m;
  m.name = "smpi";
  // simgrid.org/doc/latest/Configuring_SimGrid.html, options smpi/bw-factor and smpi/lat-factor (defaults,
  // fitted by SimGrid's authors on an MPI ping-pong; "messages of 65472 bytes and more get 0.940694").
  m.bandwidth_factor = SizeFactor::parse(
      "65472:0.940694;15424:0.697866;9376:0.58729;5776:1.08739;3484:0.77493;1426:0.608902;732:0.341987;257:0.338112;"
      "0:0.812084");
  m.latency_factor = SizeFactor::parse(
      "65472:11.6436;15424:3.48845;9376:2.59299;5776:2.18796;3484:1.88101;1426:1.61075;732:1.9503;257:1.95341;"
      "0:2.01467");
  m.eager_threshold = 65536;   // smpi/send-is-detached-thresh
  m.buffered_threshold = 0;    // smpi/async-small-thresh
  m.rendezvous_handshakes = 0;
  m.crosstraffic = 0.05;       // network/crosstraffic: yes (5 % of the rate on the reverse route)
  m.weight_s = 8775;           // network/weight-S as the SMPI network model sets it
  m.tcp_gamma = 4194304;       // network/TCP-gamma
  m.test_sleep_s = 1e-4;       // smpi/test
  return m;
}

MessageModel mpi_message_model(double eager_threshold) {
  MessageModel m;
  m.name = "mpi";
  m.eager_threshold = eager_threshold;
  m.buffered_threshold = eager_threshold;
  m.rendezvous_handshakes = 1;
  return m;
}

}  // namespace hpcsim

namespace hpcsim {

MessageModel mpi_message_model(const NetworkSpec& network) {
  MessageModel m = mpi_message_model(network.eager_threshold_bytes);
  m.send_overhead_s = network.mpi_overhead_s;
  m.recv_overhead_s = network.mpi_overhead_s;
  return m;
}

}  // namespace hpcsim
