// Unit-string parsing and formatting for Time, Bytes and Bandwidth (see include/vgsim/kernel/units.hpp).
#include "vgsim/kernel/units.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim {

namespace {

// The user's text as quoted in a message: bounded and escaped (input_error.hpp excerpt()).
std::string quote_excerpt(std::string_view text) { return "'" + excerpt(text, 80) + "'"; }

struct NumberAndUnit {
  double value;
  std::string unit;
};

NumberAndUnit split(std::string_view text, const char* what, const char* examples) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' || text[i] == 'e' ||
                             text[i] == 'E' || text[i] == '+' || text[i] == '-')) {
    // Stop at an 'e'/'E' that is not followed by a digit or sign (e.g. "1E" is not an exponent here).
    if ((text[i] == 'e' || text[i] == 'E') &&
        (i + 1 >= text.size() ||
         !(std::isdigit(static_cast<unsigned char>(text[i + 1])) || text[i + 1] == '-' || text[i + 1] == '+')))
      break;
    ++i;
  }
  double v = 0;
  auto res = std::from_chars(text.data() + start, text.data() + i, v);
  if (start == i || res.ec != std::errc() || res.ptr != text.data() + i || !std::isfinite(v))
    throw UnitError(quote_excerpt(text) + " is not a " + what + " (expected a number with a unit, e.g. " + examples +
                    ")");
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t end = text.size();
  while (end > i && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
  return {v, std::string(text.substr(i, end - i))};
}

}  // namespace

Time parse_time(std::string_view text) {
  const char* ex = "\"1.5us\", \"800ns\", \"2ms\", \"1s\"";
  auto [v, u] = split(text, "time", ex);
  double scale_ps;
  if (u == "ps")
    scale_ps = 1;
  else if (u == "ns")
    scale_ps = 1e3;
  else if (u == "us" || u == "\xC2\xB5s")
    scale_ps = 1e6;
  else if (u == "ms")
    scale_ps = 1e9;
  else if (u == "s")
    scale_ps = 1e12;
  else
    throw UnitError(quote_excerpt(text) + " has " + (u.empty() ? "no unit" : "unknown time unit " + quote_excerpt(u)) +
                    " (expected ps, ns, us, ms or s, e.g. " + ex + ")");
  if (v < 0) throw UnitError(quote_excerpt(text) + " is a negative time (expected >= 0)");
  if (v * scale_ps >= 9.2e18)  // Time counts picoseconds in 64 bits
    throw UnitError(quote_excerpt(text) + " is beyond the largest supported time (about 106 days, 2^63 - 1 ps)");
  return Time{static_cast<std::int64_t>(std::llround(v * scale_ps))};
}

Bytes parse_bytes(std::string_view text) {
  const char* ex = "\"64MiB\", \"4KB\", \"1G\", \"512\"";
  auto [v, u] = split(text, "byte count", ex);
  double scale;
  // Binary prefixes; single letters follow nccl-tests' -b/-e convention (K = 1024).
  if (u.empty() || u == "B")
    scale = 1;
  else if (u == "KiB" || u == "K" || u == "k")
    scale = 1024.0;
  else if (u == "MiB" || u == "M")
    scale = 1024.0 * 1024;
  else if (u == "GiB" || u == "G")
    scale = 1024.0 * 1024 * 1024;
  else if (u == "TiB" || u == "T")
    scale = 1024.0 * 1024 * 1024 * 1024;
  else if (u == "KB" || u == "kB")
    scale = 1e3;
  else if (u == "MB")
    scale = 1e6;
  else if (u == "GB")
    scale = 1e9;
  else if (u == "TB")
    scale = 1e12;
  else
    throw UnitError(quote_excerpt(text) + " has unknown byte unit " + quote_excerpt(u) +
                    " (expected B, KiB, MiB, GiB, TiB, K, M, G, KB, MB, GB, TB, e.g. " + ex + ")");
  if (v < 0) throw UnitError(quote_excerpt(text) + " is a negative byte count (expected >= 0)");
  if (v * scale >= 9.2e18)  // Bytes is a signed 64-bit count
    throw UnitError(quote_excerpt(text) + " is beyond the largest supported size (8 EiB, 2^63 - 1 bytes)");
  return static_cast<Bytes>(std::llround(v * scale));
}

Bandwidth parse_bandwidth(std::string_view text) {
  const char* ex = "\"100Gbps\", \"25GB/s\", \"12.5 GBps\"";
  auto [v, u] = split(text, "bandwidth", ex);
  double bits = 0, bytes = 0;
  if (u == "bps" || u == "b/s")
    bits = 1;
  else if (u == "Kbps" || u == "kbps" || u == "Kb/s" || u == "kb/s")
    bits = 1e3;
  else if (u == "Mbps" || u == "Mb/s")
    bits = 1e6;
  else if (u == "Gbps" || u == "Gb/s")
    bits = 1e9;
  else if (u == "Tbps" || u == "Tb/s")
    bits = 1e12;
  else if (u == "Bps" || u == "B/s")
    bytes = 1;
  else if (u == "KBps" || u == "KB/s" || u == "kB/s")
    bytes = 1e3;
  else if (u == "MBps" || u == "MB/s")
    bytes = 1e6;
  else if (u == "GBps" || u == "GB/s")
    bytes = 1e9;
  else if (u == "TBps" || u == "TB/s")
    bytes = 1e12;
  else if (u == "GiB/s")
    bytes = 1024.0 * 1024 * 1024;
  else if (u == "MiB/s")
    bytes = 1024.0 * 1024;
  else
    throw UnitError(quote_excerpt(text) + " has " +
                    (u.empty() ? "no unit" : "unknown bandwidth unit " + quote_excerpt(u)) +
                    " (expected Gbps or Gb/s for bits, GB/s or GBps for bytes, e.g. " + ex + ")");
  if (v <= 0) throw UnitError(quote_excerpt(text) + " is not a positive bandwidth (expected > 0)");
  return Bandwidth{bits > 0 ? v * bits / 8.0 : v * bytes};
}

std::string format_time(Time t) {
  char buf[64];
  const double us_v = t.us();
  if (std::abs(us_v) >= 1e6)
    std::snprintf(buf, sizeof buf, "%.3f s", t.s());
  else if (std::abs(us_v) >= 1e3)
    std::snprintf(buf, sizeof buf, "%.3f ms", t.ms());
  else
    std::snprintf(buf, sizeof buf, "%.3f us", us_v);
  return buf;
}

std::string format_bytes(Bytes b) {
  char buf[64];
  const double v = static_cast<double>(b);
  if (b >= GiB)
    std::snprintf(buf, sizeof buf, "%g GiB", v / GiB);
  else if (b >= MiB)
    std::snprintf(buf, sizeof buf, "%g MiB", v / MiB);
  else if (b >= KiB)
    std::snprintf(buf, sizeof buf, "%g KiB", v / KiB);
  else
    std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(b));
  return buf;
}

std::string format_bandwidth(Bandwidth bw) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f GB/s", bw.GBps());
  return buf;
}

}  // namespace vgsim
