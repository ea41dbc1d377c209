// NCCL's tuning constants by release, 2.4 .. 2.29 (see nccl_versions.hpp). The constants of the known tags are
// copied from docs/SOURCES.md#nccl-versions ("by-version" below), which read NVIDIA/nccl at
// v2.4.8-1, v2.6.4-1, v2.8.4-1, v2.12.12-1 and v2.18.3-1 with `git show` (grade: high, numbers copied from the
// source) plus 2.5.6 and 2.10.3 cells (by-version section 3, docs/SOURCES.md#nccl-tuning). A version
// the reference does not cover takes the nearest known tag's constants (the newer one on a tie) and says so.
// Where NCCL's formula of a release differs from vgsim's (the 2.18+ form of nccl_tuning.cpp), the constant is
// mapped onto vgsim's form and the line says it.
#include "nccl_versions.hpp"

#include <algorithm>
#include <string>

namespace vgsim::coll::detail {

namespace {

constexpr int kRing = 0, kTree = 1, kNvls = 2, kNvlsTree = 3;
constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr int kNvl = 0, kPci = 1, kNet = 2;
constexpr int kVolta = 0, kAmpere = 1, kHopper = 2, kBlackwell = 3;
const std::string kBy = "docs/SOURCES.md#nccl-versions";

void src(NcclTuning& t, const std::string& prefix, const std::string& s) { t.sources.emplace_back(prefix, s); }

// [link][ring, tree][LL, LL128, Simple], the order of the by-version tables.
void set_hw(NcclTuning& t, const double hw[3][2][3]) {
  for (int l = 0; l < 3; ++l)
    for (int a = 0; a < 2; ++a)
      for (int p = 0; p < 3; ++p) t.hw_latency_us[l][a][p] = hw[l][a][p];
}
void set_base(NcclTuning& t, const double ring[3], const double tree[3]) {
  std::copy(ring, ring + 3, t.base_latency_us[kRing]);
  std::copy(tree, tree + 3, t.base_latency_us[kTree]);
}
void set_row3(double (&table)[4][3], int row, const double v[3]) { std::copy(v, v + 3, table[row]); }

// v2.18.3-1: by-version sections 2-5 and 7.
void tables_2_18_3(NcclTuning& t) {
  const double ring_base[3] = {6.6, 14.0, 8.4}, tree_base[3] = {6.8, 14.0, 0.0};
  set_base(t, ring_base, tree_base);
  t.base_latency_us[kNvls][kSimple] = 23.0;
  t.base_latency_us[kNvlsTree][kSimple] = 23.0;
  src(t, "nccl.base_latency.", "NCCL v2.18.3-1 src/graph/tuning.cc:56-59 (" + kBy + ")");
  const double hw[3][2][3] = {
      {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}}, {{1.0, 2.5, 5.7}, {1.0, 1.9, 6.0}}, {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}}};
  set_hw(t, hw);
  t.hw_latency_us[kNvl][kNvls][kSimple] = 0.0;  // 2.18.3: NVLS NVLINK row 0 (its latency is the base 23)
  t.hw_latency_us[kNvl][kNvlsTree][kSimple] = 0.0;
  t.hw_latency_us[kNet][kNvlsTree][kSimple] = 19.0;
  src(t, "nccl.hw_latency.", "NCCL v2.18.3-1 src/graph/tuning.cc:65-78 (" + kBy + ")");
  // llMaxBws: Volta-N1/Intel, Ampere-N1/AMD, Hopper-N1/AMD; no Blackwell row (compCap >= 90 reads Hopper's).
  const double ll_v[3] = {39.0, 39.0, 20.4}, ll_a[3] = {87.7, 22.5, 19.0}, ll_h[3] = {87.7, 22.5, 19.0};
  set_row3(t.ll_max_bw_GBps, kVolta, ll_v);
  set_row3(t.ll_max_bw_GBps, kAmpere, ll_a);
  set_row3(t.ll_max_bw_GBps, kHopper, ll_h);
  set_row3(t.ll_max_bw_GBps, kBlackwell, ll_h);
  src(t, "nccl.ll_max_bw.", "NCCL v2.18.3-1 tuning.cc:86-90 llMaxBws (" + kBy + "; Blackwell reads the Hopper row)");
  const double rll128[4] = {20.0, 20.0, 36.7, 36.7};
  std::copy(rll128, rll128 + 4, t.per_ch_max_ring_ll128_bw_GBps);
  src(t, "nccl.per_ch_max_ring_ll128_bw.", "NCCL v2.18.3-1 tuning.cc:92-96 perChMaxRingLL128Bws (" + kBy + ")");
  const double tl_va[3] = {20.0, 20.0, 20.0}, tl_h[3] = {36.7, 36.7, 29.0};
  set_row3(t.per_ch_max_tree_ll128_bw_GBps, kVolta, tl_va);
  set_row3(t.per_ch_max_tree_ll128_bw_GBps, kAmpere, tl_va);
  set_row3(t.per_ch_max_tree_ll128_bw_GBps, kHopper, tl_h);
  set_row3(t.per_ch_max_tree_ll128_bw_GBps, kBlackwell, tl_h);
  src(t, "nccl.per_ch_max_tree_ll128_bw.", "NCCL v2.18.3-1 tuning.cc:97-101 perChMaxTreeLL128Bws (" + kBy + ")");
  const double tr_v[3] = {26.5, 18.5, 10.0}, tr_a[3] = {24.0, 23.6, 17.8}, tr_h[3] = {38.7, 41.4, 36.0};
  set_row3(t.per_ch_max_tree_bw_GBps, kVolta, tr_v);
  set_row3(t.per_ch_max_tree_bw_GBps, kAmpere, tr_a);
  set_row3(t.per_ch_max_tree_bw_GBps, kHopper, tr_h);
  set_row3(t.per_ch_max_tree_bw_GBps, kBlackwell, tr_h);
  src(t, "nccl.per_ch_max_tree_bw.", "NCCL v2.18.3-1 tuning.cc:102-106 perChMaxTreeBws (" + kBy + ")");
  t.ring_ll_bw_factor = 0.25;
  src(t, "nccl.bw_factor.ring_ll",
      "NCCL 2.8.4-2.18.3 Ring LL busBw x 1/4 (multi-node, allreduce, reduce; NCCL's 1/3 for one-node allgather / "
      "reducescatter / broadcast is not modelled) (" +
          kBy + ")");
  t.tree_ll128_bw_factor = 120.0 / 128.0;
  src(t, "nccl.bw_factor.tree_ll128", "NCCL 2.12.12 / 2.18.3 Tree LL128 x 120/128 (" + kBy + ")");
  const double corr[3][23] = {
      {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1, 1},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};
  std::copy(&corr[0][0], &corr[0][0] + 69, &t.tree_correction[0][0]);
  src(t, "nccl.tree_correction.", "NCCL 2.12.12 / 2.18.3 treeCorrectionFactor (" + kBy + ")");
  t.net_overhead_us[0] = 1.0;
  t.net_overhead_us[1] = 2.0;
  t.net_overhead_us[2] = 1.0;
  src(t, "nccl.net_overhead.",
      "NCCL v2.18.3-1 tuning.cc:108-118 NCCL_NET_OVERHEAD 1.0 us Intel, 2.0 AMD, x3 Simple (" + kBy +
          "; 'other' CPUs: Intel's, an assumption)");
  t.ring_plateau_factor[0] = 1.9;
  t.ring_plateau_factor[1] = 1.4;
  src(t, "nccl.ring_plateau.", "NCCL v2.18.3-1 tuning.cc:392 ring plateau 1.9 (sm < 80) / 1.4 (" + kBy + ")");
  t.ll128_default_archs = (1u << kVolta) | (1u << kAmpere) | (1u << kHopper);
}

