// CLI11 checks for whole-number options with a message a user can act on ("--nodes: 0 is not allowed: expected a
// whole number >= 1"), in place of CLI11's PositiveNumber / NonNegativeNumber, whose message spells the range up to
// DBL_MAX (issue 40, "unclear messages"). Also refuses fractions and a leading '-' for unsigned options, which CLI11
// would otherwise wrap to a huge value or accept.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

namespace vgsim::cli {

inline CLI::Validator whole_number_at_least(long long least) {
  return CLI::Validator(
      [least](std::string& s) -> std::string {
        std::size_t used = 0;
        long long v = 0;
        try {
          v = std::stoll(s, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != s.size() || s.empty() || v < least)
          return s + " is not allowed: expected a whole number >= " + std::to_string(least) +
                 (least == 0 ? " (0 = no limit)" : "");
        return "";
      },
      "INT>=" + std::to_string(least));
}

}  // namespace vgsim::cli
