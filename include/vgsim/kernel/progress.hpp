// One progress line on stderr for runs that may take a while: shown only on a terminal (or when asked), only once
// the run has lasted `delay` (2 s by default, so short runs print nothing), rewritten in place at most 10 times a
// second, and erased by done() (or the destructor) so the output that follows starts on a clean line. Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace vgsim {

class ProgressLine {
 public:
  enum class Show { Never, OnTerminal, Always };
  explicit ProgressLine(std::string label, Show show = Show::OnTerminal,
                        std::chrono::milliseconds delay = std::chrono::milliseconds(2000));
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // "<label>: <state>, <elapsed> s" (rate-limited; `force` ignores the limit, not the delay).
  void update(const std::string& state, bool force = false);
  void done();
  bool enabled() const { return enabled_; }
  double elapsed_s() const;

 private:
  std::string label_;
  bool enabled_;
  std::chrono::milliseconds delay_;
  std::chrono::steady_clock::time_point start_, last_;
  std::size_t shown_width_ = 0;
  std::mutex mu_;
};

// A ProgressLine drawn by a timer thread, for runs whose single steps are long (one size of a 512-rank
// collective can take a minute): every `period` (and only then) the thread rewrites the line with the latest state and
// its elapsed time, so a run that has lasted `delay` shows it even while no step finishes. No thread is started when
// the line is not shown. Output to stdout goes through output(), which erases the line first and keeps the thread from
// redrawing it until the output is written, so stdout is exactly what it would be without the ticker.
class ProgressTicker {
 public:
  explicit ProgressTicker(std::string label, ProgressLine::Show show = ProgressLine::Show::OnTerminal,
                          std::chrono::milliseconds delay = std::chrono::milliseconds(2000),
                          std::chrono::milliseconds period = std::chrono::milliseconds(2000));
  ~ProgressTicker();  // stops the thread and erases the line
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

  void set(const std::string& state);  // the state the next tick draws
  template <class F>
  void output(F write) {
    std::lock_guard<std::mutex> lock(output_mu_);
    line_.done();
    write();
  }
  bool enabled() const { return line_.enabled(); }

 private:
  void tick_loop();
  ProgressLine line_;
  std::chrono::milliseconds period_;
  std::mutex output_mu_;  // held while stdout is written and while the line is drawn
  std::mutex state_mu_;
  std::condition_variable wake_;
  std::string state_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace vgsim