// v2.12.12-1, on top of 2.18.3's.
void tables_2_12_12(NcclTuning& t) {
  tables_2_18_3(t);
  const double ring_base[3] = {3.6, 10.0, 8.4}, tree_base[3] = {4.4, 4.4, 0.0};
  set_base(t, ring_base, tree_base);
  t.base_latency_us[kNvls][kSimple] = 0.0;
  t.base_latency_us[kNvlsTree][kSimple] = 0.0;
  src(t, "nccl.base_latency.", "NCCL v2.12.12-1 src/graph/tuning.cc:56 (" + kBy + "; no NVLS before 2.17)");
  const double hw[3][2][3] = {{{0.47, 1.9, 3.4}, {0.52, 1.25, 28.0}},
                              {{1.0, 2.5, 5.7}, {1.0, 1.9, 28.0}},
                              {{2.7, 4.0, 28.0}, {5.0, 8.5, 28.0}}};
  set_hw(t, hw);
  t.hw_latency_us[kNet][kNvlsTree][kSimple] = 0.0;
  src(t, "nccl.hw_latency.", "NCCL v2.12.12-1 src/graph/tuning.cc:63-70 (" + kBy + ")");
  // llMaxBws rows 0 / 1 as 2.18.3 (2.12.12 tuning.cc:74); one node indexes by compCap80, so every GPU but sm80 reads
  // row 0 (by-version section 4: "In 2.8/2.12 compCap80 is 1 only if min = max = sm80").
  set_row3(t.ll_max_bw_GBps, kHopper, t.ll_max_bw_GBps[kVolta]);
  set_row3(t.ll_max_bw_GBps, kBlackwell, t.ll_max_bw_GBps[kVolta]);
  src(t, "nccl.ll_max_bw.",
      "NCCL v2.12.12-1 tuning.cc:74 llMaxBws (" + kBy +
          "; Hopper / Blackwell read row 0, "
          "only sm80 indexes row 1)");
  for (double& v : t.per_ch_max_ring_ll128_bw_GBps) v = 20.0;
  for (auto& row : t.per_ch_max_tree_ll128_bw_GBps)
    for (double& v : row) v = 20.0;
  src(t, "nccl.per_ch_max_ring_ll128_bw.", "NCCL v2.12.12-1 tuning.cc:73 ll128MaxBwPerCh = 20.0 (" + kBy + ")");
  src(t, "nccl.per_ch_max_tree_ll128_bw.",
      "NCCL v2.12.12-1 tuning.cc:73 ll128MaxBwPerCh = 20.0, Tree LL128 too (" + kBy + ")");
  const double tr_a[3] = {24.0, 23.6, 17.8};
  set_row3(t.per_ch_max_tree_bw_GBps, kAmpere, tr_a);
  set_row3(t.per_ch_max_tree_bw_GBps, kHopper, t.per_ch_max_tree_bw_GBps[kVolta]);
  set_row3(t.per_ch_max_tree_bw_GBps, kBlackwell, t.per_ch_max_tree_bw_GBps[kVolta]);
  src(t, "nccl.per_ch_max_tree_bw.",
      "NCCL v2.12.12-1 tuning.cc:75 perChMaxTreeBws (" + kBy +
          "; Volta row "
          "for all but sm80)");
  for (double& v : t.net_overhead_us) v = 0.0;
  src(t, "nccl.net_overhead.", "none before 2.18 (" + kBy + " names NCCL_NET_OVERHEAD for 2.18.3 only)");
  t.ring_plateau_factor[0] = t.ring_plateau_factor[1] = 1.9;
  src(t, "nccl.ring_plateau.", "NCCL v2.12.12-1 tuning.cc:282-283 ring plateau 1.9 for every GPU (" + kBy + ")");
  for (double& v : t.nvls_efficiency) v = 0.0;
  src(t, "nccl.nvls", "no NVLS before 2.17");
  t.ll128_default_archs = (1u << kVolta) | (1u << kAmpere);
}

