// NCCL's own cost model (src/graph/tuning.cc, enqueue.cc; docs/SOURCES.md#nccl-tuning):
// per (collective, algorithm, protocol) a latency (us) and an algorithm bandwidth (GB/s), time = lat + bytes /
// (1000 * bw) with latCount = 1, the argmin selection (or NCCL_ALGO / NCCL_PROTO forcing), channel trimming for small
// messages, and nccl-tests' busbw factors and size conventions. Every constant is a named, overridable parameter
// ("nccl.hw_latency.net.ring.simple") tagged with its NCCL version and source. Not here: schedules, the engine.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "vgsim/workloads/collectives/schedule.hpp"

namespace vgsim::coll {

enum class Link : std::uint8_t { NVLink, PCIe, Net };  // NCCL's NCCL_HW_NVLINK / NCCL_HW_PCI / NCCL_HW_NET rows
enum class GpuArch : std::uint8_t { Volta, Ampere, Hopper, Blackwell };  // tuning.cc compCapIndex rows
enum class CpuVendor : std::uint8_t { Intel, AMD, Other };
const char* to_string(Link l);
const char* to_string(GpuArch a);
Link parse_link(const std::string& s);         // "nvlink", "pcie"/"pci", "net"; UnitError lists accepted values
GpuArch parse_gpu_arch(const std::string& s);  // "volta", "ampere", "hopper", "blackwell" (or "sm70".."sm100")

// The minor number of an NCCL release "2.<minor>[.<patch>[-<build>]]" between 2.4 and 2.30. UnitError otherwise,
// naming the supported range.
int parse_nccl_minor(const std::string& version);

// Rows of NCCL's per-algorithm latency tables: the built-in algorithms Ring, Tree, NVLS, NVLSTree, whose registry ids
// (algorithm_registry.hpp) are their rows. An algorithm registered later brings its own cost hooks.
constexpr int kNcclTableAlgos = 4;

struct NcclTuning {
  std::string version = "2.30";
  double base_latency_us[kNcclTableAlgos][3]{};   // [Algo][Proto] (NVLS: Simple only)
  double hw_latency_us[3][kNcclTableAlgos][3]{};  // [Link][Algo][Proto] (NVLS: NVLink / Simple only)
  double nvls_efficiency[4]{};                    // [GpuArch] NVLS bus bandwidth efficiency (0 = no NVLS on that arch)
  double nvls_max_channels = 16;                  // NVLS channels (NCCL_NVLS_NCHANNELS default)
  double proto_efficiency[3]{};                   // [Proto] payload / wire bytes
  double ll_max_bw_GBps[4][3]{};  // rows volta|intel, ampere|amd, hopper, blackwell; cols 1, 2, >2 nodes
  double per_ch_max_tree_bw_GBps[4][3]{};
  double per_ch_max_ring_ll128_bw_GBps[4]{};
  double per_ch_max_tree_ll128_bw_GBps[4][3]{};
  double net_overhead_us[3]{};  // [CpuVendor]
  double net_overhead_simple_factor = 3;
  double latency_inter_us = 0;      // net plugin's reported latency (IB and sockets report 0)
  double tree_correction[3][23]{};  // [Proto][log2(bytes/64)]
  double ring_plateau_factor[2]{};  // [0] pre-Ampere, [1] Ampere and later
  double ring_ll_bw_factor = 0.5, ring_ll128_bw_factor = 0.92, tree_bw_factor = 0.92, tree_ll_bw_divisor = 3.8,
         tree_ll128_bw_factor_one_node = 7.0 / 9.0, tree_ll128_bw_factor = 120.0 / 128.0, tree_algbw_ratio = 0.5;
  // NVLSTree bus-to-alg ratio = nvls_tree_ratio_coeff x N / (2 (N - 1)) on N > 2 nodes (NCCL 2.18.3; HEAD's is not in
  // the reference, carried forward as an assumption).
  double nvls_tree_ratio_coeff = 0.70;
  double thread_threshold[3]{};  // [Proto] bytes per thread before trimming (ring LL: x nranks)
  double max_threads[3]{};       // [Proto]
  // Point-to-point (alltoall; generators.hpp alltoall, sim/communicator.cpp): NCCL's p2p channel and chunk rules.
  double p2p_net_channels_per_peer = 2;                // NCCL_NCHANNELS_PER_NET_PEER (a power of two, 1..64)
  double p2p_min_channels = 1, p2p_max_channels = 64;  // NCCL_MIN_P2P_NCHANNELS / NCCL_MAX_P2P_NCHANNELS (1..64)
  double p2p_ops_per_batch = 8;  // NCCL_MAX_DEV_WORK_P2P_PER_BATCH: works one thread block runs at once
  double p2p_chunk_bytes[3]{512.0 * 1024, 128.0 * 1024, 128.0 * 1024};  // [Link] NCCL_P2P_NVL / _PCI / _NET_CHUNKSIZE
  double nvlink_bw_per_link_GBps[4]{20.0, 20.0, 20.6, 40.1};  // [GpuArch] topo.h NVLink per link (p2p channels)

