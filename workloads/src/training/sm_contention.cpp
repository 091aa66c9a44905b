#include "sm_contention.h"

#include <algorithm>
#include <stdexcept>

namespace hpcsim::training_detail {

SmContention::SmContention(Simulator& sim, int streams, double contended_rate)
    : sim_(sim), contended_rate_(contended_rate), collectives_(static_cast<std::size_t>(streams), 0),
      running_(static_cast<std::size_t>(streams)) {
  if (!(contended_rate > 0 && contended_rate <= 1)) {
    throw std::invalid_argument("the contended compute rate must be in (0, 1]");
  }
}

double SmContention::rate(int stream) const {
  return collectives_[static_cast<std::size_t>(stream)] > 0 ? contended_rate_ : 1.0;
}

void SmContention::start(int stream, double seconds, Completion done) {
  Running& r = running_.at(static_cast<std::size_t>(stream));
  if (r.done) throw std::logic_error("two compute ops at once on one stream");
  r.remaining_s = seconds;
  r.since = sim_.now();
  r.done = done;
  schedule_finish(stream);
}

void SmContention::schedule_finish(int stream) {
  Running& r = running_[static_cast<std::size_t>(stream)];
  r.finish = sim_.schedule_in(Time::seconds(r.remaining_s / rate(stream)), [this, stream] {
    Running& ended = running_[static_cast<std::size_t>(stream)];
    const Completion done = *ended.done;
    ended.done.reset();
    done();
  });
}

void SmContention::settle(int stream) {
  Running& r = running_[static_cast<std::size_t>(stream)];
  if (!r.done) return;
  r.remaining_s = std::max(0.0, r.remaining_s - (sim_.now() - r.since).to_seconds() * rate(stream));
  r.since = sim_.now();
  sim_.cancel(r.finish);
}

void SmContention::collective_started(int stream) {
  const std::size_t s = static_cast<std::size_t>(stream);
  const bool changes = collectives_.at(s) == 0;
  if (changes) settle(stream);
  ++collectives_[s];
  if (changes && running_[s].done) schedule_finish(stream);
}

void SmContention::collective_ended(int stream) {
  const std::size_t s = static_cast<std::size_t>(stream);
  if (collectives_.at(s) == 0) throw std::logic_error("a collective ended that never started");
  const bool changes = collectives_[s] == 1;
  if (changes) settle(stream);
  --collectives_[s];
  if (changes && running_[s].done) schedule_finish(stream);
}

}  // namespace hpcsim::training_detail
