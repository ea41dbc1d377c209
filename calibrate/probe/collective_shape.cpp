// Collective shapes, input pattern and expected results (see collective_shape.hpp).
#include "collective_shape.hpp"

#include <array>

namespace vgsim::probe {

CollectiveShape collective_shape(const std::string& op, std::int64_t requested_bytes, int nranks) {
  CollectiveShape s;
  s.op = op;
  const std::int64_t elems = requested_bytes / 4;
  const double n = nranks;
  if (op == "allreduce") {
    s.count = s.send_count = s.recv_count = elems;
    s.size_bytes = elems * 4;
    s.bus_factor = 2.0 * (n - 1.0) / n;
    s.redop = "sum";
  } else if (op == "allgather") {
    s.count = s.send_count = elems / nranks;
    s.recv_count = s.count * nranks;
    s.size_bytes = s.recv_count * 4;
    s.bus_factor = (n - 1.0) / n;
    s.redop = "none";
  } else if (op == "reducescatter") {
    s.count = s.recv_count = elems / nranks;
    s.send_count = s.count * nranks;
    s.size_bytes = s.send_count * 4;
    s.bus_factor = (n - 1.0) / n;
    s.redop = "sum";
  } else if (op == "broadcast") {
    s.count = s.send_count = s.recv_count = elems;
    s.size_bytes = elems * 4;
    s.bus_factor = 1.0;
    s.redop = "none";
    s.root = 0;
  } else {  // sendrecv: rank r sends to r+1 and receives from r-1 (nccl-tests sendrecv_perf)
    s.count = s.send_count = s.recv_count = elems;
    s.size_bytes = elems * 4;
    s.bus_factor = 1.0;
    s.redop = "none";
  }
  return s;
}

void fill_input(const CollectiveShape& s, int rank, float* send) {
  std::array<float, 16> period{};
  for (int i = 0; i < 16; ++i) period[static_cast<std::size_t>(i)] = pattern_value(rank, i);
  for (std::int64_t i = 0; i < s.send_count; ++i) send[i] = period[static_cast<std::size_t>(i % 16)];
}

std::int64_t count_wrong(const CollectiveShape& s, int rank, int nranks, const float* recv) {
  // The pattern has period 16 in the element index, so each expectation is a table of 16 values.
  std::array<float, 16> expect{};
  std::int64_t wrong = 0;
  auto check_periodic = [&](std::int64_t begin, std::int64_t n, std::int64_t index_offset) {
    for (std::int64_t i = 0; i < n; ++i) {
      if (recv[begin + i] != expect[static_cast<std::size_t>((i + index_offset) % 16)]) ++wrong;
    }
  };
  if (s.op == "allreduce" || s.op == "reducescatter") {
    // out[i] = sum over ranks q of pattern(q, j), j = i (allreduce) or rank * count + i (reducescatter).
    for (int m = 0; m < 16; ++m) {
      double sum = 0;
      for (int q = 0; q < nranks; ++q) sum += pattern_value(q, m);
      expect[static_cast<std::size_t>(m)] = static_cast<float>(sum);
    }
    check_periodic(0, s.recv_count, s.op == "allreduce" ? 0 : (static_cast<std::int64_t>(rank) * s.count) % 16);
  } else if (s.op == "allgather") {
    // out[q * count + i] = pattern(q, i).
    for (int q = 0; q < nranks; ++q) {
      for (int m = 0; m < 16; ++m) expect[static_cast<std::size_t>(m)] = pattern_value(q, m);
      check_periodic(static_cast<std::int64_t>(q) * s.count, s.count, 0);
    }
  } else if (s.op == "broadcast") {
    for (int m = 0; m < 16; ++m) expect[static_cast<std::size_t>(m)] = pattern_value(s.root, m);
    check_periodic(0, s.recv_count, 0);
  } else {  // sendrecv: from rank - 1
    const int from = (rank - 1 + nranks) % nranks;
    for (int m = 0; m < 16; ++m) expect[static_cast<std::size_t>(m)] = pattern_value(from, m);
    check_periodic(0, s.recv_count, 0);
  }
  return wrong;
}

}  // namespace vgsim::probe
