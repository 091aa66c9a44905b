// Reads a Kineto trace with nlohmann::json's SAX interface: events are read one at a time into a flat
// record and kept or dropped, so a trace with 100,000 kernels is never held as a JSON tree.
#include "workloads/trace/kineto_trace.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "configs/config_error.h"
#include "trace_text.h"

namespace hpcsim {

namespace {

using nlohmann::json;

// A time in nanoseconds from the text of a microsecond number ("1694039994139246", "4203669603454.206"),
// exactly: a double would round absolute epoch timestamps to a quarter of a microsecond.
std::optional<std::int64_t> micros_text_to_ns(std::string_view s) {
  if (s.find_first_of("eE") != std::string_view::npos) {
    double v = 0;
    if (std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc{} || !std::isfinite(v)) return std::nullopt;
    return static_cast<std::int64_t>(std::llround(v * 1000.0));
  }
  const std::size_t dot = s.find('.');
  std::int64_t whole = 0;
  const std::string_view w = s.substr(0, dot);
  if (!w.empty() && std::from_chars(w.data(), w.data() + w.size(), whole).ec != std::errc{}) return std::nullopt;
  std::int64_t frac = 0;
  if (dot != std::string_view::npos) {
    std::string digits(s.substr(dot + 1, 3));
    digits.resize(3, '0');
    if (std::from_chars(digits.data(), digits.data() + 3, frac).ec != std::errc{}) return std::nullopt;
  }
  const bool negative = !w.empty() && w[0] == '-';
  return whole * 1000 + (negative ? -frac : frac);
}

struct RawEvent {
  std::string ph, cat, name;
  std::optional<std::int64_t> ts_ns, dur_ns;
  std::optional<std::int64_t> external_id, correlation, stream, device, wait_on_stream, rank, tid;
  std::optional<double> registers, smem, occupancy, bytes;
  std::array<int, 3> grid{0, 0, 0}, block{0, 0, 0};
  std::string sync_kind, copy_kind;
  std::string collective_name, dtype;
  std::optional<double> in_nelems, out_nelems, group_size;
  std::vector<std::vector<std::int64_t>> input_dims;
  std::vector<std::string> input_types;
  bool has_grid = false, has_block = false;
};

struct Frame {
  bool array = false;
  std::string key;  // objects: the key of the value being read
  int index = -1;   // arrays: the index of the value being read
};

// The SAX handler. Depths: 1 the root object, 2 a root value (traceEvents array, deviceProperties array,
// distributedInfo object), 3 an event or a device, 4 an event's args, 5-6 arrays inside args.
class Reader {
 public:
  std::vector<RawEvent> gpu, runtime, cpu, waits;
  std::vector<KinetoDevice> devices;
  std::optional<std::int64_t> rank;
  bool saw_events = false;
  std::int64_t events = 0;
  std::size_t error_at = 0;
  std::string error;

  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(std::int64_t v) { return number(static_cast<double>(v), std::to_string(v), v); }
  bool number_unsigned(std::uint64_t v) {
    return number(static_cast<double>(v), std::to_string(v),
                  v > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) ? std::optional<std::int64_t>{}
                                                                                        : std::optional<std::int64_t>(static_cast<std::int64_t>(v)));
  }
  bool number_float(double v, const std::string& text) { return number(v, text, std::nullopt); }
  bool string(std::string& s) {
    advance();
    const std::size_t d = stack_.size();
    if (in_event() && d == 3) {
      const std::string& k = stack_[2].key;
      if (k == "ph") ev_.ph = s;
      else if (k == "cat") ev_.cat = s;
      else if (k == "name") ev_.name = s;
      else if (k == "ts") ev_.ts_ns = micros_text_to_ns(s);
      else if (k == "dur") ev_.dur_ns = micros_text_to_ns(s);
    } else if (in_event() && d == 4) {
      const std::string& k = stack_[3].key;
      if (k == "cuda_sync_kind") ev_.sync_kind = s;
      else if (k == "kind") ev_.copy_kind = s;
      else if (k == "Collective name") ev_.collective_name = s;
      else if (k == "dtype") ev_.dtype = s;
    } else if (in_event() && d == 5 && stack_[3].key == "Input type") {
      ev_.input_types.push_back(s);
    } else if (in_device() && d == 3 && stack_[2].key == "name") {
      dev_.name = s;
    }
    return true;
  }
  bool binary(json::binary_t&) { return true; }
  bool start_object(std::size_t) {
    advance();
    if (stack_.size() == 2 && stack_[1].array && stack_[0].key == "traceEvents") ev_ = RawEvent{};
    if (stack_.size() == 2 && stack_[1].array && stack_[0].key == "deviceProperties") dev_ = KinetoDevice{};
    stack_.push_back(Frame{false, "", -1});
    return true;
  }
  bool key(std::string& k) {
    stack_.back().key = k;
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    if (stack_.size() == 2 && stack_[1].array && stack_[0].key == "traceEvents") keep_event();
    if (stack_.size() == 2 && stack_[1].array && stack_[0].key == "deviceProperties") devices.push_back(dev_);
    return true;
  }
  bool start_array(std::size_t) {
    advance();
    if (stack_.size() == 1 && stack_[0].key == "traceEvents") saw_events = true;
    if (in_event() && stack_.size() == 5 && stack_[3].key == "Input Dims") ev_.input_dims.emplace_back();
    stack_.push_back(Frame{true, "", -1});
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
    error_at = position;
    error = e.what();
    return false;
  }