  // What the version has (nccl_versions.cpp; not overridable, they are facts of the release): LL128 (2.5+),
  // trees on a single node by default (2.4.8 computes a tree threshold of 0 there), and the GPU architectures on
  // which NCCL enables LL128 by default (bit per GpuArch; forcing LL128 enables it). Which algorithms the release
  // has follows `minor` and each algorithm's AlgorithmInfo::since_minor (NVLS 2.17+, NVLS Tree 2.18+).
  bool has_ll128 = true, tree_on_one_node = true;
  unsigned ll128_default_archs = 0xF;
  int minor = 30;  // the release, 2.<minor>
  // One line naming what of this version's model is approximated ("" when its constants are its own), and the
  // source of each constant that differs from the HEAD tables' (param-name prefix -> source; the last entry whose
  // prefix matches wins).
  std::string approximation;
  std::vector<std::pair<std::string, std::string>> sources;

  // NCCL's defaults for `version` ("2.4" .. "2.30", a patch level like "2.18.3" is accepted): the version's own
  // constants where docs/SOURCES.md#nccl-versions gives them (2.5.6, 2.6.4, 2.8.4, 2.12.12,
  // 2.18.3) or docs/SOURCES.md#nccl-tuning (2.30 HEAD), else the nearest known version's, said in `approximation`.
  // Throws UnitError naming the supported range (2.3 and older are refused).
  static NcclTuning defaults(const std::string& version = "2.30");

