// Command-line options for NCCL's knobs (cli/nccl_options.hpp), spelled as nccl-tests users know them (--algo,
// --gdr-level, ...); each option's help is its parameter's declaration (sim::nccl_knob_params, nccl.algo, ...). A flag
// given on the command line sets the knob to true; an absent flag leaves it unset, so a scenario file's value (or
// NCCL's default) stands.
#include "nccl_options.hpp"

namespace vgsim::cli {

namespace {
// "--gdr-level" for nccl.gdr_level: the help of the declaration, and the parameter name for scenario files and --set.
std::string help(const char* name) {
  for (const auto& d : sim::nccl_knob_params())
    if (d.name == name) return d.help + (d.choices.empty() ? "" : " (" + d.expectation() + ")") + " [" + d.name + "]";
  return name;
}
}  // namespace

void add_nccl_options(CLI::App* c, sim::NcclKnobs& k) {
  c->add_option("--algo", k.algo, help("nccl.algo"));
  c->add_option("--proto", k.proto, help("nccl.proto"));
  c->add_option("--channels", k.channels, help("nccl.channels"));
  c->add_option("--p2p-level", k.p2p_level, help("nccl.p2p_level"));
  c->add_option("--gdr-level", k.gdr_level, help("nccl.gdr_level"));
  auto flag = [&](const char* option, std::optional<bool>& target, const char* name) {
    c->add_flag_callback(
        option, [&target] { target = true; }, help(name));
  };
  flag("--ib-disable", k.ib_disable, "nccl.ib_disable");
  flag("--p2p-disable", k.p2p_disable, "nccl.p2p_disable");
  flag("--shm-disable", k.shm_disable, "nccl.shm_disable");
  flag("--gdr-disable", k.gdr_disable, "nccl.gdr_disable");
  c->add_option("--net", k.net, help("nccl.net"));
  c->add_option("--socket-ifname", k.socket_ifname, help("nccl.socket_ifname"));
  c->add_option_function<int>(
       "--gdr-read", [&k](int v) { k.gdr_read = v == 1; }, help("nccl.gdr_read") + " (NCCL_NET_GDR_READ=0|1)")
      ->check(CLI::Range(0, 1));
  c->add_option("--socket-nthreads", k.socket_nthreads, help("nccl.socket_nthreads"));
  c->add_option("--nsocks-perthread", k.nsocks_perthread, help("nccl.nsocks_perthread"));
  c->add_option("--nccl-version", k.version,
                help("nccl.version") + "; vgsim params --nccl-version V says what is approximated")
      ->capture_default_str();
}

}  // namespace vgsim::cli