 private:
  std::vector<Frame> stack_;
  RawEvent ev_;
  KinetoDevice dev_;

  // Moves an array frame to its next element before a value is read.
  void advance() {
    if (!stack_.empty() && stack_.back().array) ++stack_.back().index;
  }
  bool in_event() const { return stack_.size() >= 3 && stack_[0].key == "traceEvents" && stack_[1].array; }
  bool in_device() const { return stack_.size() >= 3 && stack_[0].key == "deviceProperties" && stack_[1].array; }

  bool number(double v, const std::string& text, std::optional<std::int64_t> exact) {
    advance();
    const std::size_t d = stack_.size();
    auto as_int = [&]() -> std::optional<std::int64_t> {
      if (exact) return exact;
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9e18) return static_cast<std::int64_t>(v);
      return std::nullopt;
    };
    if (in_event() && d == 3) {
      const std::string& k = stack_[2].key;
      if (k == "ts") ev_.ts_ns = micros_text_to_ns(text);
      else if (k == "dur") ev_.dur_ns = micros_text_to_ns(text);
      else if (k == "tid") ev_.tid = as_int();
    } else if (in_event() && d == 4) {
      const std::string& k = stack_[3].key;
      if (k == "External id") ev_.external_id = as_int();
      else if (k == "correlation") ev_.correlation = as_int();
      else if (k == "stream") ev_.stream = as_int();
      else if (k == "device") ev_.device = as_int();
      else if (k == "wait_on_stream") ev_.wait_on_stream = as_int();
      else if (k == "registers per thread") ev_.registers = v;
      else if (k == "shared memory") ev_.smem = v;
      else if (k == "est. achieved occupancy %") ev_.occupancy = v;
      else if (k == "bytes") ev_.bytes = v;
      else if (k == "In msg nelems") ev_.in_nelems = v;
      else if (k == "Out msg nelems") ev_.out_nelems = v;
      else if (k == "Group size") ev_.group_size = v;
    } else if (in_event() && d == 5) {
      const Frame& f = stack_[4];
      const std::string& k = stack_[3].key;
      if ((k == "grid" || k == "block") && f.index >= 0 && f.index < 3) {
        (k == "grid" ? ev_.grid : ev_.block)[static_cast<std::size_t>(f.index)] = static_cast<int>(v);
        (k == "grid" ? ev_.has_grid : ev_.has_block) = true;
      }
    } else if (in_event() && d == 6 && stack_[3].key == "Input Dims" && !ev_.input_dims.empty()) {
      if (const auto i = as_int()) ev_.input_dims.back().push_back(*i);
    } else if (in_device() && d == 3) {
      const std::string& k = stack_[2].key;
      const int i = static_cast<int>(v);
      if (k == "id") dev_.id = i;
      else if (k == "computeMajor") dev_.compute_major = i;
      else if (k == "computeMinor") dev_.compute_minor = i;
      else if (k == "numSms") dev_.sm_count = i;
      else if (k == "warpSize") dev_.warp_size = i;
      else if (k == "maxThreadsPerMultiprocessor") dev_.max_threads_per_sm = i;
      else if (k == "maxThreadsPerBlock") dev_.max_threads_per_block = i;
      else if (k == "regsPerMultiprocessor") dev_.registers_per_sm = i;
      else if (k == "regsPerBlock") dev_.registers_per_block = i;
      else if (k == "sharedMemPerMultiprocessor" || k == "maxSharedMemoryPerMultiProcessor") dev_.smem_per_sm = i;
      else if (k == "sharedMemPerBlockOptin") dev_.smem_per_block_optin = i;
      else if (k == "totalGlobalMem") dev_.memory_bytes = v;
    } else if (d == 2 && stack_[0].key == "distributedInfo" && !stack_[1].array && stack_[1].key == "rank") {
      rank = as_int();
    }
    return true;
  }