// v2.8.4-1, on top of 2.12.12's.
void tables_2_8_4(NcclTuning& t) {
  tables_2_12_12(t);
  src(t, "nccl.base_latency.", "NCCL v2.8.4-1 src/graph/tuning.cc:56 (" + kBy + ")");
  t.hw_latency_us[kNet][kRing][kSimple] = 9.6;  // the only cell that differs from 2.12.12 (28)
  src(t, "nccl.hw_latency.", "NCCL v2.8.4-1 src/graph/tuning.cc:63-70 (" + kBy + ")");
  src(t, "nccl.ll_max_bw.", "NCCL v2.8.4-1 tuning.cc:75 llMaxBws (" + kBy + "; Hopper / Blackwell read row 0)");
  // ll128MaxBwPerCh is per collective in 2.8.4 (tuning.cc:74: Bcast 18.8, Reduce 12.0, AllGather 18.3,
  // ReduceScatter 15.2, AllReduce 16.9); vgsim's cap is per architecture: AllReduce's for every collective.
  for (double& v : t.per_ch_max_ring_ll128_bw_GBps) v = 16.9;
  for (auto& row : t.per_ch_max_tree_ll128_bw_GBps)
    for (double& v : row) v = 16.9;
  src(t, "nccl.per_ch_max_ring_ll128_bw.",
      "NCCL v2.8.4-1 tuning.cc:74 ll128MaxBwPerCh[AllReduce] 16.9, used for every "
      "collective (" +
          kBy + ")");
  src(t, "nccl.per_ch_max_tree_ll128_bw.", "NCCL v2.8.4-1 tuning.cc:74 ll128MaxBwPerCh[AllReduce] 16.9 (" + kBy + ")");
  const double tr_a[3] = {24.0, 22.5, 16.0};
  set_row3(t.per_ch_max_tree_bw_GBps, kAmpere, tr_a);
  src(t, "nccl.per_ch_max_tree_bw.",
      "NCCL v2.8.4-1 tuning.cc:76 perChMaxTreeBws (" + kBy +
          "; Volta row for "
          "all but sm80)");
  t.tree_ll128_bw_factor = 0.915;
  src(t, "nccl.bw_factor.tree_ll128", "NCCL v2.8.4-1 tuning.cc:120-136 Tree LL128 x 0.915 (" + kBy + ")");
  const double corr_ll128[23] = {1,  1,  1,  1,  1,  .9, .8, .8, .8, .7,  .6, .6,
                                 .6, .5, .6, .6, .7, .7, .8, .9, .9, .92, .92};
  std::copy(corr_ll128, corr_ll128 + 23, t.tree_correction[kLL128]);
  src(t, "nccl.tree_correction.", "NCCL v2.8.4-1 treeCorrectionFactor (" + kBy + ")");
  src(t, "nccl.ring_plateau.", "NCCL v2.8.4-1 tuning.cc:280-281 ring plateau 1.9 (" + kBy + ")");
}

