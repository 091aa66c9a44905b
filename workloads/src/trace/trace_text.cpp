#include "trace_text.h"

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>

#include "configs/config_error.h"

namespace hpcsim::trace_detail {

namespace {

// A regular file is read in one call at its size (a 55 MB trace byte by byte costs a tenth of an import);
// a stream without a size (a pipe) is read to its end.
std::string read_raw(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw ConfigError(SourceLoc{path}, "cannot read the trace file");
  std::string raw;
  if (const std::streamoff size = in.tellg(); size > 0 && in.seekg(0)) {
    raw.resize(static_cast<std::size_t>(size));
    in.read(raw.data(), size);
    if (in.gcount() != size) throw ConfigError(SourceLoc{path}, "cannot read the trace file");
  } else {
    in.clear();
    in.seekg(0);
    in.clear();
    raw.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (in.bad()) throw ConfigError(SourceLoc{path}, "cannot read the trace file");
  return raw;
}

// Inflates every gzip member of `raw` (concatenated members are one stream, as gzip -d reads them).
std::string gunzip(const std::string& raw, const std::string& path) {
  std::string out;
  out.reserve(raw.size() * 8);
  z_stream z{};
  if (inflateInit2(&z, 15 + 32) != Z_OK) throw ConfigError(SourceLoc{path}, "zlib cannot start inflating");
  std::unique_ptr<z_stream, void (*)(z_stream*)> guard(&z, [](z_stream* s) { inflateEnd(s); });
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(raw.data()));
  z.avail_in = static_cast<uInt>(raw.size());
  char buffer[1 << 16];
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buffer);
    z.avail_out = sizeof buffer;
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.append(buffer, sizeof buffer - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // another member follows
      continue;
    }
    if (rc == Z_OK) continue;
    const std::size_t at = raw.size() - z.avail_in;
    if (rc == Z_BUF_ERROR && z.avail_in == 0) {
      throw ConfigError(SourceLoc{path}, "truncated gzip stream: the compressed data ends at byte " + std::to_string(at) +
                                             " before the end of the stream");
    }
    throw ConfigError(SourceLoc{path}, "corrupt gzip stream at compressed byte " + std::to_string(at) + ": " +
                                           (z.msg ? z.msg : "inflate failed"));
  }
  return out;
}

}  // namespace

std::string read_trace_text(const std::string& path) {
  std::string raw = read_raw(path);
  if (raw.size() >= 2 && static_cast<unsigned char>(raw[0]) == 0x1f && static_cast<unsigned char>(raw[1]) == 0x8b) {
    return gunzip(raw, path);
  }
  return raw;
}

TextPosition text_position(const std::string& text, std::size_t offset) {
  offset = std::min(offset, text.size());
  TextPosition p;
  const auto end = text.begin() + static_cast<std::ptrdiff_t>(offset);
  p.line = 1 + static_cast<int>(std::count(text.begin(), end, '\n'));
  const std::size_t nl = text.rfind('\n', offset == 0 ? 0 : offset - 1);
  p.column = static_cast<int>(nl == std::string::npos || offset == 0 ? offset + 1 : offset - nl);
  return p;
}

}  // namespace hpcsim::trace_detail
