// One progress line on stderr for runs that may take a while: shown only on a terminal (or when asked), only once
// the run has lasted `delay` (2 s by default, so short runs print nothing), rewritten in place at most 10 times a
// second, and erased by done() (or the destructor) so the output that follows starts on a clean line. Thread-safe.
#pragma once

#include <chrono>
#include <mutex>
#include <string>

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

}  // namespace vgsim
