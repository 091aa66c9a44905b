#pragma once
// A unique path under /tmp for one test's store, removed (with SQLite's side files) afterwards.

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>

namespace hpcsim::test {

class TempPath {
 public:
  explicit TempPath(const std::string& tag) {
    static std::atomic<int> counter{0};
    path_ = "/tmp/hpcsim-analysis-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + "-" + tag;
  }
  ~TempPath() {
    std::error_code ignored;
    for (const char* suffix : {"", "-journal", "-wal", "-shm"})
      std::filesystem::remove_all(path_ + suffix, ignored);
  }
  TempPath(const TempPath&) = delete;
  TempPath& operator=(const TempPath&) = delete;

  const std::string& str() const { return path_; }

 private:
  std::string path_;
};

}  // namespace hpcsim::test
