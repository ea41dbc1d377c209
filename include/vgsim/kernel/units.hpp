// Physical units used everywhere in vgsim: simulated time (integer picoseconds), byte counts and bandwidths
// (bytes per second, double). Unit strings such as "100Gbps", "25 GB/s", "1.5us", "64MiB" are parsed only at the
// JSON/CLI edges by the parse_* functions; inside the simulator every quantity is one of these types.
// Invariant: Time is exact integer arithmetic, so event ordering is deterministic across runs and machines.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace vgsim {

// Simulated time in integer picoseconds (int64 covers ±106 days).
struct Time {
  std::int64_t ps = 0;

  static constexpr Time from_ps(std::int64_t v) { return Time{v}; }
  static constexpr Time from_ns(double v) { return Time{static_cast<std::int64_t>(v * 1e3 + (v >= 0 ? 0.5 : -0.5))}; }
  static constexpr Time from_us(double v) { return Time{static_cast<std::int64_t>(v * 1e6 + (v >= 0 ? 0.5 : -0.5))}; }
  static constexpr Time from_ms(double v) { return Time{static_cast<std::int64_t>(v * 1e9 + (v >= 0 ? 0.5 : -0.5))}; }
  static constexpr Time from_s(double v) { return Time{static_cast<std::int64_t>(v * 1e12 + (v >= 0 ? 0.5 : -0.5))}; }
  static constexpr Time max() { return Time{INT64_MAX}; }

  constexpr double ns() const { return static_cast<double>(ps) * 1e-3; }
  constexpr double us() const { return static_cast<double>(ps) * 1e-6; }
  constexpr double ms() const { return static_cast<double>(ps) * 1e-9; }
  constexpr double s() const { return static_cast<double>(ps) * 1e-12; }

  constexpr auto operator<=>(const Time&) const = default;
  constexpr Time operator+(Time o) const { return Time{ps + o.ps}; }
  constexpr Time operator-(Time o) const { return Time{ps - o.ps}; }
  constexpr Time& operator+=(Time o) {
    ps += o.ps;
    return *this;
  }
  constexpr Time& operator-=(Time o) {
    ps -= o.ps;
    return *this;
  }
  constexpr Time operator*(std::int64_t k) const { return Time{ps * k}; }
};

constexpr Time us(double v) { return Time::from_us(v); }
constexpr Time ns(double v) { return Time::from_ns(v); }
constexpr Time ms(double v) { return Time::from_ms(v); }

// Byte counts (payloads, buffers, message sizes).
using Bytes = std::int64_t;
constexpr Bytes KiB = 1024;
constexpr Bytes MiB = 1024 * KiB;
constexpr Bytes GiB = 1024 * MiB;

// Bandwidth in bytes per second.
struct Bandwidth {
  double bytes_per_s = 0.0;

  static constexpr Bandwidth from_bytes_per_s(double v) { return Bandwidth{v}; }
  static constexpr Bandwidth from_GBps(double v) { return Bandwidth{v * 1e9}; }
  static constexpr Bandwidth from_Gbps(double v) { return Bandwidth{v * 1e9 / 8.0}; }
  constexpr double GBps() const { return bytes_per_s * 1e-9; }
  constexpr double Gbps() const { return bytes_per_s * 8e-9; }

  constexpr auto operator<=>(const Bandwidth&) const = default;
  constexpr Bandwidth operator*(double k) const { return Bandwidth{bytes_per_s * k}; }
};

// Time to move `bytes` at `bw`, rounded up to the next picosecond (a zero or negative bandwidth is a caller bug).
// Inline: the engine calls it once per rate change of every flow.
inline Time transfer_time(double bytes, Bandwidth bw) {
  if (bytes <= 0.0) return Time{0};
  const double ps = std::ceil(bytes / bw.bytes_per_s * 1e12);
  return Time{static_cast<std::int64_t>(ps)};
}

// Unit-string parsers. Each throws UnitError (a std::invalid_argument) whose message names the value and the
// accepted units; callers at the JSON/CLI edge wrap it with the file and JSON path.
//   time:      "1.5us", "800 ns", "2ms", "0.5s", "120ps"
//   bytes:     "64MiB", "1G" (= GiB, as nccl-tests' -b/-e), "4KB" (= 1000), "512", "2 GiB"
//   bandwidth: "100Gbps", "100 Gb/s", "25GB/s", "12.5GBps", "800Mbps", "3.2 TB/s"
Time parse_time(std::string_view text);
Bytes parse_bytes(std::string_view text);
Bandwidth parse_bandwidth(std::string_view text);

// Formatting for reports (stable, locale independent).
std::string format_time(Time t);             // "12.345 us"
std::string format_bytes(Bytes b);           // "64 MiB", "1.5 GiB", "512 B"
std::string format_bandwidth(Bandwidth bw);  // "12.50 GB/s"

}  // namespace vgsim
