// Virtualization assumptions of a report (see include/vgsim/sim/virtualization/assumptions.hpp).
#include "vgsim/sim/virtualization/assumptions.hpp"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "vgsim/topologies/path_reasons.hpp"

namespace vgsim::sim::virt {

namespace {
double us(Time t) { return static_cast<double>(t.ps) / 1e6; }
}  // namespace

Json virtualization_assumptions(const topo::Cluster& cl, const std::vector<std::uint32_t>& endpoints,
                                const topo::PathOptions& path, const VgpuSchedulerOptions& vgpu) {
  const auto& eps = cl.endpoints();
  Json j;
  bool any_vm = false, any_vgpu = false, any_mig = false;
  std::set<std::uint32_t> vms;
  Json jeps = Json::array();
  for (std::uint32_t e : endpoints) {
    const topo::GpuEndpoint& ep = eps.at(e);
    Json je = {{"endpoint", ep.name}, {"mode", ep.mode}, {"gpu", cl.gpu_model(ep.gpu).key}};
    if (!ep.profile.empty()) je["profile"] = ep.profile;
    if (ep.mode == "mig") {
      any_mig = true;
      je["sm_fraction"] = ep.compute_fraction;
      je["memory_fraction"] = ep.memory_fraction;
      je["sms"] = ep.sms;
    }
    if (ep.mode == "vgpu") {
      any_vgpu = true;
      je["time_slice_sharers"] = ep.time_slice_sharers;
      je["equal_share"] = ep.time_slice_share;
      je["framebuffer_fraction"] = ep.memory_fraction;
    }
    if (ep.vm_index != UINT32_MAX) {
      any_vm = true;
      vms.insert(ep.vm_index);
      const topo::VmInfo& vm = cl.vms()[ep.vm_index];
      je["vm"] = vm.name;
      je["nic_mode"] = vm.nic_mode.empty() ? "none" : vm.nic_mode;
      je["ats"] = vm.ats;
    }
    jeps.push_back(std::move(je));
  }
  j["bare_metal"] = !any_vm;
  j["endpoints"] = jeps;
  Json hv = Json::array();
  std::set<std::string> seen;
  for (std::uint32_t v : vms) {
    const topo::VirtOverheads& o = cl.vms()[v].overheads;
    if (!seen.insert(o.hypervisor).second) continue;
    hv.push_back({{"hypervisor", o.hypervisor},
                  {"compute_efficiency", {{"value", o.compute_efficiency}, {"source", o.compute_source}}},
                  {"extra_net_latency_us", us(o.extra_net_latency)},
                  {"pvrdma_latency_us", us(o.pvrdma_latency)},
                  {"vswitch_latency_us", us(o.vswitch_latency)},
                  {"no_ats_p2p_efficiency", o.no_ats_p2p_efficiency},
                  {"vswitch_bandwidth", format_bandwidth(o.vswitch_bandwidth)},
                  {"source", o.source}});
  }
  j["hypervisors"] = hv;
  if (hv.empty()) j["compute_efficiency"] = {{"value", 1.0}, {"source", "bare metal"}};
  // GPUDirect RDMA: between the first rank and the first rank on another OS instance, if any.
  Json gdr = {{"gdr_disable", path.gdr_disable}, {"gdr_level", topo::to_string(path.gdr_level)}};
  if (!endpoints.empty()) {
    const auto inst = [&](std::uint32_t e) { return eps[e].vm.empty() ? cl.hosts()[eps[e].host].name : eps[e].vm; };
    for (std::uint32_t e : endpoints) {
      if (inst(e) == inst(endpoints.front())) continue;
      try {
        const topo::Path p = cl.endpoint_path(endpoints.front(), e, path);
        gdr["inter_node_transport"] = topo::to_string(p.transport);
        gdr["gdr_in_use"] = p.gdr;
        gdr["why"] = topo::why_lines(cl, {{endpoints.front(), e}}, path);  // [] when GDR is in use
      } catch (const std::exception& ex) {
        gdr["inter_node_transport"] = std::string("none: ") + ex.what();
      }
      break;
    }
  }
  j["gpudirect"] = gdr;
  if (any_vgpu)
    j["vgpu_scheduler"] = {{"policy", {{"value", to_string(vgpu.policy)}, {"source", vgpu.policy_source}}},
                           {"time_slice_us", {{"value", us(vgpu.time_slice)}, {"source", vgpu.time_slice_source}}},
                           {"switch_cost_us", {{"value", us(vgpu.switch_cost)}, {"source", vgpu.switch_cost_source}}}};
  Json rules = Json::array();
  if (any_vm) rules.push_back("compute times divided by the hypervisor's compute_efficiency (VM speed / bare metal)");
  if (any_vgpu) {
    rules.push_back(
        "time-sliced vGPU: a context's compute advances only in its slices and gets the whole GPU then "
        "(docs/SOURCES.md#mig-vgpu); NCCL communication does not need the slice [assumption]");
  }
  if (any_mig) {
    rules.push_back(
        "MIG: compute scales with the instance's SM share and memory-bound work with its memory-slice "
        "share (roofline per layer); neighbours never interfere (Dell white paper; docs/SOURCES.md#mig-vgpu)");
    rules.push_back("MIG: no P2P between instances; traffic goes through host memory (SHM) or the network");
  }
  if (!any_vm) rules.push_back("bare metal: no virtualization overheads");
  j["rules"] = rules;
  return j;
}

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

// "4 x passthrough", "2 x vgpu A100-20C": endpoint modes with their profiles (at most two named).
std::string mode_words(const Json& a) {
  std::map<std::string, int> modes;
  std::set<std::string> profiles;
  for (const auto& e : a.at("endpoints")) {
    ++modes[e.at("mode").get<std::string>()];
    if (e.contains("profile")) profiles.insert(e.at("profile").get<std::string>());
  }
  std::string m;
  for (const auto& [k, v] : modes) m += (m.empty() ? "" : " + ") + std::to_string(v) + " x " + k;
  int named = 0;
  for (const auto& p : profiles) m += ++named <= 2 ? " " + p : named == 3 ? " ..." : "";
  return m;
}
}  // namespace

