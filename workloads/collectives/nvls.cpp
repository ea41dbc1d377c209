// NVLS (NVLink SHARP) allreduce of S bytes on n GPUs behind one NVSwitch (Hopper or later, NCCL >= 2.17 with CUDA >=
// 12.1), as switch legs: a transfer to coll::kSwitchRank crosses only the sender's NVLink UP resource, one from it
// only the receiver's DOWN resource. Units: payload bytes. Invariant: per GPU r, UP = DOWN = S + block_r bytes.
//
// Physics. (1) Reduce-scatter by multimem.ld_reduce: for each shard k (S/n bytes) the switch reads shard k from
// every GPU j (GPU j's UP carries S/n per shard, S over all shards) and delivers the reduced shard to GPU k only
// (GPU k's DOWN carries S/n). (2) Allgather by multimem.st: GPU k writes its reduced shard once (UP carries S/n) and
// the switch multicasts it to all n GPUs (each DOWN carries S/n per shard, S in total). Per GPU: UP S(1 + 1/n),
// DOWN S(1 + 1/n); uncontended algbw = B / (1 + 1/n) for a per-GPU NVLink rate B, busbw = algbw x 2(n-1)/n. With
// SM90's 18 x 20.6 GB/s = 370.8 GB/s that bound is 576.8 GB/s busbw; NCCL's NVLS efficiency (0.85 on Hopper,
// docs/SOURCES.md#nccl-tuning) is the payload efficiency the communicator gives NVLS flows: ~490 GB/s.
//
// Data split: ring-like, loopSize = channels x n x chunk; piece (l, c x n + k) of loop l is shard k's chunk on
// channel c. Per (loop, channel), in this order (every dependency points backwards):
//   U1(k, j)  j -> switch, k, j in 0..n-1: GPU j's part of shard k's reduction (step 0);
//   D1(k)     switch -> k: the reduced shard chunk (step 1), after all n U1(k, .) arrived (data);
//   U2(k)     k -> switch: k stores its reduced chunk to the multicast address (step 2), after D1(k) arrived (data);
//   D2(k, m)  switch -> m: the multicast delivery (step 3), after U2(k) arrived (data).
// Order: each connection's previous loop (FIFO). Buffer: U1 of loop l waits until the reducer k has pushed out
// loop l - slots (U2 sent), so at most `slots` chunks per shard and channel are in flight.
#include "builder.hpp"

namespace vgsim::coll {

CollectiveSchedule nvls_allreduce(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  CollectiveSchedule s;
  detail::check_and_init(s, Op::AllReduce, Algo::NVLS, proto, n, ppn, size, o);
  if (proto != Proto::Simple)
    throw std::invalid_argument(std::string("nvls allreduce: NCCL runs NVLS with the Simple protocol only, got ") +
                                to_string(proto));
  if (ppn != n)
    throw std::invalid_argument("nvls allreduce: all ranks must be on one node behind one NVSwitch (ranks_per_node " +
                                std::to_string(ppn) + " != ranks " + std::to_string(n) + ")");
  const std::uint32_t c = s.channels;
  const detail::Partition part(size, s.chunk_bytes, static_cast<std::uint64_t>(c) * n);
  s.loops = part.loops;
  if (n <= 1) return s;
  const std::uint64_t nn = static_cast<std::uint64_t>(n) * n;
  const std::uint64_t per = 2 * nn + 2ull * n;  // U1 n^2, D1 n, U2 n, D2 n^2
  const std::uint64_t total = static_cast<std::uint64_t>(part.loops) * c * per;
  detail::check_transfers(total, o, "nvls allreduce");
  detail::Appender app(s, total, total * 2 + static_cast<std::uint64_t>(part.loops) * c * nn);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  const std::uint32_t slots = s.slots;
  auto blk = [&](std::uint64_t l, std::uint32_t ch) { return (l * c + ch) * per; };
  auto U1 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t k, std::uint32_t j) { return blk(l, ch) + k * n + j; };
  auto D1 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t k) { return blk(l, ch) + nn + k; };
  auto U2 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t k) { return blk(l, ch) + nn + n + k; };
  auto D2 = [&](std::uint64_t l, std::uint32_t ch, std::uint32_t k, std::uint32_t m) {
    return blk(l, ch) + nn + 2ull * n + k * n + m;
  };
  std::vector<std::uint64_t> deps;
  for (std::uint32_t l = 0; l < part.loops; ++l)
    for (std::uint32_t ch = 0; ch < c; ++ch) {
      for (std::uint32_t k = 0; k < n; ++k)
        for (std::uint32_t j = 0; j < n; ++j)
          app.add(j, kSwitchRank, ch, 0, part.piece(l, std::uint64_t{ch} * n + k),
                  {l > 0 ? U1(l - 1, ch, k, j) : kNone, l >= slots ? U2(l - slots, ch, k) : kNone});
      for (std::uint32_t k = 0; k < n; ++k) {
        deps.clear();
        for (std::uint32_t j = 0; j < n; ++j) deps.push_back(U1(l, ch, k, j));  // the reduction reads every input
        if (l > 0) deps.push_back(D1(l - 1, ch, k));
        app.add_list(kSwitchRank, k, ch, 1, part.piece(l, std::uint64_t{ch} * n + k), deps);
      }
      for (std::uint32_t k = 0; k < n; ++k)
        app.add(k, kSwitchRank, ch, 2, part.piece(l, std::uint64_t{ch} * n + k),
                {D1(l, ch, k), l > 0 ? U2(l - 1, ch, k) : kNone});
      for (std::uint32_t k = 0; k < n; ++k)
        for (std::uint32_t m = 0; m < n; ++m)
          app.add(kSwitchRank, m, ch, 3, part.piece(l, std::uint64_t{ch} * n + k),
                  {U2(l, ch, k), l > 0 ? D2(l - 1, ch, k, m) : kNone});
    }
  return s;
}

}  // namespace vgsim::coll
