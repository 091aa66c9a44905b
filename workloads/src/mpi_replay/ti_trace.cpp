#include "workloads/mpi_replay/ti_trace.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string_view>

#include "configs/config_error.h"
#include "configs/count_limits.h"
#include "configs/input_limits.h"

namespace hpcsim {

namespace {

// The world's size is held to the `ranks` count limit (configs/count_limits.h, --limit ranks=N); a rank
// number above every possible limit is not a rank.
constexpr long kMaxRankNumber = 1L << 30;
int rank_limit() { return static_cast<int>(std::min<double>(count_limit(CountLimit::ranks), kMaxRankNumber)); }
constexpr double kMaxBytes = 1125899906842624.0;  // 1 PiB in one message or block
constexpr double kMaxFlops = 1e24;

// SimGrid's predefined datatype ids (smpi_datatype.cpp) and their sizes.
double datatype_size(int id) {
  switch (id) {
    case 0: return 8;   // MPI_DOUBLE
    case 1: return 4;   // MPI_INT
    case 2: return 1;   // MPI_CHAR
    case 3: return 2;   // MPI_SHORT
    case 4: return 8;   // MPI_LONG
    case 5: return 4;   // MPI_FLOAT
    case 6: return 1;   // MPI_BYTE
    case 7: return 8;   // MPI_LONG_LONG
    case 8: return 1;   // MPI_SIGNED_CHAR
    case 9: return 1;   // MPI_UNSIGNED_CHAR
    case 10: return 2;  // MPI_UNSIGNED_SHORT
    case 11: return 4;  // MPI_UNSIGNED
    case 12: return 8;  // MPI_UNSIGNED_LONG
    case 13: return 8;  // MPI_UNSIGNED_LONG_LONG
    default: return 0;
  }
}

struct Token {
  std::string_view text;
  int column;
};

struct Action {
  std::string_view name;
  TiKind kind;
  MpiCollective op;
};

constexpr Action kActions[] = {
    {"init", TiKind::init, MpiCollective::barrier},
    {"finalize", TiKind::finalize, MpiCollective::barrier},
    {"comm_size", TiKind::comm_size, MpiCollective::barrier},
    {"compute", TiKind::compute, MpiCollective::barrier},
    {"sleep", TiKind::sleep, MpiCollective::barrier},
    {"send", TiKind::send, MpiCollective::barrier},
    {"isend", TiKind::isend, MpiCollective::barrier},
    {"recv", TiKind::recv, MpiCollective::barrier},
    {"irecv", TiKind::irecv, MpiCollective::barrier},
    {"test", TiKind::test, MpiCollective::barrier},
    {"wait", TiKind::wait, MpiCollective::barrier},
    {"waitall", TiKind::waitall, MpiCollective::barrier},
    {"barrier", TiKind::collective, MpiCollective::barrier},
    {"bcast", TiKind::collective, MpiCollective::bcast},
    {"reduce", TiKind::collective, MpiCollective::reduce},
    {"allreduce", TiKind::collective, MpiCollective::allreduce},
    {"alltoall", TiKind::collective, MpiCollective::alltoall},
    {"alltoallv", TiKind::collective, MpiCollective::alltoallv},
    {"gather", TiKind::collective, MpiCollective::gather},
    {"gatherv", TiKind::collective, MpiCollective::gatherv},
    {"allgather", TiKind::collective, MpiCollective::allgather},
    {"allgatherv", TiKind::collective, MpiCollective::allgatherv},
    {"reducescatter", TiKind::collective, MpiCollective::reducescatter},
    {"scatter", TiKind::collective, MpiCollective::scatter},
    {"scatterv", TiKind::collective, MpiCollective::scatterv},
};

std::string action_list() {
  std::string s;
  for (const Action& a : kActions) s += (s.empty() ? "" : ", ") + std::string(a.name);  // NOLINT
  return s;
}

class Parser {
 public:
  Parser(TiTrace& t, std::uint16_t file_index, std::optional<int> only_rank)
      : t_(t), file_(t.files[file_index]), index_(file_index), only_rank_(only_rank),
        action_limit_(static_cast<std::uint64_t>(std::min(count_limit(CountLimit::actions), 1e18))) {}

