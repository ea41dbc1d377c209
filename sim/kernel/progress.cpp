// Progress line on stderr (see include/vgsim/kernel/progress.hpp).
#include "vgsim/kernel/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace vgsim {

ProgressLine::ProgressLine(std::string label, Show show, std::chrono::milliseconds delay)
    : label_(std::move(label)),
      enabled_(show == Show::Always || (show == Show::OnTerminal && ::isatty(STDERR_FILENO))),
      delay_(delay),
      start_(std::chrono::steady_clock::now()),
      last_(start_ - std::chrono::seconds(1)) {}

ProgressLine::~ProgressLine() { done(); }

double ProgressLine::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressLine::update(const std::string& state, bool force) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  std::lock_guard<std::mutex> lock(mu_);
  if (now - start_ < delay_ || (!force && now - last_ < std::chrono::milliseconds(100))) return;
  last_ = now;
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, ", %.1f s", std::chrono::duration<double>(now - start_).count());
  std::string line = label_ + ": " + state + elapsed;
  shown_width_ = std::max(shown_width_, line.size());
  line.append(shown_width_ - line.size(), ' ');  // erase the rest of a longer earlier line
  std::fprintf(stderr, "\r%s", line.c_str());
  std::fflush(stderr);
}

void ProgressLine::done() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!shown_width_) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(shown_width_), "");
  std::fflush(stderr);
  shown_width_ = 0;
}

ProgressTicker::ProgressTicker(std::string label, ProgressLine::Show show, std::chrono::milliseconds delay,
                               std::chrono::milliseconds period)
    : line_(std::move(label), show, delay), period_(period) {
  if (line_.enabled()) thread_ = std::thread([this] { tick_loop(); });
}

ProgressTicker::~ProgressTicker() {
  {
    std::lock_guard<std::mutex> lock(state_mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  std::lock_guard<std::mutex> lock(output_mu_);
  line_.done();
}

void ProgressTicker::set(const std::string& state) {
  if (!line_.enabled()) return;
  std::lock_guard<std::mutex> lock(state_mu_);
  state_ = state;  // drawn by the next tick: the line changes at most once a period
}

void ProgressTicker::tick_loop() {
  std::unique_lock<std::mutex> lock(state_mu_);
  while (!wake_.wait_for(lock, period_, [this] { return stop_; })) {
    const std::string state = state_;
    lock.unlock();
    {
      std::lock_guard<std::mutex> out(output_mu_);
      if (!state.empty()) line_.update(state, true);
    }
    lock.lock();
  }
}

}  // namespace vgsim