  void keep_event() {
    ++events;
    if (ev_.ph != "X") return;
    if (ev_.cat == "kernel" || ev_.cat == "gpu_memcpy" || ev_.cat == "gpu_memset") {
      gpu.push_back(std::move(ev_));
    } else if (ev_.cat == "cuda_runtime" || ev_.cat == "cuda_driver") {
      if (ev_.correlation && ev_.ts_ns) {
        RawEvent r;
        r.correlation = ev_.correlation;
        r.ts_ns = ev_.ts_ns;
        r.tid = ev_.tid;
        runtime.push_back(std::move(r));
      }
    } else if (ev_.cat == "cpu_op") {
      if (ev_.external_id) cpu.push_back(std::move(ev_));
    } else if (ev_.cat == "cuda_sync" && ev_.sync_kind == "Stream Wait Event") {
      waits.push_back(std::move(ev_));
    }
  }
};

// Bytes of one element of a PyTorch dtype name as record_param_comms writes it ("Float", "BFloat16", ...).
double dtype_bytes(const std::string& d) {
  if (d == "Double" || d == "Long" || d == "ComplexFloat") return 8;
  if (d == "Float" || d == "Int") return 4;
  if (d == "Half" || d == "BFloat16" || d == "Short") return 2;
  if (d == "Byte" || d == "Char" || d == "Bool" || d.rfind("Float8", 0) == 0) return 1;
  return 0;
}

struct CollectiveMeta {
  std::string name;
  double bytes = 0;
  int group = 0;
};

CollectiveMeta collective_meta(const RawEvent& e) {
  CollectiveMeta m;
  m.name = e.collective_name;
  const bool gather = m.name.find("gather") != std::string::npos;
  const std::optional<double> n = gather && e.out_nelems ? e.out_nelems : e.in_nelems;
  if (n && *n > 0) m.bytes = *n * dtype_bytes(e.dtype);
  if (e.group_size) m.group = static_cast<int>(*e.group_size);
  return m;
}

GpuActivityKind kind_of(const std::string& cat) {
  if (cat == "gpu_memcpy") return GpuActivityKind::memcpy;
  if (cat == "gpu_memset") return GpuActivityKind::memset;
  return GpuActivityKind::kernel;
}

std::string copy_kind_of(const RawEvent& e) {
  if (!e.copy_kind.empty() && e.copy_kind.find("Kernel") == std::string::npos) return e.copy_kind;
  for (const char* k : {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP"}) {
    if (e.name.find(k) != std::string::npos) return k;
  }
  return "";
}

}  // namespace

