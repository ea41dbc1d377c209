// Private: non-negative least squares min ||A x - b|| with x >= 0 (Lawson & Hanson 1974, "Solving Least Squares
// Problems", ch. 23 active-set algorithm) on Eigen matrices, for the relative-error fits (rows pre-weighted by
// 1/measured). Columns flagged `free` are unconstrained. Small problems only (a handful of columns).
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <vector>

namespace vgsim::calibrate::detail {

inline Eigen::VectorXd nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const std::vector<bool>& free = {}) {
  const Eigen::Index n = A.cols();
  auto is_free = [&](Eigen::Index j) { return j < static_cast<Eigen::Index>(free.size()) && free[j]; };
  // Column scaling keeps the active-set tolerances meaningful when columns differ by orders of magnitude.
  Eigen::VectorXd scale(n);
  for (Eigen::Index j = 0; j < n; ++j) scale[j] = A.col(j).norm() > 0 ? 1.0 / A.col(j).norm() : 0.0;
  const Eigen::MatrixXd As = A * scale.asDiagonal();
  std::vector<bool> passive(n, false);
  for (Eigen::Index j = 0; j < n; ++j) passive[j] = is_free(j);
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  auto solve_passive = [&]() {
    std::vector<Eigen::Index> idx;
    for (Eigen::Index j = 0; j < n; ++j)
      if (passive[j]) idx.push_back(j);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    if (idx.empty()) return z;
    Eigen::MatrixXd Ap(As.rows(), static_cast<Eigen::Index>(idx.size()));
    for (std::size_t k = 0; k < idx.size(); ++k) Ap.col(static_cast<Eigen::Index>(k)) = As.col(idx[k]);
    const Eigen::VectorXd zp = Ap.colPivHouseholderQr().solve(b);
    for (std::size_t k = 0; k < idx.size(); ++k) z[idx[k]] = zp[static_cast<Eigen::Index>(k)];
    return z;
  };
  if (std::count(passive.begin(), passive.end(), true) > 0) x = solve_passive();
  for (int iter = 0; iter < 10 * static_cast<int>(n) + 10; ++iter) {
    const Eigen::VectorXd w = As.transpose() * (b - As * x);
    Eigen::Index best = -1;
    for (Eigen::Index j = 0; j < n; ++j)
      if (!passive[j] && w[j] > 1e-12 && (best < 0 || w[j] > w[best])) best = j;
    if (best < 0) break;
    passive[best] = true;
    for (int inner = 0; inner < 10 * static_cast<int>(n) + 10; ++inner) {
      const Eigen::VectorXd z = solve_passive();
      bool ok = true;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[j] && !is_free(j) && z[j] <= 0) ok = false;
      if (ok) {
        x = z;
        break;
      }
      double alpha = 1.0;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[j] && !is_free(j) && z[j] <= 0) alpha = std::min(alpha, x[j] / (x[j] - z[j]));
      x += alpha * (z - x);
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[j] && !is_free(j) && x[j] <= 1e-15) passive[j] = false, x[j] = 0;
    }
  }
  return scale.asDiagonal() * x;
}

}  // namespace vgsim::calibrate::detail