// v2.6.4-1 (and 2.5.6's latencies, the same), on top of 2.8.4's. Caps that 2.6.4 applies to the whole bus
// bandwidth keep 2.8.4's per-channel values (said in the version's line).
void tables_2_6_4(NcclTuning& t) {
  tables_2_8_4(t);
  const double ring_base[3] = {3.6, 3.6, 8.4}, tree_base[3] = {4.4, 4.4, 0.0};
  set_base(t, ring_base, tree_base);
  src(t, "nccl.base_latency.", "NCCL v2.6.4-1 src/graph/tuning.cc:60 (= v2.5.6-1 tuning.cc:60; " + kBy + ")");
  const double hw[3][2][3] = {
      {{0.4, 2.5, 5.7}, {0.5, 1.9, 28.0}}, {{1.0, 2.5, 5.7}, {1.0, 1.9, 28.0}}, {{0.9, 2.5, 6.6}, {5.0, 7.5, 50.0}}};
  set_hw(t, hw);
  src(t, "nccl.hw_latency.", "NCCL v2.6.4-1 src/graph/tuning.cc:67-74 (= v2.5.6-1's Tree / Ring; " + kBy + ")");
  t.ring_ll_bw_factor = 0.25;
  t.ring_ll128_bw_factor = 120.0 / 128.0;
  t.tree_bw_factor = 0.9;
  t.tree_ll_bw_divisor = 3.0;
  t.tree_ll128_bw_factor = t.tree_ll128_bw_factor_one_node = 7.0 / 9.0;
  src(t, "nccl.bw_factor.",
      "NCCL v2.6.4-1 tuning.cc:106-121: Ring LL x 1/4, Ring LL128 x 120/128, Tree x .9, Tree LL "
      "x 1/3, Tree LL128 x 7/9 (" +
          kBy + ")");
  src(t, "nccl.bw_factor.tree_algbw_ratio", "NCCL v2.6.4-1 tree algBw = busBw x .5 (" + kBy + ")");
  const std::string caps =
      " (2.6.4 caps the whole bus bandwidth instead: ll128MaxBw[AllReduce] 100 GB/s, tree min(busBw "
      "x .9, nNodes > 2 ? 80 : 110), no LL cap; tuning.cc:77, 112; " +
      kBy + ")";
  src(t, "nccl.ll_max_bw.", "NCCL v2.8.4-1 llMaxBws, an approximation" + caps);
  src(t, "nccl.per_ch_max_ring_ll128_bw.", "NCCL v2.8.4-1 ll128MaxBwPerCh[AllReduce] 16.9, an approximation" + caps);
  src(t, "nccl.per_ch_max_tree_ll128_bw.", "NCCL v2.8.4-1 ll128MaxBwPerCh[AllReduce] 16.9, an approximation" + caps);
  src(t, "nccl.per_ch_max_tree_bw.", "NCCL v2.8.4-1 perChMaxTreeBws, an approximation" + caps);
  const double corr[3][23] = {
      {1, 1, 1, 1, .9, .8, .7, .7, .7, .7, .6, .5, .5, .5, .6, .7, .8, .9, .9, 1, 1, 1, 1},
      {1, 1, 1, 1, 1, .9, .8, .8, .8, .8, .7, .7, .7, .6, .6, .7, .7, .8, .8, .9, .9, 1, 1},
      {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .5, .5, .6, .6, .7, .8, .9, 1}};
  std::copy(&corr[0][0], &corr[0][0] + 69, &t.tree_correction[0][0]);
  src(t, "nccl.tree_correction.",
      "NCCL v2.6.4-1 tuning.cc:232-236 treeCorrectionFactor, 22 entries (" + kBy +
          "); entry 22 (256 MiB+) is 1, no correction (an assumption)");
  t.ring_plateau_factor[0] = t.ring_plateau_factor[1] = 1.0;
  src(t, "nccl.ring_plateau.", "none in 2.6.4 (the ring plateau arrives in 2.8.4; " + kBy + ")");
  src(t, "nccl.max_threads.", "NCCL v2.6.4-1 devcomm.h:34,55 NCCL_MAX_NTHREADS 512, LL128 640 (" + kBy + ")");
  t.ll128_default_archs = 1u << kVolta;  // 2.6.4 tuning.cc:163-166: compCap 70 only
}

