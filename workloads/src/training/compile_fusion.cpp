#include "workloads/training/compile_fusion.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "workloads/layers/network.h"

namespace hpcsim {

namespace {

// The layer traits the pass asks about (workloads/layers/layer.h).
bool forward_fusable(const LayerTraits& t) { return t.elementwise_forward; }
bool backward_fusable(const LayerTraits& t) { return t.elementwise_backward; }
bool is_norm(const LayerTraits& t) { return t.normalization; }
bool saves_input(const LayerTraits& t) { return t.saves == LayerTraits::Saves::input; }
bool saves_output(const LayerTraits& t) { return t.saves == LayerTraits::Saves::output; }

enum class Phase { forward, backward };

// A tensor as written by some kernel: the kernel (layer, index in its phase list) and its write accesses.
struct Tensor {
  int layer = -1, kernel = -1;
  std::vector<int> access;
  bool valid() const { return layer >= 0; }
};

// A host kernel under edit: accesses keep stable ids (killed ones are dropped when written back).
struct Edit {
  std::vector<GlobalAccess> access;
  std::vector<bool> alive;
};

bool same_size(double a, double b) { return std::abs(a - b) <= 1e-3 * std::max(a, b) && a > 0; }

// Merges `a` into `b` (both reads or both writes).
void absorb(GlobalAccess& b, const GlobalAccess& a) {
  const double ua = a.unique_bytes < 0 ? a.bytes : a.unique_bytes;
  const double ub = b.unique_bytes < 0 ? b.bytes : b.unique_bytes;
  b.unique_bytes = a.unique_bytes < 0 && b.unique_bytes < 0 ? -1 : ua + ub;
  b.bytes += a.bytes;
}

// Fits the accesses into the kernel model's kMaxGlobalAccesses by merging the smallest same-direction
// streams, preferring ones of equal vector width and stride.
std::vector<GlobalAccess> fit(std::vector<GlobalAccess> acc) {
  while (acc.size() > static_cast<std::size_t>(kMaxGlobalAccesses)) {
    std::size_t best_i = 0, best_j = 0;
    double best = -1;
    for (int pass = 0; pass < 2 && best < 0; ++pass) {
      for (std::size_t i = 0; i < acc.size(); ++i) {
        for (std::size_t j = i + 1; j < acc.size(); ++j) {
          if (acc[i].write != acc[j].write) continue;
          if (pass == 0 && (acc[i].element_bytes != acc[j].element_bytes ||
                            acc[i].stride_elements != acc[j].stride_elements)) continue;
          const double size = acc[i].bytes + acc[j].bytes;
          if (best < 0 || size < best) best = size, best_i = i, best_j = j;
        }
      }
    }
    if (best < 0) throw std::logic_error("fusion: cannot fit the accesses of a fused kernel");
    absorb(acc[best_i], acc[best_j]);
    acc.erase(acc.begin() + static_cast<std::ptrdiff_t>(best_j));
  }
  return acc;
}

std::vector<int> write_ids(const Kernel& k, bool last) {
  std::vector<int> ids;
  for (int a = 0; a < k.work.global_count; ++a) {
    if (k.work.global[static_cast<std::size_t>(a)].write) ids.push_back(a);
  }
  if (ids.empty()) return ids;
  return {last ? ids.back() : ids.front()};
}

class Fuser {
 public:
  Fuser(std::vector<LayerKernels>& k, const std::vector<FusionLayer>& layers, FusionScope scope)
      : k_(k), layers_(layers), scope_(scope), consumers_(layers.size()) {
    if (k.size() != layers.size()) throw std::invalid_argument("fusion: kernel and layer lists differ in length");
    for (std::size_t i = 0; i < layers.size(); ++i) {
      for (int in : layers[i].inputs) {
        if (in >= static_cast<int>(i) || in < -1) throw std::invalid_argument("fusion: layer input out of range");
        if (in >= 0) consumers_[static_cast<std::size_t>(in)].push_back(static_cast<int>(i));
      }
    }
  }

  FusionStats run() {
    if (scope_ == FusionScope::none) return stats_;
    const int n = static_cast<int>(layers_.size());
    // Where each layer's output (forward) and input gradient (backward) is written, before any edit:
    // edits only kill or append accesses, so these ids stay valid.
    std::vector<Tensor> out(layers_.size()), grad(layers_.size());
    for (int i = 0; i < n; ++i) {
      out[i] = writer(Phase::forward, i, true);
      grad[i] = writer(Phase::backward, i, false);
    }
    for (int i = 0; i < n; ++i) fuse_forward(i, out);
    for (int i = n; i-- > 0;) fuse_backward(i, grad);
    write_back();
    return stats_;
  }

 private:
  std::vector<Kernel>& list(Phase p, int layer) {
    return p == Phase::forward ? k_[static_cast<std::size_t>(layer)].forward
                               : k_[static_cast<std::size_t>(layer)].backward_data;
  }
  const LayerTraits& traits(int layer) const { return layers_[static_cast<std::size_t>(layer)].traits; }
  const std::vector<int>& consumers(int layer) const { return consumers_[static_cast<std::size_t>(layer)]; }