  void parse(std::string_view text) {
    std::size_t pos = 0;
    int line = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string_view::npos) end = text.size();
      ++line;
      line_ = line;
      tokens_.clear();
      std::string_view l = text.substr(pos, end - pos);
      for (std::size_t i = 0; i < l.size();) {
        while (i < l.size() && (l[i] == ' ' || l[i] == '\t' || l[i] == '\r')) ++i;
        if (i >= l.size()) break;
        const std::size_t b = i;
        while (i < l.size() && l[i] != ' ' && l[i] != '\t' && l[i] != '\r') ++i;
        tokens_.push_back({l.substr(b, i - b), static_cast<int>(b) + 1});
      }
      pos = end + 1;
      if (tokens_.empty() || tokens_[0].text[0] == '#') continue;
      action();
    }
  }

 private:
  [[noreturn]] void fail(int column, const std::string& message) const {
    throw ConfigError(SourceLoc{file_, line_, column}, message);
  }
  const Token& arg(std::size_t k, const char* what) {
    if (k >= tokens_.size())
      fail(static_cast<int>(tokens_.back().column + tokens_.back().text.size()),
           std::string(name_) + ": missing " + what);
    return tokens_[k];
  }
  double number(std::size_t k, const char* what, double max) {
    const Token& tk = arg(k, what);
    double v = 0;
    const auto r = std::from_chars(tk.text.data(), tk.text.data() + tk.text.size(), v);
    if (r.ec != std::errc() || r.ptr != tk.text.data() + tk.text.size())
      fail(tk.column, std::string(name_) + ": " + what + " must be a number, got '" + std::string(tk.text) + "'");
    if (!std::isfinite(v) || v < 0) fail(tk.column, std::string(name_) + ": " + what + " must be >= 0, got '" + std::string(tk.text) + "'");
    if (v > max) fail(tk.column, std::string(name_) + ": " + what + " is above the limit (" + std::to_string(max) + ")");
    return v;
  }
  long integer(std::size_t k, const char* what, long lo, long hi) {
    const Token& tk = arg(k, what);
    long v = 0;
    const auto r = std::from_chars(tk.text.data(), tk.text.data() + tk.text.size(), v);
    if (r.ec != std::errc() || r.ptr != tk.text.data() + tk.text.size() || v < lo || v > hi)
      fail(tk.column, std::string(name_) + ": " + what + " must be a whole number in [" + std::to_string(lo) + ", " +
                          std::to_string(hi) + "], got '" + std::string(tk.text) + "'");
    return v;
  }
  int rank_arg(std::size_t k, const char* what) { return static_cast<int>(integer(k, what, 0, t_.ranks - 1)); }
  double dtype(std::size_t k, double fallback) {
    if (k >= tokens_.size()) return fallback;
    const long id = integer(k, "datatype", -1000000, 1000000);
    const double s = datatype_size(static_cast<int>(id));
    if (s == 0) fail(tokens_[k].column, std::string(name_) + ": unknown datatype id " + std::to_string(id) + " (SimGrid ids 0-13)");
    return s;
  }
  void at_most(std::size_t n) {
    if (tokens_.size() > n) fail(tokens_[n].column, std::string(name_) + ": unexpected argument '" + std::string(tokens_[n].text) + "'");
  }
  std::uint32_t vec(std::size_t first, const char* what, double size) {
    const std::uint32_t at = static_cast<std::uint32_t>(t_.counts.size());
    for (int i = 0; i < t_.ranks; ++i) t_.counts.push_back(number(first + i, what, kMaxBytes) * size);
    return at;
  }

