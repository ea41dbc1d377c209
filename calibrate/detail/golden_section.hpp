// Golden-section search for the minimum of a function of one variable inside [lo, hi], shared by the training and
// the large-model fits (calibrate/training_fit.cpp, calibrate/llm_fit.cpp).
#pragma once

#include <cmath>

namespace vgsim::calibrate::detail {

// The midpoint of the bracket after `steps` shrinks (each by 0.618: 16 steps leave 0.00045 of the range). Assumes f
// unimodal in [lo, hi]; evaluates f steps + 2 times.
template <class F>
double golden_section(F&& f, double lo, double hi, int steps) {
  const double g = (std::sqrt(5.0) - 1.0) / 2.0;
  double a = lo, b = hi;
  double c = b - g * (b - a), d = a + g * (b - a), fc = f(c), fd = f(d);
  for (int it = 0; it < steps; ++it) {
    if (fc <= fd)
      b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    else
      a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
  }
  return 0.5 * (a + b);
}

}  // namespace vgsim::calibrate::detail
