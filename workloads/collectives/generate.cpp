// Generator dispatch (through the algorithm registry), materializing a streamed header, NCCL's default chunk/slot
// geometry and the shared argument checks (see generators.hpp).
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

#include "builder.hpp"
#include "vgsim/workloads/collectives/algorithm_registry.hpp"
#include "vgsim/workloads/collectives/nvls_tree_stream.hpp"
#include "vgsim/workloads/collectives/ring_stream.hpp"
#include "vgsim/workloads/collectives/tree_stream.hpp"

namespace vgsim::coll {

namespace {
// docs/SOURCES.md#nccl-tuning: NCCL_STEPS = 8 slots per connection; Simple BUFFSIZE 4 MiB; LL buffer 512 KiB of
// 16-byte lines carrying 8 payload bytes; LL128 buffer 120*640*8*8 B with 120 of 128 bytes payload.
constexpr std::uint32_t kNcclSteps = 8;
constexpr Bytes kSimpleStep = 4 * MiB / kNcclSteps;                                // 512 KiB
constexpr Bytes kLLStepPayload = (512 * KiB / kNcclSteps) / 2;                     // 32 KiB
constexpr Bytes kLL128StepPayload = (120LL * 640 * 8 * 8 / kNcclSteps) / 16 * 15;  // 576,000 B
constexpr std::uint32_t kRingChunkSteps = 4;  // CHUNKSTEPS for ring AR/AG/RS (collectives.h)
constexpr std::uint32_t kRingSliceSteps = 2;  // SLICESTEPS for ring AR/AG/RS (collectives.h)
constexpr Bytes kP2pNvlChunk = 512 * KiB;     // NCCL_P2P_NVL_CHUNKSIZE (init.cc)
constexpr Bytes kP2pNetChunk = 128 * KiB;     // NCCL_P2P_NET_CHUNKSIZE (init.cc; docs/SOURCES.md#nccl-tuning)
// NCCL_NVLS_CHUNKSIZE default 128 KiB (src/transport/nvls.cc, recalled: not in the stored reference) [verify]. NVLS
// keeps NCCL_STEPS = 8 slots (an assumption: NCCL's NVLS buffer geometry is not in the stored reference either).
constexpr Bytes kNvlsChunk = 128 * KiB;
}  // namespace

Geometry protocol_geometry(Op op, Proto proto) {
  Bytes chunk = kSimpleStep;
  if (op == Op::SendRecv)
    chunk = kP2pNvlChunk;
  else if (op == Op::AllToAll)
    chunk = kP2pNetChunk;
  else if (proto == Proto::LL)
    chunk = kLLStepPayload;
  else if (proto == Proto::LL128)
    chunk = kLL128StepPayload;
  return {chunk, kNcclSteps, chunk};
}

namespace detail {
Geometry ring_geometry(Op op, Proto proto) {
  const bool ring_chunked =
      proto == Proto::Simple && (op == Op::AllReduce || op == Op::AllGather || op == Op::ReduceScatter);
  if (!ring_chunked) return protocol_geometry(op, proto);
  const Bytes chunk = kSimpleStep * kRingChunkSteps;
  // the chunk goes out as SlicePerChunk = CHUNKSTEPS / SLICESTEPS slices (all_reduce.h ProtoSimple<...>)
  return {chunk, kNcclSteps / kRingChunkSteps, chunk / kRingChunkSteps * kRingSliceSteps,
          kRingChunkSteps / kRingSliceSteps};
}
Geometry nvls_geometry() { return {kNvlsChunk, kNcclSteps, kNvlsChunk}; }
// NVLS Tree: one Simple step per chunk (enqueue.cc: chunkSteps is 1 for every algorithm but the ring, and NCCL's
// 128 KiB NVLS maximum is NVLS's alone), 8 slots; its switch and network legs use the same chunk (an assumption).
Geometry nvls_tree_geometry() { return {kSimpleStep, kNcclSteps, kSimpleStep}; }
}  // namespace detail

namespace {
Geometry geometry(Op op, Algo algo, Proto proto) {
  const AlgorithmInfo& a = algorithm(algo);
  return a.geometry ? a.geometry(op, proto) : protocol_geometry(op, proto);
}
}  // namespace

Bytes default_chunk_bytes(Op op, Algo algo, Proto proto) { return geometry(op, algo, proto).chunk_bytes; }
Bytes call_chunk_bytes(Op op, Algo algo, Proto proto, Bytes size, std::uint32_t channels,
                       std::uint32_t ranks_per_node) {
  const Bytes chunk = default_chunk_bytes(op, algo, proto);
  const AlgorithmInfo& a = algorithm(algo);
  return a.call_chunk ? a.call_chunk(chunk, size, channels, ranks_per_node) : chunk;
}
Bytes call_slice_bytes(Op op, Algo algo, Proto proto, Bytes size, std::uint32_t channels,
                       std::uint32_t ranks_per_node) {
  return std::min(default_slice_bytes(op, algo, proto),
                  call_chunk_bytes(op, algo, proto, size, channels, ranks_per_node));
}
Bytes default_slice_bytes(Op op, Algo algo, Proto proto) { return geometry(op, algo, proto).slice_bytes; }
std::uint32_t default_slots(Op op, Algo algo, Proto proto) { return geometry(op, algo, proto).slots; }
std::uint32_t default_slices(Op op, Algo algo, Proto proto) { return geometry(op, algo, proto).slices; }

std::uint32_t ring_steps(Op op, std::uint32_t n) {
  if (n <= 1) return 0;
  switch (op) {
    case Op::AllReduce:
      return 2 * (n - 1);
    case Op::SendRecv:
      return 1;
    default:
      return n - 1;
  }
}

namespace detail {
std::vector<std::uint32_t> check_and_init(CollectiveSchedule& s, Op op, Algo algo, Proto proto, std::uint32_t ranks,
                                          std::uint32_t ppn, Bytes size, const GenOptions& o) {
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(std::string(to_string(algo)) + " " + to_string(op) + ": " + what);
  };
  if (ranks == 0) fail("ranks must be >= 1");
  if (ppn == 0 || ranks % ppn != 0)
    fail("ranks_per_node " + std::to_string(ppn) + " must divide ranks " + std::to_string(ranks));
  if (size < 0) fail("size must be >= 0 bytes, got " + std::to_string(size));
  if (o.channels == 0 || o.channels > 64)
    fail("channels must be in 1..64 (NCCL MAXCHANNELS), got " + std::to_string(o.channels));
  if (o.chunk_bytes < 0) fail("chunk_bytes must be >= 0 (0 = NCCL default)");
  if (o.root >= ranks) fail("root " + std::to_string(o.root) + " is not a rank of " + std::to_string(ranks));
  s.op = op;
  s.algo = algo;
  s.proto = proto;
  s.ranks = ranks;
  s.ranks_per_node = ppn;
  s.channels = o.channels;
  s.size = size;
  s.root = (op == Op::Broadcast || op == Op::Reduce) ? o.root : 0;
  s.chunk_bytes = o.chunk_bytes > 0 ? o.chunk_bytes : call_chunk_bytes(op, algo, proto, size, o.channels, ppn);
  s.slots = o.slots > 0 ? o.slots : default_slots(op, algo, proto);
  if (s.slots < 2)
    fail("slots must be >= 2 (with one buffer slot a ring waits on itself), got " + std::to_string(s.slots));
  s.slices = default_slices(op, algo, proto);
  std::vector<std::uint32_t> order = o.ring_order;
  if (order.empty()) {
    order.resize(ranks);
    std::iota(order.begin(), order.end(), 0u);
  } else {
    if (order.size() != ranks)
      fail("ring_order has " + std::to_string(order.size()) + " entries, expected " + std::to_string(ranks));
    std::vector<char> seen(ranks, 0);
    for (auto r : order) {
      if (r >= ranks || seen[r]) fail("ring_order must be a permutation of 0.." + std::to_string(ranks - 1));
      seen[r] = 1;
    }
  }
  return order;
}
}  // namespace detail

CollectiveSchedule materialize(const CollectiveSchedule& header, std::uint64_t max_transfers) {
  if (!header.streamed) throw std::invalid_argument("materialize: the schedule is not streamed");
  CollectiveSchedule s = header;
  s.streamed = false;
  GenOptions o;
  o.max_transfers = max_transfers;
  if (tree_streamable(header)) {
    detail::check_transfers(TreeStream(header).count(), o, "tree allreduce");
    detail::materialize_tree(s);
  } else if (nvls_tree_streamable(header)) {
    detail::check_transfers(NvlsTreeStream(header).count(), o, "nvlstree allreduce");
    detail::materialize_nvls_tree(s);
  } else {
    detail::check_transfers(RingStream(header).count(), o, std::string("ring ") + to_string(header.op));
    detail::materialize_ring(s);
  }
  return s;
}

CollectiveSchedule generate(Op op, Algo algo, Proto proto, std::uint32_t ranks, std::uint32_t ppn, Bytes size,
                            const GenOptions& o) {
  return algorithm(algo).generate(op, proto, ranks, ppn, size, o);  // the record refuses collectives it lacks
}

}  // namespace vgsim::coll