  void action() {
    const Token& r = tokens_[0];
    long rank = 0;
    const auto rr = std::from_chars(r.text.data(), r.text.data() + r.text.size(), rank);
    if (rr.ec != std::errc() || rr.ptr != r.text.data() + r.text.size() || rank < 0)
      fail(r.column, "expected a rank number first, got '" + std::string(r.text) + "'");
    if (rank >= t_.ranks)
      fail(r.column, "rank " + std::to_string(rank) + " is outside the world of " + std::to_string(t_.ranks) + " ranks");
    if (only_rank_ && rank != *only_rank_)
      fail(r.column, "this file is rank " + std::to_string(*only_rank_) + "'s trace, but the line is rank " + std::to_string(rank) + "'s");
    if (tokens_.size() < 2) fail(static_cast<int>(r.column + r.text.size()), "missing the action after the rank");
    const Token& an = tokens_[1];
    const Action* found = nullptr;
    for (const Action& a : kActions)
      if (an.text == a.name) {
        found = &a;
        break;
      }
    if (!found) {
      // "comm_split"/"comm_dup" create communicators hpcsim does not model; they cost nothing in SimGrid.
      if (an.text == "comm_split" || an.text == "comm_dup") return;
      fail(an.column, "unknown action '" + std::string(an.text) + "' (known: " + action_list() + ")");
    }
    name_ = found->name.data();
    TiAction a;
    a.kind = found->kind;
    a.op = found->op;
    a.file = index_;
    a.line = static_cast<std::uint32_t>(line_);
    a.counts = a.recv_counts = kNoCounts;
    double& def = default_type_[rank];
    const int n = t_.ranks;
    switch (a.kind) {
      case TiKind::init:
        at_most(3);
        def = tokens_.size() > 2 ? 8 : 1;  // SimGrid: "init <x>" makes MPI_DOUBLE the default, else MPI_BYTE
        break;
      case TiKind::finalize: at_most(2); break;
      case TiKind::comm_size:
        integer(2, "communicator size", 1, rank_limit());
        at_most(3);
        break;
      case TiKind::compute: a.bytes = number(2, "FLOPs", kMaxFlops); at_most(3); break;
      case TiKind::sleep: a.bytes = number(2, "seconds", input_limits::max_time_s); at_most(3); break;
      case TiKind::send:
      case TiKind::isend:
      case TiKind::recv:
      case TiKind::irecv:
        a.peer = rank_arg(2, a.kind == TiKind::send || a.kind == TiKind::isend ? "destination rank" : "source rank");
        a.tag = static_cast<int>(integer(3, "tag", 0, 1 << 30));
        a.bytes = number(4, "count", kMaxBytes) * dtype(5, def);
        at_most(6);
        break;
      case TiKind::test:
      case TiKind::wait:
        if (tokens_.size() > 2) {
          a.has_key = true;
          a.peer = rank_arg(2, "source rank");
          a.peer2 = rank_arg(3, "destination rank");
          a.tag = static_cast<int>(integer(4, "tag", 0, 1 << 30));
          at_most(5);
        }
        break;
      case TiKind::waitall: at_most(2); break;
      case TiKind::collective: collective(a, def, n); break;
    }
    if (a.kind == TiKind::collective && a.elements == 0 && a.bytes > 0) a.elements = a.bytes;
    if (++t_.parsed > action_limit_) check_count(CountLimit::actions, static_cast<double>(t_.parsed), SourceLoc{file_, line_, 1}, "the trace");
    t_.actions[rank].push_back(a);
  }

