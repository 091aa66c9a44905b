#pragma once
// The one progress line of a long command, on stderr: "\rsweep: 12/40 points, 1 failed, 0.4/s, about 30 s left".
// Shown only on a terminal and never with --format json (a pipe or a log gets no carriage returns); every
// command that can run long (sweep, campaign, serve, plan, schedule, run, replay, microbench, io,
// collective) shows it the same way.
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <iostream>
#include <sstream>
#include <string>

namespace hpcsim::cli {

class Progress {
 public:
  // label: the command ("sweep"); unit: what is counted, plural ("points"); total: how many there will be.
  Progress(std::string label, std::string unit, std::size_t total, const std::string& format)
      : label_(std::move(label)), unit_(std::move(unit)), total_(total),
        enabled_(format != "json" && isatty(STDERR_FILENO) != 0), start_(std::chrono::steady_clock::now()) {}

  bool enabled() const { return enabled_; }
  // A total known only once the work starts (0 at construction).
  void set_total(std::size_t total) { total_ = total; }
  // Units of very different cost (a training step's ops: thousands of compute ops pass in a second, then
  // its data-parallel collectives take the minutes): the line shows the time so far instead of a rate and
  // a time left that would mislead.
  void uneven_units() { uneven_ = true; }

  // done of total, `before` of them done before this run started (a resumed sweep), failed of them.
  // At most 4 updates a second are printed, so a caller may call it for every unit.
  void show(std::size_t done, std::size_t failed = 0, std::size_t before = 0, bool force = false) {
    if (!enabled_) return;
    done_ = done, failed_ = failed, before_ = before;
    const auto now = std::chrono::steady_clock::now();
    // The first line waits half a second, so a short run prints none; then at most 4 a second.
    if (!force && (shown_ ? now - last_ < std::chrono::milliseconds(250) : now - start_ < std::chrono::milliseconds(500))) {
      return;
    }
    last_ = now;
    shown_ = true;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const std::size_t ran = done - before;
    std::ostringstream line;
    line << "\r" << label_ << ": " << done << "/" << total_ << " " << unit_;
    if (failed > 0) line << ", " << failed << " failed";
    if (uneven_) {
      line << ", " << static_cast<long long>(elapsed) << " s so far";
    } else if (ran > 0 && elapsed > 0) {
      const double rate = static_cast<double>(ran) / elapsed;
      line.precision(rate < 10 ? 2 : 0);
      line << ", " << std::fixed << rate << "/s";
      if (done < total_) {
        line << ", about " << static_cast<long long>(static_cast<double>(total_ - done) / rate + 0.5) << " s left";
      }
    }
    std::cerr << line.str() << "   " << std::flush;
  }

  // A callback for work that reports (done, total) as it goes, in whatever integer type it counts in.
  auto counter() {
    return [this](auto done, auto total) {
      set_total(static_cast<std::size_t>(total));
      show(static_cast<std::size_t>(done));
    };
  }

  // Shows the last count and ends the line (once something was shown).
  void finish() {
    if (!enabled_ || !shown_) return;
    show(done_, failed_, before_, true);
    std::cerr << "\n";
    shown_ = false;
  }

 private:
  std::string label_, unit_;
  std::size_t total_;
  bool enabled_;
  bool shown_ = false;
  bool uneven_ = false;
  std::size_t done_ = 0, failed_ = 0, before_ = 0;
  std::chrono::steady_clock::time_point start_, last_;
};

// Ends a progress line when the work's scope ends, returning or throwing (an error message then starts on a
// line of its own).
class FinishOnExit {
 public:
  explicit FinishOnExit(Progress& progress) : progress_(progress) {}
  ~FinishOnExit() { progress_.finish(); }
  FinishOnExit(const FinishOnExit&) = delete;
  FinishOnExit& operator=(const FinishOnExit&) = delete;

 private:
  Progress& progress_;
};

}  // namespace hpcsim::cli
