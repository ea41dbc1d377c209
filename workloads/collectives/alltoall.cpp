// nccl-tests alltoall (alltoall_perf) as NCCL runs it: a group of ncclSend / ncclRecv to every peer, scheduled as
// NCCL's p2p planner does. The mechanism, with where each rule comes from (grades: [ref] = the stored reference,
// [recalled] = NCCL source read before, not in the stored reference: verify against it):
//  - nccl-tests src/alltoall.cu: each rank calls ncclSend(count) and ncclRecv(count) for every rank r (itself too)
//    inside ncclGroupStart/End; count = S / (n x type size) elements per peer [recalled; busbw factor (n-1)/n and
//    S = count x n x typesize: ref docs/SOURCES.md#nccl-tests table].
//  - Rounds (init.cc p2pSchedule, NCCL >= 2.19) [recalled]: round i sends to (node + dn, local + dl) and receives from
//    (node - dn, local - dl); node deltas in the quadratic order dn <- (dn + k) & (pow2Up(nodes) - 1), k = 1, 2, ...
//    (skipping dn >= nodes), the local deltas likewise inside each node delta. Round 0 is the rank itself: a local
//    copy, no link traffic, not a transfer here (HBM copy time neglected).
//  - Channels (enqueue.cc ncclP2pChannelBaseForRound / ncclP2pChannelForPart) [recalled]: a round's base channel is
//    (i / L) x ceil(L / B) + (i % L) / B on several nodes (L ranks per node, B = ops per batch), i on one node; part j
//    of the operation runs on channel (base + bitreverse(j, log2 C)) mod C, C = p2pnChannels (a power of two).
//  - Parts per operation [recalled, simplified]: NCCL splits an operation over between nChannelsMin and nChannelsMax
//    channels, nChannelsMax = p2pnChannelsPerPeer halved while nChannelsMax x n > 16 C, nChannelsMin halved while
//    nChannelsMin x n > 4 C; vgsim takes clamp(ceil(S/n / chunk), nChannelsMin, nChannelsMax) parts (NCCL's exact
//    part-size thresholds are not in the stored reference), equal to a byte, each cut into p2p chunks.
//  - Batches (enqueue.cc addWorkBatchToPlan) [recalled]: a channel's p2p works (one send + one receive of a round)
//    are packed in order into batches of at most NCCL_MAX_DEV_WORK_P2P_PER_BATCH = 8; the channel's thread block
//    runs a batch to the end (its sends sent, its receives arrived) before the next one.
// Dependencies (generators.hpp rule): (b) order on a connection (chunk m waits for chunk m-1 to leave); batch order:
// the first chunk of a rank's send in batch k of channel c waits for the rank's sends of batch k-1 on c to leave and
// for its receives of batch k-1 on c to arrive (a data dependency by schedule.hpp's rule: dep.dst == t.src). The
// receiver copies a chunk out on arrival (as sendrecv): no slot dependency. Transfers are laid out batch-major (all
// channels' batch 0, then batch 1, ...), which is topological. step = the round index.
#include <algorithm>

#include "builder.hpp"