  void collective(TiAction& a, double def, int n) {
    switch (a.op) {
      case MpiCollective::barrier: at_most(2); break;
      case MpiCollective::bcast: {
        const double c = number(2, "count", kMaxBytes);
        if (tokens_.size() > 3) a.peer = rank_arg(3, "root");
        const double s = dtype(4, def);
        a.bytes = c * s;
        a.elements = c;
        at_most(5);
        break;
      }
      case MpiCollective::reduce: {
        const double c = number(2, "count", kMaxBytes);
        a.compute = number(3, "FLOPs", kMaxFlops);
        if (tokens_.size() > 4) a.peer = rank_arg(4, "root");
        const double s = dtype(5, def);
        a.bytes = c * s;
        a.elements = c;
        at_most(6);
        break;
      }
      case MpiCollective::allreduce: {
        const double c = number(2, "count", kMaxBytes);
        a.compute = number(3, "FLOPs", kMaxFlops);
        const double s = dtype(4, def);
        a.bytes = c * s;
        a.elements = c;
        at_most(5);
        break;
      }
      case MpiCollective::alltoall:
      case MpiCollective::allgather: {
        const double c = number(2, "send count", kMaxBytes);
        number(3, "receive count", kMaxBytes);
        const double s = dtype(4, def);
        dtype(5, def);
        a.bytes = c * s;
        a.elements = c;
        at_most(6);
        break;
      }
      case MpiCollective::gather:
      case MpiCollective::scatter: {
        const double c = number(2, "send count", kMaxBytes);
        number(3, "receive count", kMaxBytes);
        a.peer = rank_arg(4, "root");
        const double s = dtype(5, def);
        dtype(6, def);
        a.bytes = c * s;
        a.elements = c;
        at_most(7);
        break;
      }
      case MpiCollective::alltoallv: {
        // send_size sendcounts[n] recv_size recvcounts[n] [send_type recv_type]
        number(2, "send buffer size", kMaxBytes * n);
        const std::size_t rs = 3 + static_cast<std::size_t>(n);
        const double s = dtype(rs + 1 + n, def);
        const double rsz = dtype(rs + 2 + n, def);
        a.counts = vec(3, "send count", s);
        number(rs, "receive buffer size", kMaxBytes * n);
        a.recv_counts = vec(rs + 1, "receive count", rsz);
        at_most(rs + 3 + n);
        break;
      }
      case MpiCollective::gatherv: {
        // send_count recvcounts[n] root [send_type recv_type]
        const double c = number(2, "send count", kMaxBytes);
        const std::size_t root_at = 3 + static_cast<std::size_t>(n);
        const double s = dtype(root_at + 1, def);
        const double rsz = dtype(root_at + 2, def);
        a.counts = vec(3, "receive count", rsz);
        a.peer = rank_arg(root_at, "root");
        a.bytes = c * s;
        at_most(root_at + 3);
        break;
      }
      case MpiCollective::scatterv: {
        // sendcounts[n] recv_count root [send_type recv_type]
        const std::size_t rc = 2 + static_cast<std::size_t>(n);
        const double s = dtype(rc + 2, def);
        const double rsz = dtype(rc + 3, def);
        a.counts = vec(2, "send count", s);
        a.bytes = number(rc, "receive count", kMaxBytes) * rsz;
        a.peer = rank_arg(rc + 1, "root");
        at_most(rc + 4);
        break;
      }
      case MpiCollective::allgatherv: {
        // send_count recvcounts[n] [send_type recv_type]
        const double c = number(2, "send count", kMaxBytes);
        const std::size_t after = 3 + static_cast<std::size_t>(n);
        const double s = dtype(after, def);
        const double rsz = dtype(after + 1, def);
        a.counts = vec(3, "receive count", rsz);
        a.bytes = c * s;
        a.elements = c;
        at_most(after + 2);
        break;
      }
      case MpiCollective::reducescatter: {
        // recvcounts[n] comp_size [datatype]
        const std::size_t after = 2 + static_cast<std::size_t>(n);
        const double s = dtype(after + 1, def);
        a.counts = vec(2, "receive count", s);
        a.compute = number(after, "FLOPs", kMaxFlops);
        double total = 0;
        for (int i = 0; i < n; ++i) total += t_.counts[a.counts + i];
        a.bytes = total;
        a.elements = total / s;
        at_most(after + 2);
        break;
      }
    }
  }

  TiTrace& t_;
  const std::string& file_;
  std::uint16_t index_;
  std::optional<int> only_rank_;
  std::uint64_t action_limit_;
  std::vector<Token> tokens_;
  const char* name_ = "";
  int line_ = 0;

 public:
  std::vector<double> default_type_;
};

std::string slurp(const std::string& path, const SourceLoc& where) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(where, "cannot read '" + path + "'");
  check_trace_size(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The first token of the first line that is not empty or a comment, and where it is.
std::optional<Token> first_token(std::string_view text, int& line) {
  std::size_t pos = 0;
  line = 0;
  while (pos < text.size()) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    ++line;
    std::string_view l = text.substr(pos, end - pos);
    const std::size_t b = l.find_first_not_of(" \t\r");
    if (b != std::string_view::npos && l[b] != '#') {
      const std::size_t e = l.find_first_of(" \t\r", b);
      return Token{l.substr(b, e == std::string_view::npos ? l.size() - b : e - b), static_cast<int>(b) + 1};
    }
    pos = end + 1;
  }
  return std::nullopt;
}