  // The output of a layer's forward (the last kernel that writes, its last write) or its input gradient
  // (the first backward-data kernel that writes, its first write).
  Tensor writer(Phase p, int layer, bool last) {
    const std::vector<Kernel>& ks = list(p, layer);
    for (std::size_t j = 0; j < ks.size(); ++j) {
      const std::size_t idx = last ? ks.size() - 1 - j : j;
      std::vector<int> ids = write_ids(ks[idx], last);
      if (!ids.empty()) return {layer, static_cast<int>(idx), ids};
    }
    return {};
  }

  bool host_allowed(int owner) const {
    return scope_ == FusionScope::epilogue || forward_fusable(traits(owner)) || is_norm(traits(owner));
  }

  Edit& edit(Phase p, int layer, int kernel) {
    auto [it, fresh] = edits_.try_emplace(std::make_tuple(p, layer, kernel));
    if (fresh) {
      const Kernel& k = list(p, layer)[static_cast<std::size_t>(kernel)];
      for (int a = 0; a < k.work.global_count; ++a) it->second.access.push_back(k.work.global[static_cast<std::size_t>(a)]);
      it->second.alive.assign(it->second.access.size(), true);
    }
    return it->second;
  }

  double bytes(Phase p, const Tensor& t) {
    Edit& e = edit(p, t.layer, t.kernel);
    double sum = 0;
    for (int a : t.access) sum += e.alive[static_cast<std::size_t>(a)] ? e.access[static_cast<std::size_t>(a)].bytes : 0;
    return sum * static_cast<double>(list(p, t.layer)[static_cast<std::size_t>(t.kernel)].count);
  }

  // Bytes of the first `n` reads of a kernel, over all its launches.
  static double leading_reads(const Kernel& k, int n) {
    double sum = 0;
    for (int a = 0; a < k.work.global_count && n > 0; ++a) {
      const GlobalAccess& g = k.work.global[static_cast<std::size_t>(a)];
      if (!g.write) sum += g.bytes, --n;
    }
    return sum * static_cast<double>(k.count);
  }

  // Moves kernel `c` into the host kernel: the host's accesses in `kill` are dropped, c's first
  // `skip_reads` reads are dropped (they read what the host now holds on chip), the rest of c's work is
  // added per host launch. Returns the ids of c's first `outputs` writes in the host.
  std::vector<int> merge(Phase p, int host_layer, int host_kernel, const std::vector<int>& kill, const Kernel& c,
                         int skip_reads, int outputs) {
    Edit& e = edit(p, host_layer, host_kernel);
    Kernel& h = list(p, host_layer)[static_cast<std::size_t>(host_kernel)];
    const double hn = static_cast<double>(h.count), f = static_cast<double>(c.count) / hn;
    for (int a : kill) {
      if (!e.alive[static_cast<std::size_t>(a)]) continue;
      e.alive[static_cast<std::size_t>(a)] = false;
      stats_.bytes_removed += e.access[static_cast<std::size_t>(a)].bytes * hn;
    }
    std::vector<int> out_ids;
    for (int a = 0; a < c.work.global_count; ++a) {
      GlobalAccess g = c.work.global[static_cast<std::size_t>(a)];
      if (!g.write && skip_reads > 0) {
        --skip_reads;
        stats_.bytes_removed += g.bytes * static_cast<double>(c.count);
        continue;
      }
      g.bytes *= f;
      if (g.unique_bytes >= 0) g.unique_bytes *= f;
      if (g.write && static_cast<int>(out_ids.size()) < outputs) out_ids.push_back(static_cast<int>(e.access.size()));
      e.access.push_back(g);
      e.alive.push_back(true);
    }
    h.work.flops += c.work.flops * f;
    if (h.work.issued_flops > 0) h.work.issued_flops += c.work.flops * f;
    h.work.requests_in_flight = std::max(h.work.requests_in_flight, c.work.requests_in_flight);
    stats_.launches_removed += c.count;
    return out_ids;
  }

