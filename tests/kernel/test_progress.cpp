// ProgressLine: silent before its delay and when not shown; once shown, each update rewrites one line in place
// ("\r<label>: <state>, <t> s") and done() erases it, so the output that follows starts on a clean line.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

#include "vgsim/kernel/progress.hpp"

namespace {

// Runs `body` with stderr redirected to a temporary file and returns what it wrote.
template <class F>
std::string stderr_of(F body) {
  std::fflush(stderr);
  char path[] = "/tmp/vgsim-progress-XXXXXX";
  const int fd = ::mkstemp(path);
  const int saved = ::dup(STDERR_FILENO);
  ::dup2(fd, STDERR_FILENO);
  body();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(fd);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  std::remove(path);
  return s.str();
}

}  // namespace

using vgsim::ProgressLine;

TEST_CASE("a progress line appears only after its delay, rewrites itself and is erased by done()", "[kernel]") {
  // Shown always, no delay: two forced updates give two "\r"-led lines, done() one "\r<spaces>\r" eraser as wide as
  // the longest line shown.
  const std::string shown = stderr_of([] {
    ProgressLine p("vgsim test", ProgressLine::Show::Always, std::chrono::milliseconds(0));
    p.update("1 of 2 sizes done", true);
    p.update("2 of 2", true);
    p.done();
  });
  CHECK(shown.rfind("\rvgsim test: 1 of 2 sizes done, ", 0) == 0);
  const std::size_t second = shown.find("\rvgsim test: 2 of 2, ");
  REQUIRE(second != std::string::npos);
  const std::size_t first_width = shown.find('\r', 1) - 1;  // "vgsim test: 1 of 2 sizes done, 0.0 s"
  // The shorter second line is padded with spaces to the first one's width, so no stale characters remain.
  CHECK(shown.substr(second + 1, first_width).size() == first_width);
  CHECK(shown.substr(second + 1, first_width).back() == ' ');
  CHECK(shown.substr(shown.size() - first_width - 2) == "\r" + std::string(first_width, ' ') + "\r");

  // Before the delay, or when not shown, nothing at all is written.
  CHECK(stderr_of([] {
          ProgressLine p("vgsim test", ProgressLine::Show::Always, std::chrono::milliseconds(60000));
          p.update("early", true);
        }).empty());
  CHECK(stderr_of([] {
          ProgressLine p("vgsim test", ProgressLine::Show::Never, std::chrono::milliseconds(0));
          p.update("hidden", true);
        }).empty());
  // Updates closer than 100 ms apart are dropped unless forced: two quick updates show once.
  const std::string limited = stderr_of([] {
    ProgressLine p("vgsim test", ProgressLine::Show::Always, std::chrono::milliseconds(0));
    p.update("a");
    p.update("b");
  });
  CHECK(limited.find("vgsim test: a") != std::string::npos);
  CHECK(limited.find("vgsim test: b") == std::string::npos);
}

TEST_CASE("a progress ticker redraws its line on a timer while a step runs, and output() writes on a clean line",
          "[kernel]") {
  using vgsim::ProgressTicker;
  // Period 20 ms, no delay, shown always: during 150 ms with no call at all the timer draws the state about 7 times
  // (at least 2 with slack for a loaded machine); output() erases the line before writing and the destructor erases
  // it once more, so the text written through output() is never glued to a progress line.
  const std::string shown = stderr_of([] {
    ProgressTicker t("vgsim test", ProgressLine::Show::Always, std::chrono::milliseconds(0),
                     std::chrono::milliseconds(20));
    t.set("simulating 8 B");
    std::this_thread::sleep_for(std::chrono::milliseconds(150));
    t.output([] {
      std::fputs("ROW\n", stderr);
      std::fflush(stderr);
    });
  });
  std::size_t draws = 0;
  for (std::size_t at = shown.find("\rvgsim test: simulating 8 B, "); at != std::string::npos;
       at = shown.find("\rvgsim test: simulating 8 B, ", at + 1))
    ++draws;
  CHECK(draws >= 2);
  const std::size_t row = shown.find("ROW\n");
  REQUIRE(row != std::string::npos);
  CHECK(row > 0);
  CHECK(shown[row - 1] == '\r');  // the eraser "\r<spaces>\r" just before the row

  // Not shown: no thread, nothing written, however long it runs.
  CHECK(stderr_of([] {
          ProgressTicker t("vgsim test", ProgressLine::Show::Never, std::chrono::milliseconds(0),
                           std::chrono::milliseconds(5));
          t.set("hidden");
          std::this_thread::sleep_for(std::chrono::milliseconds(30));
        }).empty());
}