namespace vgsim::coll {

namespace {
std::uint32_t pow2_up(std::uint32_t v) {
  std::uint32_t p = 1;
  while (p < v) p <<= 1;
  return p;
}
bool is_pow2(std::uint32_t v) { return v != 0 && (v & (v - 1)) == 0; }
std::uint32_t log2_exact(std::uint32_t v) {
  std::uint32_t l = 0;
  while ((1u << l) < v) ++l;
  return l;
}
std::uint32_t reverse_bits(std::uint32_t x, std::uint32_t bits) {
  std::uint32_t r = 0;
  for (std::uint32_t b = 0; b < bits; ++b) r |= ((x >> b) & 1u) << (bits - 1 - b);
  return r;
}
constexpr std::uint32_t kDefaultChannelsPerPeer = 2;  // NCCL_NCHANNELS_PER_NET_PEER default (paths.cc) [recalled]
constexpr std::uint32_t kDefaultOpsPerBatch = 8;      // NCCL_MAX_DEV_WORK_P2P_PER_BATCH (device.h) [recalled]
}  // namespace

std::vector<std::pair<std::uint32_t, std::uint32_t>> p2p_rounds(std::uint32_t nodes, std::uint32_t ppn) {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
  const std::uint32_t np2 = pow2_up(nodes), lp2 = pow2_up(ppn);
  std::uint32_t node_delta = 0;
  for (std::uint32_t node_round = 0; node_round < np2;) {
    if (node_delta < nodes) {
      std::uint32_t local_delta = 0;
      for (std::uint32_t local_round = 0; local_round < lp2;) {
        if (local_delta < ppn) out.emplace_back(node_delta, local_delta);
        ++local_round;
        local_delta = (local_delta + local_round) & (lp2 - 1);
      }
    }
    ++node_round;
    node_delta = (node_delta + node_round) & (np2 - 1);
  }
  return out;
}

CollectiveSchedule alltoall(std::uint32_t n, std::uint32_t ppn, Bytes size, Proto proto, const GenOptions& o) {
  CollectiveSchedule s;
  detail::check_and_init(s, Op::AllToAll, Algo::Ring, proto, n, ppn, size, o);
  const std::uint32_t C = s.channels;
  if (!is_pow2(C))
    throw std::invalid_argument("alltoall: p2p channels must be a power of two (NCCL rounds p2pnChannels up), got " +
                                std::to_string(C));
  std::uint32_t k = o.p2p_channels_per_peer ? o.p2p_channels_per_peer : kDefaultChannelsPerPeer;
  if (!is_pow2(k))
    throw std::invalid_argument("alltoall: p2p channels per peer must be a power of two, got " + std::to_string(k));
  k = std::min(k, C);
  const std::uint32_t batch = o.p2p_ops_per_batch ? o.p2p_ops_per_batch : kDefaultOpsPerBatch;
  s.loops = 1;
  if (n <= 1) return s;
  const std::uint32_t N = n / ppn, L = ppn;

  // Parts per operation (same for every rank and round: decided on the largest block).
  std::uint32_t kmax = k, kmin = k;
  while (static_cast<std::uint64_t>(kmax) * n > std::uint64_t{16} * C && kmax > 1) kmax /= 2;
  while (static_cast<std::uint64_t>(kmin) * n > std::uint64_t{4} * C && kmin > 1) kmin /= 2;
  const Bytes block_max = (size + n - 1) / n;
  const Bytes chunk = s.chunk_bytes;
  const Bytes want = std::max<Bytes>(1, (block_max + chunk - 1) / chunk);
  const auto parts = static_cast<std::uint32_t>(std::clamp<Bytes>(want, kmin, std::max(kmin, kmax)));
  auto block = [&](std::uint32_t d) { return size / n + (static_cast<Bytes>(d) < size % n ? 1 : 0); };
  auto part_bytes = [&](Bytes b, std::uint32_t j) { return b / parts + (static_cast<Bytes>(j) < b % parts ? 1 : 0); };
  auto chunks_of = [&](Bytes b) { return std::max<Bytes>(1, (b + chunk - 1) / chunk); };
  std::uint64_t total = 0;
  for (std::uint32_t d = 0; d < n; ++d)
    for (std::uint32_t j = 0; j < parts; ++j) total += static_cast<std::uint64_t>(chunks_of(part_bytes(block(d), j)));
  total *= n - 1;  // every rank sends block d's parts to rank d except itself: (n-1) senders per destination
  detail::check_transfers(total, o, "alltoall");

  // Works per channel, in round order: (round, part); then batches of `batch` works.
  const auto rounds = p2p_rounds(N, L);
  const std::uint32_t logC = log2_exact(C), batches_per_node_delta = (L + batch - 1) / batch;
  struct Work {
    std::uint32_t round, part;
  };
  std::vector<std::vector<Work>> works(C);
  for (std::uint32_t i = 1; i < rounds.size(); ++i) {  // round 0: the self copy
    const std::uint32_t base = (N > 1 ? (i / L) * batches_per_node_delta + (i % L) / batch : i) & 0xffu;
    for (std::uint32_t j = 0; j < parts; ++j) works[(base + reverse_bits(j, logC)) & (C - 1)].push_back({i, j});
  }
  std::size_t max_batches = 0;
  for (const auto& w : works) max_batches = std::max(max_batches, (w.size() + batch - 1) / batch);

  auto send_peer = [&](std::uint32_t r, std::uint32_t i) {
    const auto [dn, dl] = rounds[i];
    return ((r / L + dn) % N) * L + (r % L + dl) % L;
  };
  detail::Appender app(s, total, total * 2);
  constexpr std::uint64_t kNone = detail::Appender::kNone;
  // last[c][w * n + r]: index of the last chunk rank r sent in work w of channel c's previous batch.
  std::vector<std::vector<std::uint64_t>> last(C), cur(C);
  std::vector<std::uint64_t> deps;
  std::uint64_t index = 0;
  for (std::size_t b = 0; b < max_batches; ++b) {
    for (std::uint32_t c = 0; c < C; ++c) {
      const std::size_t w0 = b * batch, w1 = std::min(works[c].size(), w0 + batch);
      cur[c].assign(w1 > w0 ? (w1 - w0) * n : 0, kNone);
      for (std::size_t w = w0; w < w1; ++w) {
        const Work wk = works[c][w];
        for (std::uint32_t r = 0; r < n; ++r) {
          const std::uint32_t d = send_peer(r, wk.round);
          // Batch order: this rank's sends of the previous batch on c left, its receives there arrived.
          deps.clear();
          const std::size_t prev_works = last[c].size() / n;
          for (std::size_t pw = 0; pw < prev_works; ++pw) {
            const std::uint32_t pr = works[c][(b - 1) * batch + pw].round;
            deps.push_back(last[c][pw * n + r]);  // own send (order)
            const auto [dn, dl] = rounds[pr];     // the rank that sends to r in round pr
            const std::uint32_t from = ((r / L + N - dn % N) % N) * L + (r % L + L - dl % L) % L;
            deps.push_back(last[c][pw * n + from]);  // receive (data: its dst is r)
          }
          const Bytes pb = part_bytes(block(d), wk.part);
          const Bytes nch = chunks_of(pb);
          for (Bytes m = 0; m < nch; ++m) {
            const Bytes bytes = m + 1 < nch ? chunk : pb - chunk * (nch - 1);
            if (m == 0) {
              app.add_list(r, d, c, wk.round, bytes, deps);
            } else {
              app.add(r, d, c, wk.round, bytes, {index - 1});
            }
            ++index;
          }
          cur[c][(w - w0) * n + r] = index - 1;
        }
      }
    }
    std::swap(last, cur);
  }
  return s;
}

}  // namespace vgsim::coll