bool is_nccl_kernel(const std::string& name) {
  return name.rfind("ncclKernel", 0) == 0 || name.rfind("ncclDevKernel", 0) == 0 ||
         (name.find("nccl") != std::string::npos && name.find("Kernel") != std::string::npos);
}

KinetoTrace read_kineto_trace(const std::string& path, std::optional<int> device) {
  const std::string text = trace_detail::read_trace_text(path);
  Reader reader;
  const bool ok = json::sax_parse(text, &reader, json::input_format_t::json, true);
  if (!ok) {
    const trace_detail::TextPosition p = trace_detail::text_position(text, reader.error_at > 0 ? reader.error_at - 1 : 0);
    std::string why = reader.error;
    if (const std::size_t colon = why.find(": "); why.rfind("[json.exception", 0) == 0 && colon != std::string::npos) {
      why = why.substr(colon + 2);  // drop nlohmann's "[json.exception.parse_error.101] parse error at ...:" prefix
    }
    throw ConfigError(SourceLoc{path, p.line, p.column},
                      "malformed JSON at byte " + std::to_string(reader.error_at) +
                          (reader.error_at >= text.size() ? " (the end of the file: truncated?)" : "") + ": " + why);
  }
  if (!reader.saw_events) throw ConfigError(SourceLoc{path}, "not a PyTorch profiler trace: it has no traceEvents array");

  KinetoTrace t;
  t.file = path;
  t.events = reader.events;
  t.rank = reader.rank.value_or(-1);
  t.device_count = static_cast<int>(reader.devices.size());

  // The device: as asked, else the one with the most GPU activities.
  std::map<int, std::int64_t> per_device;
  for (const RawEvent& e : reader.gpu) ++per_device[static_cast<int>(e.device.value_or(0))];
  if (per_device.empty()) {
    throw ConfigError(SourceLoc{path}, "the trace has no GPU kernel, memcpy or memset (a CPU-only profile): nothing to replay");
  }
  int dev = per_device.begin()->first;
  if (device) {
    if (!per_device.count(*device)) throw ConfigError(SourceLoc{path}, "the trace has no GPU activity on device " + std::to_string(*device));
    dev = *device;
  } else {
    for (const auto& [d, n] : per_device) {
      if (n > per_device[dev]) dev = d;
    }
  }
  t.device.id = dev;
  for (const KinetoDevice& d : reader.devices) {
    if (d.id == dev) t.device = d;
  }
  if (t.device.registers_per_sm == 0) t.device.registers_per_sm = t.device.registers_per_block;

  std::unordered_map<std::int64_t, const RawEvent*> launch_call;  // correlation -> host call
  launch_call.reserve(reader.runtime.size());
  for (const RawEvent& r : reader.runtime) launch_call.emplace(*r.correlation, &r);
  std::unordered_map<std::int64_t, std::int64_t> op_by_external;  // the last (innermost) op with the id
  op_by_external.reserve(reader.cpu.size());
  // Each host thread's ops as (start, end, index) by start, for traces whose kernels carry the launch's
  // correlation id as their external id (older Kineto): the op is then the innermost one around the launch.
  std::map<std::int64_t, std::vector<std::array<std::int64_t, 3>>> ops_by_thread;
  for (RawEvent& c : reader.cpu) {
    if (c.ts_ns && c.dur_ns) {
      ops_by_thread[c.tid.value_or(0)].push_back({*c.ts_ns, *c.ts_ns + *c.dur_ns, static_cast<std::int64_t>(t.cpu_ops.size())});
    }
    op_by_external[*c.external_id] = static_cast<std::int64_t>(t.cpu_ops.size());
    const CollectiveMeta m = collective_meta(c);
    t.cpu_ops.push_back(KinetoCpuOp{std::move(c.name), *c.external_id, std::move(c.input_dims), std::move(c.input_types), m.name,
                                    m.bytes, m.group});
  }

  for (auto& [tid, ops] : ops_by_thread) std::sort(ops.begin(), ops.end());
  const auto enclosing_op = [&](const RawEvent& call) -> std::int64_t {
    const auto it = ops_by_thread.find(call.tid.value_or(0));
    if (it == ops_by_thread.end()) return -1;
    const auto& ops = it->second;
    const std::int64_t at = *call.ts_ns;
    auto i = std::upper_bound(ops.begin(), ops.end(), std::array<std::int64_t, 3>{at, std::numeric_limits<std::int64_t>::max(), 0});
    for (int steps = 0; i != ops.begin() && steps < 256; ++steps) {  // the latest-starting op that contains it
      --i;
      if ((*i)[1] >= at) return (*i)[2];
    }
    return -1;
  };
  std::int64_t origin = std::numeric_limits<std::int64_t>::max();
  std::size_t index = 0;
  for (const RawEvent& e : reader.gpu) {
    ++index;
    if (e.device.value_or(0) != dev) continue;
    if (!e.ts_ns || !e.dur_ns || *e.dur_ns < 0) {
      throw ConfigError(SourceLoc{path}, "GPU event " + std::to_string(index) + " ('" + e.name.substr(0, 60) +
                                             "') has no valid ts/dur");
    }
    origin = std::min(origin, *e.ts_ns);
  }
  for (const RawEvent& e : reader.gpu) {
    if (e.device.value_or(0) != dev) continue;
    GpuActivity a;
    a.kind = kind_of(e.cat);
    a.name = e.name;
    a.stream = static_cast<int>(e.stream.value_or(0));
    a.start_s = static_cast<double>(*e.ts_ns - origin) * 1e-9;
    a.duration_s = static_cast<double>(*e.dur_ns) * 1e-9;
    a.correlation = e.correlation.value_or(-1);
    a.external_id = e.external_id.value_or(-1);
    if (e.has_grid) a.grid = e.grid;
    if (e.has_block) a.block = e.block;
    if (e.registers) a.registers_per_thread = static_cast<int>(*e.registers);
    if (e.smem) a.smem_per_block = static_cast<int>(*e.smem);
    a.est_occupancy_percent = e.occupancy;
    a.nccl = a.kind == GpuActivityKind::kernel && is_nccl_kernel(a.name);
    a.bytes = e.bytes.value_or(0);
    if (a.kind == GpuActivityKind::memcpy) a.copy_kind = copy_kind_of(e);
    const auto call = launch_call.find(a.correlation);
    if (const auto it = op_by_external.find(a.external_id); it != op_by_external.end()) {
      a.cpu_op = it->second;
    } else if (call != launch_call.end()) {
      a.cpu_op = enclosing_op(*call->second);
    }
    if (a.nccl) {
      const CollectiveMeta m = collective_meta(e);
      a.collective_name = m.name, a.collective_bytes = m.bytes, a.collective_group = m.group;
      if (a.collective_bytes <= 0 && a.cpu_op >= 0) {  // older traces: only the CPU op carries it
        const KinetoCpuOp& op = t.cpu_ops[static_cast<std::size_t>(a.cpu_op)];
        a.collective_name = op.collective_name, a.collective_bytes = op.collective_bytes, a.collective_group = op.collective_group;
      }
    }
    if (call != launch_call.end()) a.launch_s = static_cast<double>(*call->second->ts_ns - origin) * 1e-9;
    t.activities.push_back(std::move(a));
  }
  std::stable_sort(t.activities.begin(), t.activities.end(), [](const GpuActivity& x, const GpuActivity& y) {
    return x.start_s != y.start_s ? x.start_s < y.start_s : x.correlation < y.correlation;
  });
  for (const RawEvent& w : reader.waits) {
    if (w.device.value_or(dev) != dev || !w.stream || !w.wait_on_stream || !w.correlation) continue;
    t.waits.push_back(StreamWait{static_cast<int>(*w.stream), static_cast<int>(*w.wait_on_stream), *w.correlation});
  }
  std::sort(t.waits.begin(), t.waits.end(), [](const StreamWait& x, const StreamWait& y) { return x.correlation < y.correlation; });
  return t;
}

}  // namespace hpcsim