  void fuse_forward(int i, std::vector<Tensor>& out) {
    std::vector<Kernel>& fwd = list(Phase::forward, i);
    if (!forward_fusable(traits(i)) || fwd.size() != 1) return;
    int producer = -1;
    for (int in : layers_[static_cast<std::size_t>(i)].inputs) producer = std::max(producer, in);
    if (producer < 0) return;  // fed by network inputs only
    const Kernel c = fwd[0];
    const int reads = traits(i).input_parts;  // swiglu: [gate, up] are the two halves of one tensor
    const Tensor& t = out[static_cast<std::size_t>(producer)];
    // Epilogue: computed where the producer's output is still in registers.
    if (t.valid() && host_allowed(t.layer) && same_size(bytes(Phase::forward, t), leading_reads(c, reads))) {
      const bool write_needed = consumers(producer).size() > 1 || saves_input(traits(i)) || saves_output(traits(producer));
      out[static_cast<std::size_t>(i)] = {t.layer, t.kernel,
                                          merge(Phase::forward, t.layer, t.kernel, write_needed ? std::vector<int>{} : t.access,
                                                c, reads, 1)};
      fwd.clear();
      ++stats_.forward_fused;
      return;
    }
    // Prologue: a normalization reading this output computes it on the fly from this layer's inputs. Norms
    // save their input for backward, so the output is still written; the norm's read of it goes.
    for (int d : consumers(i)) {
      const std::vector<int>& d_in = layers_[static_cast<std::size_t>(d)].inputs;
      std::vector<Kernel>& host = list(Phase::forward, d);
      if (!is_norm(traits(d)) || d_in.size() != 1 || host.empty()) continue;
      const Kernel& h = host[0];
      int first_read = -1;
      for (int a = 0; a < h.work.global_count && first_read < 0; ++a) {
        if (!h.work.global[static_cast<std::size_t>(a)].write) first_read = a;
      }
      if (first_read < 0) continue;
      const Tensor read{d, 0, {first_read}};
      if (!same_size(bytes(Phase::forward, read), bytes_written(c))) continue;
      out[static_cast<std::size_t>(i)] = {d, 0, merge(Phase::forward, d, 0, read.access, c, 0, 1)};
      fwd.clear();
      ++stats_.forward_fused;
      return;
    }
  }

  static double bytes_written(const Kernel& k) {
    for (int a = 0; a < k.work.global_count; ++a) {
      if (k.work.global[static_cast<std::size_t>(a)].write) return k.work.global[static_cast<std::size_t>(a)].bytes * static_cast<double>(k.count);
    }
    return 0;
  }

  void fuse_backward(int i, std::vector<Tensor>& grad) {
    std::vector<Kernel>& bwd = list(Phase::backward, i);
    if (!backward_fusable(traits(i)) || bwd.size() != 1) return;
    bool fed_by_layer = false;
    for (int in : layers_[static_cast<std::size_t>(i)].inputs) fed_by_layer |= in >= 0;
    if (!fed_by_layer) return;  // the step runs no backward-data for it
    // The layer whose input gradient is this layer's output gradient: the single consumer, through
    // residual adds (no backward kernel, the gradient passes unchanged) with a single consumer each.
    if (consumers(i).size() != 1) return;  // several gradients are summed first
    int d = consumers(i)[0];
    bool through_add = false;
    while (traits(d).passes_gradient && list(Phase::backward, d).empty() && !grad[static_cast<std::size_t>(d)].valid()) {
      if (consumers(d).size() != 1) return;
      through_add = true;
      d = consumers(d)[0];
    }
    if (layers_[static_cast<std::size_t>(d)].inputs.size() != 1) return;  // which input's gradient is unknown
    const Tensor& t = grad[static_cast<std::size_t>(d)];
    const Kernel c = bwd[0];
    if (!t.valid() || !host_allowed(t.layer) || !same_size(bytes(Phase::backward, t), leading_reads(c, 1))) return;
    // Past a residual add the gradient also flows down the skip path, so it must still be written.
    const int outputs = traits(i).input_parts;  // swiglu: d gate and d up
    grad[static_cast<std::size_t>(i)] = {t.layer, t.kernel,
                                         merge(Phase::backward, t.layer, t.kernel, through_add ? std::vector<int>{} : t.access,
                                               c, 1, outputs)};
    bwd.clear();
    ++stats_.backward_fused;
  }

  void write_back() {
    for (auto& [key, e] : edits_) {
      const auto [p, layer, kernel] = key;
      std::vector<GlobalAccess> alive;
      for (std::size_t a = 0; a < e.access.size(); ++a) {
        if (e.alive[a]) alive.push_back(e.access[a]);
      }
      alive = fit(std::move(alive));
      KernelWork& w = list(p, layer)[static_cast<std::size_t>(kernel)].work;
      w.global = {};
      w.global_count = 0;
      for (const GlobalAccess& g : alive) w.add(g);
    }
  }

  std::vector<LayerKernels>& k_;
  const std::vector<FusionLayer>& layers_;
  FusionScope scope_;
  std::vector<std::vector<int>> consumers_;
  std::map<std::tuple<Phase, int, int>, Edit> edits_;
  FusionStats stats_;
};

}  // namespace


std::vector<FusionLayer> fusion_layers(const Model& model) {
  std::vector<FusionLayer> out;
  for (const Network& net : model.networks) {
    std::vector<int> index(net.nodes().size(), -1);  // node -> position in `out`
    for (std::size_t n = 0; n < net.nodes().size(); ++n) {
      const LayerNode& node = net.nodes()[n];
      if (!node.layer) continue;
      FusionLayer l{node.layer->type(), node.layer->traits(), {}};
      for (int in : node.inputs) l.inputs.push_back(index[static_cast<std::size_t>(in)]);
      index[n] = static_cast<int>(out.size());
      out.push_back(std::move(l));
    }
  }
  return out;
}

FusionStats fuse_elementwise_chains(std::vector<LayerKernels>& per_layer, const std::vector<FusionLayer>& layers,
                                    FusionScope scope) {
  return Fuser(per_layer, layers, scope).run();
}

}  // namespace hpcsim