std::string virtualization_line(const Json& a) {
  if (a.at("bare_metal").get<bool>()) return "virtualization: bare metal (compute x1, no VM overheads)";
  std::set<std::string> nics;
  bool ats = true;
  for (const auto& e : a.at("endpoints")) {
    if (e.contains("nic_mode")) nics.insert(e.at("nic_mode").get<std::string>());
    if (e.contains("ats")) ats = ats && e.at("ats").get<bool>();
  }
  std::string s = "virtualization: ";
  const Json& hv = a.at("hypervisors");
  if (!hv.empty()) {
    const Json& h = hv.front();
    s += h.at("hypervisor").get<std::string>() + ", " + mode_words(a) + ", NIC";
    for (const auto& n : nics) s += " " + n;
    s += ", ATS " + std::string(ats ? "on" : "off") + ", VM compute x" +
         num(h.at("compute_efficiency").at("value").get<double>());
    if (nics.count("pvrdma")) s += ", PVRDMA +" + num(h.at("pvrdma_latency_us").get<double>()) + " us";
    if (nics.count("vmxnet3")) s += ", vswitch +" + num(h.at("vswitch_latency_us").get<double>()) + " us";
    if (h.at("extra_net_latency_us").get<double>() > 0)
      s += ", net +" + num(h.at("extra_net_latency_us").get<double>()) + " us/side";
  } else {
    s += mode_words(a);
  }
  const Json& g = a.at("gpudirect");
  if (g.contains("gdr_in_use")) s += std::string(", GDR ") + (g.at("gdr_in_use").get<bool>() ? "on" : "off");
  s += a.contains("vgpu_scheduler") ? " (sources: vgsim params virt.* vgpu.*)" : " (sources: vgsim params virt.*)";
  return s;
}

void write_virtualization_summary(std::ostream& out, const Json& a) { out << "  " << virtualization_line(a) << "\n"; }

std::vector<VirtFact> virtualization_facts(const topo::Cluster& cl, std::uint32_t endpoint) {
  const topo::GpuEndpoint& e = cl.endpoints().at(endpoint);
  if (e.vm_index == UINT32_MAX) return {};
  const topo::VmInfo& vm = cl.vms()[e.vm_index];
  const topo::VirtOverheads& o = vm.overheads;
  const std::string file = "cluster " + cl.file();
  return {
      {"virt.hypervisor", o.hypervisor, file + (o.source.empty() ? "" : ": " + o.source)},
      {"virt.vm", vm.name, file},
      {"virt.nic_mode", vm.nic_mode.empty() ? "none" : vm.nic_mode, file},
      {"virt.ats", vm.ats, file + " (Address Translation Services on host, VM and NIC)"},
      {"virt.extra_net_latency", format_time(o.extra_net_latency), o.extra_net_latency_source},
      {"virt.pvrdma_latency", format_time(o.pvrdma_latency), o.pvrdma_latency_source},
      {"virt.vswitch_latency", format_time(o.vswitch_latency), o.vswitch_latency_source},
      {"virt.no_ats_p2p_efficiency", o.no_ats_p2p_efficiency, o.no_ats_p2p_efficiency_source},
      {"virt.vswitch_bandwidth", format_bandwidth(o.vswitch_bandwidth), o.vswitch_bandwidth_source},
  };
}

}  // namespace vgsim::sim::virt