bool is_rank_number(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

// The highest rank a one-file trace names, for its world size (lines whose first token is not a rank
// number are reported by the parser).
int max_rank(std::string_view text, const std::string& file) {
  long best = -1;
  std::size_t pos = 0;
  int line = 0;
  const long limit = rank_limit();
  while (pos < text.size()) {
    ++line;
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    const std::size_t b = l.find_first_not_of(" \t\r");
    if (b != std::string_view::npos) {
      long v = 0;
      const auto r = std::from_chars(l.data() + b, l.data() + l.size(), v);
      if (r.ec == std::errc() && v >= limit && v < kMaxRankNumber)
        check_count(CountLimit::ranks, static_cast<double>(v) + 1, SourceLoc{file, line, static_cast<int>(b) + 1},
                    "the trace (rank " + std::to_string(v) + ")");
      if (r.ec == std::errc() && v > best && v < limit) best = v;
    }
    pos = end + 1;
  }
  return static_cast<int>(best + 1);
}

void check_world(TiTrace& t, std::optional<int> ranks, const std::string& file, int found, const char* how) {
  if (found < 1) return;  // the parser reports the first line that is not an action, else "no action"
  if (ranks && *ranks != found)
    throw ConfigError(SourceLoc{file, 1, 1}, std::string("the trace ") + how + " " + std::to_string(found) +
                                                 " ranks, but " + std::to_string(*ranks) + " were asked for (--np)");
  t.ranks = found;
  t.actions.assign(found, {});
}

}  // namespace

std::uint64_t TiTrace::total_actions() const {
  std::uint64_t n = 0;
  for (const auto& v : actions) n += v.size();
  return n;
}

TiTrace parse_ti_trace(const std::string& text, const std::string& file, std::optional<int> ranks) {
  TiTrace t;
  t.files.push_back(file);
  check_world(t, ranks, file, max_rank(text, file), "names");
  Parser p(t, 0, std::nullopt);
  p.default_type_.assign(t.ranks, 1);
  p.parse(text);
  if (t.ranks < 1) throw ConfigError(SourceLoc{file}, "the trace has no action");
  return t;
}

TiTrace read_ti_trace(const std::string& path, std::optional<int> ranks) {
  const std::string text = slurp(path, SourceLoc{path});
  int line = 0;
  const std::optional<Token> first = first_token(text, line);
  if (!first) throw ConfigError(SourceLoc{path}, "the trace is empty");
  if (is_rank_number(first->text)) return parse_ti_trace(text, path, ranks);
  // A description: one trace file per rank.
  TiTrace t;
  std::vector<std::pair<std::string, SourceLoc>> listed;
  {
    std::size_t pos = 0;
    int ln = 0;
    while (pos < text.size()) {
      std::size_t end = text.find('\n', pos);
      if (end == std::string::npos) end = text.size();
      ++ln;
      std::string l = text.substr(pos, end - pos);
      pos = end + 1;
      const std::size_t b = l.find_first_not_of(" \t\r");
      if (b == std::string::npos || l[b] == '#') continue;
      const std::size_t e = l.find_last_not_of(" \t\r");
      listed.emplace_back(l.substr(b, e - b + 1), SourceLoc{path, ln, static_cast<int>(b) + 1});
      if (listed.size() > static_cast<std::size_t>(rank_limit()))
        check_count(CountLimit::ranks, static_cast<double>(listed.size()), listed.back().second,
                    "the description (one trace file per rank)");
      if (listed.size() > 65535) throw ConfigError(listed.back().second, "more than 65,535 trace files");
    }
  }
  if (ranks && *ranks != static_cast<int>(listed.size()))
    throw ConfigError(listed.back().second, "the description lists " + std::to_string(listed.size()) +
                                                " trace files (one per rank), but " + std::to_string(*ranks) +
                                                " ranks were asked for (--np)");
  t.ranks = static_cast<int>(listed.size());
  t.actions.assign(t.ranks, {});
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  std::vector<double> defaults(t.ranks, 1);
  for (int r = 0; r < t.ranks; ++r) {
    const std::filesystem::path p = std::filesystem::path(listed[r].first).is_absolute() ? std::filesystem::path(listed[r].first)
                                                                                        : dir / listed[r].first;
    t.files.push_back(p.string());
    std::string body;
    {
      std::ifstream in(p, std::ios::binary);
      if (!in) throw ConfigError(listed[r].second, "cannot read the trace file '" + listed[r].first + "'");
      check_trace_size(p.string());
      std::stringstream ss;
      ss << in.rdbuf();
      body = ss.str();
    }
    Parser parser(t, static_cast<std::uint16_t>(r), r);
    parser.default_type_ = defaults;
    parser.parse(body);
  }
  return t;
}

}  // namespace hpcsim
