// Command-line options for NCCL's knobs (sim/cli/nccl_options.hpp). A flag given on the command line sets the
// knob to true; an absent flag leaves it unset, so a scenario file's value (or NCCL's default) stands.
#include "nccl_options.hpp"

namespace vgsim::cli {

void add_nccl_options(CLI::App* c, sim::NcclKnobs& k) {
  c->add_option("--algo", k.algo, "force the algorithm like NCCL_ALGO: ring, tree, nvls (allreduce on one NVSwitch node, Hopper+) or nvlstree (allreduce across Hopper+ NVSwitch nodes)");
  c->add_option("--proto", k.proto, "force the protocol like NCCL_PROTO: ll, ll128 or simple");
  c->add_option("--channels", k.channels, "force the channel count");
  c->add_option("--p2p-level", k.p2p_level, "NCCL_P2P_LEVEL: LOC, NVL, PIX, PXB, PHB, SYS, or NCCL's legacy integer 0-4 "
                                            "(0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS; 2.4: 0-5) (default PXB)");
  c->add_option("--gdr-level", k.gdr_level, "NCCL_NET_GDR_LEVEL: LOC, PIX, PXB, PHB, SYS, or NCCL's legacy integer 0-4 "
                                            "(0 LOC, 1 PIX, 2 PXB, 3 PHB, 4 SYS; 2.4: 0-5) (default PXB)");
  auto flag = [&](const char* name, std::optional<bool>& target, const char* help) {
    c->add_flag_callback(name, [&target] { target = true; }, help);
  };
  flag("--ib-disable", k.ib_disable, "NCCL_IB_DISABLE=1: TCP sockets between nodes");
  flag("--p2p-disable", k.p2p_disable, "NCCL_P2P_DISABLE=1");
  flag("--shm-disable", k.shm_disable, "NCCL_SHM_DISABLE=1");
  flag("--gdr-disable", k.gdr_disable, "no GPUDirect RDMA (e.g. no nvidia-peermem / ATS off)");
  c->add_option("--nccl-version", k.version, "NCCL release whose tuning tables to use: 2.4 .. 2.30 (vgsim params --nccl-version V says what is approximated)")->capture_default_str();
}

}  // namespace vgsim::cli