  struct Param {
    std::string name, unit, source;
    double value;
  };
  std::vector<Param> list() const;                  // every parameter, in a stable order
  double get(const std::string& name) const;        // UnitError with a did-you-mean for unknown names
  void set(const std::string& name, double value);  // same; rejects negative or non-finite values
};

// What the cost model needs to know about a communicator (NCCL's comm + graph fields).
struct CommShape {
  std::uint32_t ranks = 1, nodes = 1;
  Link intra = Link::NVLink;  // graph->typeIntra (NVLink or PCIe)
  GpuArch arch = GpuArch::Hopper;
  CpuVendor cpu = CpuVendor::Intel;
  std::uint32_t channels = 1;  // comm->nChannels
  double bw_intra_GBps = 0;    // per channel (graph->bwIntra)
  double bw_inter_GBps = 0;    // per channel (graph->bwInter)
  // The tree graph's intra-node speed per channel: search.cc raises the intra speed of tree patterns above the
  // ring graph's (whose every channel must also cross the network at bwInter). 0 = same as bw_intra_GBps.
  double tree_bw_intra_GBps = 0;
  bool same_channels = true;  // graph->sameChannels (broadcast/reduce latency)
  bool ll128_enabled = true;  // NCCL enables LL128 only on some paths (section 1.5)
  // Facts the algorithms' availability rules read (AlgorithmInfo::unavailable; NVLS and NVLS Tree need both, on
  // Hopper or later): the GPUs of every node talk over NVLink P2P, and every rank is a whole GPU attached to its
  // node's NVSwitch (Cluster::nvswitch_path), else `off_nvswitch` names the first that is not ("endpoint gpu0
  // (vgpu)"). The communicator fills them.
  bool nvlink_p2p = false;
  bool on_nvswitch = false;
  std::string off_nvswitch;
  std::uint32_t nvls_channels = 16;  // channels an NVLS call uses (NcclTuning::nvls_max_channels unless forced)
};

// Which algorithms / protocols may be chosen (NCCL_ALGO / NCCL_PROTO).
struct Allowed {
  // The algorithms NCCL_ALGO leaves (bit per Algo id); none = the default set, every registered algorithm that is
  // not opt-in (AlgorithmInfo::opt_in). Exactly one bit forces that algorithm.
  std::optional<std::uint64_t> algos;
  bool proto[3] = {true, true, true};  // [Proto]
  bool allows(Algo a) const;
  bool forces_algo() const;  // exactly one algorithm left
};
// Parses NCCL_ALGO / NCCL_PROTO style lists: "Ring", "ring,tree", "^LL128" (exclusion from the default set); "" =
// the default set. UnitError on bad.
Allowed parse_allowed(const std::string& nccl_algo, const std::string& nccl_proto);

// Per-step latency of one hop for the step-level engine (us): the algorithm's hw_latency[link][proto]; a Net hop adds
// latencyInter (twice for Simple, the flush). The base latency is charged once per collective by the executor.
// The ring's NET hop on a communicator of one rank per node takes Tree's row (tuning.cc; `c` says the shape).
double hop_latency_us(const NcclTuning& t, Link link, Algo algo, Proto proto, const CommShape& c = {});

// NVLS: NCCL charges intraLat once per call (section 1.4); the engine's chunk chain crosses the switch
// kNvlsChainLegs = 4 times (generators.hpp), so each leg carries hw_latency / 4 and the chain costs NCCL's intraLat.
//
// Section 1.4. Microseconds. Throws std::invalid_argument for combinations that do not exist (tree or NVLS
// non-allreduce, NVLS across nodes). NVLS: lat = base (0) + intraLat. NVLS Tree: base (0) + intraLat + 2 log2(N)
// interLat (the NVLSTree NVLink and NET rows of 1.3); the engine spreads intraLat over the 4 switch legs as NVLS.
double latency_us(const NcclTuning& t, Op op, Algo algo, Proto proto, const CommShape& c);
// Section 1.5: algorithm bandwidth in GB/s (bus bandwidth with protocol refinements, converted), before the
// size-dependent corrections. 0 where the combination does not exist. NVLS allreduce: busBw = intra bw (channels x
// bwIntra) x nvls_efficiency[arch] x (nvls_channels - 1) / nvls_channels x 2, algBw = busBw x n / (2(n-1)).
// NVLS Tree allreduce [derived; the stored reference gives no NVLSTree bandwidth at HEAD]: the NVLS form on one
// node's ppn GPUs (tree intra bw) as algBw, bounded by the network: channels x bwInter (the node's NICs carry S per
// direction for 2 nodes), for N > 2 x NCCL 2.18.3's NVLSTree ratio nvls_tree_ratio_coeff N / (2 (N - 1)) (0.70 x
// 4/6 = 0.47 on 4 nodes, -> 0.35 for many: an interior tree node forwards up and down).
double bandwidth_GBps(const NcclTuning& t, Op op, Algo algo, Proto proto, const CommShape& c);

struct AlgoTime {
  double latency_us = 0, bandwidth_GBps = 0, time_us = 0;  // time_us < 0: not available
};
// Section 1.1: lat (x ring plateau) + bytes / (1000 * bw (x tree correction)), latCount = 1. `bytes` is NCCL's
// nBytes (allgather / reducescatter: the total array, as nccl-tests' S).
AlgoTime algo_time(const NcclTuning& t, Op op, Algo algo, Proto proto, Bytes bytes, const CommShape& c);

// Section 1.6 (enqueue.cc): drop channels while bytes < channels * threads * threshold, then halve the threads
// (while threads % 128 == 0). Simple adds a sync warp for ring (+32) and four for tree (+128) afterwards.
struct Trimmed {
  std::uint32_t channels = 1, threads = 0;
};
Trimmed trim_channels(const NcclTuning& t, Algo algo, Proto proto, Bytes bytes, std::uint32_t channels,
                      std::uint32_t ranks);

struct Selection {
  Algo algo = Algo::Ring;
  Proto proto = Proto::Simple;
  AlgoTime cost;
  Trimmed launch;  // channels / threads after trimming
};
// argmin of algo_time over the allowed (algo, proto) pairs: each registered algorithm for the collectives it
// implements, where it is available (AlgorithmInfo::unavailable: NVLS only on one Hopper+ NVSwitch node ...), with
// its protocols (NVLS: Simple only), LL128 only when enabled; NCCL 2.19+ also picks NVLS for allgather /
// reducescatter, not modelled. Ties keep the first in (registry id) x (LL, LL128, Simple) order, as NCCL's loop.
// Throws std::invalid_argument when nothing is allowed. SendRecv and AllToAll always use Ring/Simple (p2p does not
// go through this model; an assumption: NCCL >= 2.19 runs p2p operations up to NCCL_P2P_LL_THRESHOLD with LL, not
// modelled).
Selection select(const NcclTuning& t, Op op, Bytes bytes, const CommShape& c, const Allowed& allowed = {});

// nccl-tests (section 2): busbw = algbw * factor; allreduce 2(n-1)/n; allgather, reducescatter, alltoall (n-1)/n;
// broadcast, reduce, sendrecv 1.
double busbw_factor(Op op, std::uint32_t ranks);
// nccl-tests' S from the per-rank element bytes (count * typesize): allgather / reducescatter multiply by n, and so
// does alltoall (count is per peer there).
Bytes nccl_tests_size(Op op, Bytes count_bytes, std::uint32_t ranks);
// algbw in GB/s (1e9 bytes) for S bytes in `time_us` microseconds.
double algbw_GBps(Bytes size, double time_us);

}  // namespace vgsim::coll