std::string v2(int minor) { return "2." + std::to_string(minor); }

}  // namespace

void apply_version_tables(NcclTuning& t, int minor) {
  const std::string self = "NCCL " + v2(minor) + ": ";
  const std::string ring_form =
      "; ring latency in 2.8's intra/inter-node form (2.6.4 charges every step its "
      "hardware row)";
  const std::string caps_form =
      "; per-channel LL / LL128 / tree caps of 2.8.4 (2.5 / 2.6 cap the total: LL128 "
      "allreduce 100 GB/s, tree 80-110 GB/s, no LL cap)";
  const std::string ll128_per_op = "; LL128 cap ll128MaxBwPerCh[AllReduce] 16.9 GB/s for every collective";
  const std::string no_nvls = "; no NVLS (from 2.17) or NVLS Tree (from 2.18)";
  if (minor <= 6) {
    tables_2_6_4(t);
    if (minor == 4) {
      t.has_ll128 = false;
      t.tree_on_one_node = false;
      t.approximation = self +
                        "2.4.8 has no tuning model (tree vs ring by NCCL_TREE_THRESHOLD, init.cc:354-377; LL vs "
                        "Simple by a byte threshold, enqueue.cc:267-296; not modelled): the argmin over 2.5.6 / "
                        "2.6.4's constants picks instead; no LL128 (from 2.5); trees only across nodes (2.4.8 "
                        "computes a tree threshold of 0 on one node)" +
                        caps_form + ring_form + no_nvls;
    } else if (minor == 5) {
      t.approximation = self +
                        "latencies of 2.5.6 (= 2.6.4's); other constants 2.6.4's (2.5.6's are not in the "
                        "reference); LL128 on by default on Volta only as in 2.6.4" +
                        caps_form + ring_form + no_nvls;
    } else {
      t.approximation = self + "2.6.4's constants; LL128 on by default on Volta only (tuning.cc:163-166)" + caps_form +
                        ring_form + no_nvls;
    }
  } else if (minor <= 10) {
    tables_2_8_4(t);
    if (minor == 8)
      t.approximation = self + "2.8.4's constants" + ll128_per_op + no_nvls;
    else if (minor == 10)
      t.approximation = self +
                        "tuning constants of 2.8.4, which equal 2.10.3's in every cell the reference gives "
                        "(base and Ring / NET Tree latencies, docs/SOURCES.md#nccl-tuning); the rest is 2.8.4's" +
                        ll128_per_op + no_nvls;
    else
      t.approximation =
          self + "tuning constants of 2.8.4 (" + v2(minor) + "'s are not in the reference)" + ll128_per_op + no_nvls;
  } else if (minor <= 14) {
    tables_2_12_12(t);
    t.approximation = self +
                      (minor == 12 ? std::string("2.12.12's constants")
                                   : "tuning constants of 2.12.12 (" + v2(minor) + "'s are not in the reference)") +
                      "; ring plateau under 2.18's size condition (2.12.12: nBytes >= nRanks / 16 x 64 KiB)" + no_nvls;
  } else if (minor <= 23) {
    tables_2_18_3(t);
    std::string line = minor == 18 ? std::string("2.18.3's constants")
                                   : "tuning constants of 2.18.3 (" + v2(minor) + "'s are not in the reference)";
    if (minor < 17) {
      for (double& v : t.nvls_efficiency) v = 0.0;
      src(t, "nccl.nvls", "no NVLS before 2.17");  // nor the algorithm (AlgorithmInfo::since_minor 17, 18)
      line += no_nvls;
    } else if (minor == 17) {
      line +=
          "; NVLS as in 2.18 (NVLS from 2.17: NCCL release notes, not in the reference [verify]); no NVLS Tree "
          "(from 2.18)";
    }
    if (minor >= 17) line += "; NVLS bandwidth in 2.30's form (x efficiency x (channels - 1) / channels)";
    t.approximation = self + line;
  } else {
    // 2.24 .. 2.29: nearer to 2.30 HEAD (a tie at 2.24 goes to the newer); Tree/Simple base 0 as before HEAD.
    t.base_latency_us[kTree][kSimple] = 0.0;
    src(t, "nccl.base_latency.tree.simple", "0 before 2.30 HEAD (docs/SOURCES.md#nccl-tuning)");
    t.approximation = self + "tuning constants of 2.30 HEAD (" + v2(minor) +
                      "'s are not in the reference) with "
                      "Tree/Simple base latency 0 (8.4 only at HEAD, docs/SOURCES.md#nccl-tuning)";
  }
}

}  // namespace vgsim::coll::detail
