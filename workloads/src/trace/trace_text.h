#pragma once
// The text of a trace file, gunzipped when it is gzip-compressed (told by its first two bytes, not its
// name). A file that cannot be read, or a truncated or corrupt gzip stream, is a ConfigError naming the file
// (and the compressed byte offset where zlib stopped).
#include <string>

namespace hpcsim::trace_detail {

std::string read_trace_text(const std::string& path);

// "line L, column C" of a byte offset in `text` (both from 1), for error messages.
struct TextPosition {
  int line = 1, column = 1;
};
TextPosition text_position(const std::string& text, std::size_t offset);

}  // namespace hpcsim::trace_detail
