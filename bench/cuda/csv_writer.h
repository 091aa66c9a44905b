// The CSV contract another component parses: "# key: value" header lines, then the column line, then one row
// per measurement. Everything that writes output goes through here so the format lives in one place.
#pragma once

#include <cstdio>
#include <string>

namespace hcb {

// params column: key=value pairs joined by ';' (no commas or spaces, so the CSV needs no quoting).
class Params {
 public:
  Params& add(const char* key, long long value) { return add(key, std::to_string(value).c_str()); }
  Params& add(const char* key, const char* value) {
    if (!text_.empty()) text_ += ';';
    text_ += key;
    text_ += '=';
    text_ += value;
    return *this;
  }
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

class CsvWriter {
 public:
  explicit CsvWriter(std::FILE* file) : file_(file) {}

  // The first line identifies the format and its version; it is written as-is, without the colon.
  void magic() { std::fputs("# hpcsim-cuda-bench 1\n", file_); }
  void comment(const char* key, const std::string& value) {
    std::fprintf(file_, "# %s: %s\n", key, value.c_str());
  }
  void columns() { std::fputs("benchmark,params,metric,value,unit\n", file_); }

  // Flushed per row: a run that dies later still leaves every finished measurement behind.
  void row(const char* benchmark, const Params& params, const char* metric, double value, const char* unit) {
    std::fprintf(file_, "%s,%s,%s,%.6g,%s\n", benchmark, params.str().c_str(), metric, value, unit);
    std::fflush(file_);
  }

  bool failed() { return std::fflush(file_) != 0 || std::ferror(file_) != 0; }

 private:
  std::FILE* file_;
};

}  // namespace hcb
