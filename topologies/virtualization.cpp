// Hypervisors, VMs and GPU endpoints of a cluster (see include/vgsim/topologies/virtualization.hpp). Reads each host's
// "hypervisor" and "vms" (a host entry's keys replace its template's), validates the GPU assignments against NVIDIA's
// rules (whole-GPU passthrough is exclusive; time-sliced vGPUs: one profile per GPU, at most its max count; MIG: valid
// start slots, no overlap, at most max_instances and 7 compute slices, never mixed with time-slicing; multi-vGPU VMs
// only with full-framebuffer non-MIG profiles), then adds per-VM resources (socket threads, no-ATS P2P) and the host
// vswitch after the existing resources, so bare-metal resource indices never move. Defaults carry their sources below.
#include <algorithm>
#include <cstdio>
#include <map>
#include <set>
#include <stdexcept>

#include "topologies/detail/cluster_impl.hpp"

namespace vgsim::topo::detail {

namespace {

std::string list_of(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s;
}

std::string fmt_gbps(Bandwidth b) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.4g GB/s", b.GBps());
  return buf;
}

[[noreturn]] void fail_at(const std::string& file, const std::string& path, const std::string& problem,
                          const std::string& value, const std::string& expected) {
  throw InputError(file, path, problem, value, expected);
}

// One GPU assignment of a VM, as read.
struct Assign {
  std::uint32_t vm = 0;   // index in this host's VM list
  std::uint32_t gpu = 0;  // template-local GPU index
  std::string mode, profile;
  std::uint32_t placement = 0;
  const MigProfile* mig = nullptr;
  const VgpuProfile* vgpu = nullptr;
  std::string path;  // JSON path of the assignment object
};

// Defaults of the hypervisor parameters. Every number here is an assumption or derived, and says so; the facts they
// rest on, with their public provenance, are in docs/SOURCES.md#vm-overheads.
constexpr double kComputeEfficiency = 0.98;
const char* const kComputeSource =
    "[derived] default 0.98: VM within about 2 % of bare metal (the seed documents), consistent with the Dell white "
    "paper (< 5 % training loss vs bare metal) and VMware MLPerf Inference v1.1 (94.4-100 % of bare metal); "
    "docs/SOURCES.md#vm-overheads";
const char* const kPvrdmaSource =
    "default 5 us [assumption: PVRDMA adds virtualization latency, no figure in the public material; "
    "docs/SOURCES.md#vm-network]";
const char* const kVswitchLatencySource =
    "default 5 us [assumption: the virtual NIC + vswitch share of the tens to hundreds of us of VM TCP latency; NCCL's "
    "socket software time is left to calibration; docs/SOURCES.md#vm-network]";
const char* const kExtraNetSource =
    "default 0 [assumption: the SR-IOV/passthrough data path bypasses the hypervisor; VM latency noise is "
    "calibration's; docs/SOURCES.md#vm-network]";
const char* const kNoAtsSource =
    "default 0.7 [assumption inside the 0.56-0.8 x bare-metal inter-node range measured for VMs without ATS/ACS fixes; "
    "docs/SOURCES.md#vm-network]";
const char* const kVswitchBandwidthSource =
    "default 100 Gb/s [assumption: the vSphere standard/distributed switch forwards a 100 GbE uplink at line rate with "
    "multiqueue vmxnet3; the binding limit is the VM's socket threads]";

// "cluster file <path>" when the hypervisor object gives `key`, else the default's source.
std::string given_or(const JsonReader& r, const char* key, const char* default_source) {
  return r.has(key) ? "cluster file " + r.path_of(key) : std::string(default_source);
}

VirtOverheads read_hypervisor(const Json& j, const std::string& file, const std::string& path) {
  JsonReader r(j, file, path);
  VirtOverheads o;
  o.hypervisor = r.one_of("type", {"esxi-7.0.3", "kvm", "none"});
  const bool none = o.hypervisor == "none";
  o.compute_efficiency = r.opt_number("compute_efficiency", 0.01, 1.0).value_or(none ? 1.0 : kComputeEfficiency);
  o.compute_source = r.has("compute_efficiency") ? "cluster file " + r.path_of("compute_efficiency")
                     : none
                         ? std::string("bare metal (hypervisor none)")
                         : std::string(kComputeSource) + (o.hypervisor == "kvm" ? " [assumption: applied to KVM too; "
                                                                                  "no KVM figure in the references]"
                                                                                : "");
  o.pvrdma_latency = r.opt_time("pvrdma_latency").value_or(none ? Time{0} : us(5.0));
  o.vswitch_latency = r.opt_time("vswitch_latency").value_or(none ? Time{0} : us(5.0));
  o.extra_net_latency = r.opt_time("extra_net_latency").value_or(Time{0});
  o.no_ats_p2p_efficiency = r.opt_number("no_ats_p2p_efficiency", 0.01, 1.0).value_or(none ? 1.0 : 0.7);
  o.vswitch_bandwidth = r.opt_bandwidth("vswitch_bandwidth").value_or(Bandwidth::from_GBps(12.5));
  const char* const bare = "bare metal (hypervisor none): no virtualization overheads";
  o.extra_net_latency_source = given_or(r, "extra_net_latency", none ? bare : kExtraNetSource);
  o.pvrdma_latency_source = given_or(r, "pvrdma_latency", none ? bare : kPvrdmaSource);
  o.vswitch_latency_source = given_or(r, "vswitch_latency", none ? bare : kVswitchLatencySource);
  o.no_ats_p2p_efficiency_source = given_or(r, "no_ats_p2p_efficiency", none ? bare : kNoAtsSource);
  o.vswitch_bandwidth_source = given_or(r, "vswitch_bandwidth", none ? bare : kVswitchBandwidthSource);
  o.source = none ? bare
                  : r.opt_string("source").value_or("") + (r.has("source") ? "; " : "") +
                        "defaults of topologies/virtualization.cpp unless given: `vgsim params` lists each (virt.*)";
  r.finish();
  return o;
}

std::uint32_t push_res(Cluster::Impl& m, std::string name, Bandwidth cap, std::string kind, std::string source) {
  m.resources.push_back(ResourceInfo{std::move(name), cap, std::move(kind), std::move(source)});
  return static_cast<std::uint32_t>(m.resources.size() - 1);
}

Bandwidth local_capacity(const Template& t, const std::string& name) {
  for (const auto& r : t.res)
    if (r.name == name) return r.capacity;
  throw std::logic_error("vgsim: no local resource " + name);
}

void bare_endpoints(Cluster::Impl& m, std::uint32_t hi) {
  for (std::uint32_t g : m.hosts[hi].gpus) {
    GpuEndpoint e;
    e.name = m.gpus[g].name;
    e.gpu = g;
    e.host = hi;
    e.mode = "bare-metal";
    e.sms = m.gpu_models[g].sms;
    e.memory = m.gpu_models[g].memory;
    m.endpoints.push_back(std::move(e));
  }
}

// Where a host's "hypervisor" and "vms" come from: each key of the host entry replaces the template's.
struct HostDecl {
  const Json* hypervisor = nullptr;
  const Json* vms = nullptr;
  std::string hypervisor_path, vms_path;
};

HostDecl host_decl(const HostInst& h, const Template& t) {
  const bool host_hyp = !h.virt.hypervisor.is_null();
  const bool host_vms = !h.virt.vms.is_null();
  HostDecl d;
  d.hypervisor = host_hyp ? &h.virt.hypervisor : &t.virt.hypervisor;
  d.vms = host_vms ? &h.virt.vms : &t.virt.vms;
  d.hypervisor_path = (host_hyp ? h.virt.path : t.virt.path) + ".hypervisor";
  d.vms_path = (host_vms ? h.virt.path : t.virt.path) + ".vms";
  return d;
}

// The host whose VMs are being built, and what every step of it reads.
struct HostCtx {
  Cluster::Impl& m;
  std::uint32_t hi;
  const HostInst& h;
  const Template& t;
  const Catalog& cat;
  const VirtOverheads& overheads;
  bool none;  // hypervisor "none": the VMs are OS partitions (containers) of a bare-metal host
};

// --- Reading the VMs -------------------------------------------------------------------------------------------

// The template-local index of the GPU an assignment names.
std::uint32_t read_gpu_ref(JsonReader& g, const HostCtx& c) {
  const std::string gn = g.string("gpu");
  auto it = std::find(c.t.gpu_names.begin(), c.t.gpu_names.end(), gn);
  if (it == c.t.gpu_names.end()) {
    const std::string guess = did_you_mean(gn, c.t.gpu_names);
    g.fail("gpu", "dangling reference: no GPU named '" + gn + "' on host '" + c.h.name + "'",
           (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") + "one of: " + list_of(c.t.gpu_names));
  }
  return static_cast<std::uint32_t>(it - c.t.gpu_names.begin());
}

// The profile called `name` in a GPU model's vGPU or MIG table (`kind` "vGPU" or "MIG"); fails with the choices.
template <class Profile>
const Profile* find_profile(JsonReader& g, const std::string& name, const std::vector<Profile>& table,
                            const GpuModel& gm, const std::string& kind) {
  const Profile* found = nullptr;
  std::vector<std::string> names;
  for (const auto& p : table) {
    names.push_back(p.name);
    if (p.name == name) found = &p;
  }
  if (!found) {
    const std::string guess = did_you_mean(name, names);
    g.fail("profile", "no such " + kind + " profile for GPU model " + gm.key,
           names.empty()
               ? "a GPU model with a " + kind + " table in the catalog (this one has none)"
               : (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") + "one of: " + list_of(names));
  }
  return found;
}

// One entry of a VM's "gpus": the GPU, the mode and (vgpu, mig) the profile and placement.
Assign read_assignment(JsonReader& g, const HostCtx& c, std::uint32_t vm) {
  Assign a;
  a.vm = vm;
  a.path = g.path();
  a.gpu = read_gpu_ref(g, c);
  const GpuModel& gm = c.cat.gpu(c.t.gpu_models[a.gpu]);
  a.mode = g.one_of("mode", {"passthrough", "vgpu", "mig"});
  if (a.mode == "vgpu") {
    if (c.none)
      g.fail("mode", "a time-sliced vGPU needs a hypervisor (the host's hypervisor type is \"none\")",
             "\"passthrough\" or \"mig\", or a hypervisor of type esxi-7.0.3 or kvm");
    a.profile = g.string("profile");
    a.vgpu = find_profile(g, a.profile, gm.vgpu_profiles, gm, "vGPU");
  } else if (a.mode == "mig") {
    a.profile = g.string("profile");
    a.mig = find_profile(g, a.profile, gm.mig_profiles, gm, "MIG");
    a.placement = static_cast<std::uint32_t>(g.integer("placement", 0, 7));
  }
  g.finish();
  return a;
}

// A VM's "nic": the NIC port it uses, its mode and ATS.
void read_vm_nic(JsonReader& nr, const HostCtx& c, VmInfo& vm, VmState& st) {
  const Template& t = c.t;
  std::vector<std::string> nic_names;
  for (const auto& n : t.nics) nic_names.push_back(n.name);
  const std::string nn = nr.string("nic");
  auto it = std::find(nic_names.begin(), nic_names.end(), nn);
  if (it == nic_names.end()) {
    const std::string guess = did_you_mean(nn, nic_names);
    nr.fail("nic", "dangling reference: no NIC named '" + nn + "' on host '" + c.h.name + "'",
            (guess.empty() ? std::string() : "did you mean '" + guess + "'? ") + "one of: " + list_of(nic_names));
  }
  const auto ni = static_cast<std::uint32_t>(it - nic_names.begin());
  const auto port = static_cast<std::uint32_t>(nr.opt_integer("port", 0, 63).value_or(0));
  if (port >= t.nics[ni].ports)
    nr.fail("port", "no such cabled port on NIC '" + nn + "'",
            "a port number below " + std::to_string(t.nics[ni].ports));
  vm.nic_mode = c.none ? nr.one_of("mode", {"passthrough", "sriov"})
                       : nr.one_of("mode", {"vmxnet3", "pvrdma", "sriov", "passthrough"});
  vm.ats = nr.opt_boolean("ats").value_or(false);
  if (auto state = nr.opt_one_of("rdma_port", {"active", "down", "unmapped"})) {
    if (vm.nic_mode == "vmxnet3" || !t.nics[ni].rdma)
      nr.fail("rdma_port", "a vmxnet3 NIC, or a NIC without RDMA, has no RDMA port",
              "no \"rdma_port\" here (it applies to pvrdma, sriov and passthrough NICs with RDMA)");
    st.rdma_port_state = parse_rdma_port_state(*state);
  }
  nr.finish();
  for (std::uint32_t p = 0; p < t.ports.size(); ++p)
    if (t.ports[p].nic == ni && t.ports[p].port == port) st.port_local = p;
  vm.nic = c.h.port_base + st.port_local;
}

// What NCCL finds in a guest that does not declare its "interfaces" (each default an assumption, named):
//  - every VM (not the partitions of a host whose hypervisor is "none") has one vmxnet3 vNIC, "ens192", with an address
//  (the VM network; ESXi guests name the first vmxnet3
//    ens192 [assumption: the usual Linux name]), reporting 10 Gb/s: vmxnet3 reports a 10 Gbps link whatever the
//    uplink (vswitchzero.com, "Debunking the VM Link Speed Myth", 2017-10-30), and NCCL takes that figure;
//  - an SR-IOV function or passthrough NIC adds its netdev, "ens224", at the port's speed, with an address when its
//    RDMA port is active and none otherwise [assumption: a VF whose RDMA device is not mapped to its netdev is not
//    configured either], and one RDMA device ("mlx5_0") in the nic's rdma_port state (default active) when the NIC
//    has RDMA;
//  - a PVRDMA adapter is an RDMA device ("vmw_pvrdma0", active) next to the vmxnet3 vNIC.
void default_guest_network(const HostCtx& c, VmInfo& vm, const VmState& st) {
  const Template& t = c.t;
  if (!c.none) vm.interfaces.push_back(NetInterface{"ens192", "vmxnet3", true, 10.0, "generic"});
  if (st.port_local == kNone || vm.nic_mode == "vmxnet3") return;
  const NicDev& nic = t.nics[t.ports[st.port_local].nic];
  if (vm.nic_mode == "pvrdma") {
    if (nic.rdma) vm.rdma_ports.push_back(RdmaPort{"vmw_pvrdma0", st.rdma_port_state});
    return;
  }
  const bool active = st.rdma_port_state == RdmaPortState::Active;
  vm.interfaces.push_back(NetInterface{"ens224", "vf", active || !nic.rdma, nic.speed.Gbps(), "generic"});
  if (nic.rdma) vm.rdma_ports.push_back(RdmaPort{"mlx5_0", st.rdma_port_state});
}

// A VM's declared "interfaces" (replacing the defaults above; the RDMA ports stay those of its nic): each {"name",
// "kind": "vmxnet3" | "vf", "address" (default true), "speed" (what the guest reports; default: 10 Gb/s for vmxnet3,
// the port's speed for the VF), "vendor" (default "generic")}.
void read_guest_interfaces(JsonReader& v, const Template& t, VmInfo& vm, const VmState& st) {
  if (!v.has("interfaces")) return;
  std::vector<JsonReader> list = v.opt_objects("interfaces");
  std::vector<NetInterface> ifs;
  for (JsonReader& r : list) {
    NetInterface f;
    f.name = r.string("name");
    f.kind = r.one_of("kind", {"vmxnet3", "vf"});
    if (f.kind == "vf" && (st.port_local == kNone || vm.nic_mode == "vmxnet3" || vm.nic_mode == "pvrdma"))
      r.fail("kind", "a \"vf\" interface needs the VM's nic in sriov or passthrough mode", "\"vmxnet3\"");
    f.has_address = r.opt_boolean("address").value_or(true);
    const std::optional<Bandwidth> speed = r.opt_bandwidth("speed");
    f.reported_speed_gbps = speed            ? speed->Gbps()
                            : f.kind == "vf" ? t.nics[t.ports[st.port_local].nic].speed.Gbps()
                                             : 10.0;
    f.vendor = r.opt_one_of("vendor", {"generic", "aws", "gcp"}).value_or("generic");
    r.finish();
    ifs.push_back(std::move(f));
  }
  if (ifs.empty()) v.fail("interfaces", "an empty list", "at least one interface (NCCL needs one for bootstrap)");
  vm.interfaces = std::move(ifs);
}

// One VM object (host-local index i): appended to the cluster's VMs, its GPU assignments to `assigns`.
void read_vm(const HostCtx& c, const Json& j, const std::string& vpath, std::uint32_t i,
             std::set<std::string>& vm_names, std::vector<Assign>& assigns) {
  if (!j.is_object()) fail_at(c.m.file, vpath, "wrong type", json_snippet(j), "a VM object");
  JsonReader v(j, c.m.file, vpath);
  VmInfo vm;
  VmState st;
  const std::string short_name = v.string("name");
  if (!vm_names.insert(short_name).second)
    v.fail("name", "duplicated VM name on host '" + c.h.name + "'", "a unique VM name per host");
  vm.name = c.h.name + "/" + short_name;
  vm.host = c.hi;
  vm.vcpus = static_cast<std::uint32_t>(v.integer("vcpus", 1, 4096));
  vm.memory = v.bytes("memory");
  vm.overheads = c.overheads;
  for (JsonReader& g : v.opt_objects("gpus")) assigns.push_back(read_assignment(g, c, i));
  if (auto nr = v.opt_object("nic")) read_vm_nic(*nr, c, vm, st);
  default_guest_network(c, vm, st);
  read_guest_interfaces(v, c.t, vm, st);
  v.finish();
  c.m.vms.push_back(std::move(vm));
  c.m.vm_state.push_back(st);
}

std::vector<Assign> read_vms(const HostCtx& c, const Json& vms, const std::string& vms_path) {
  std::vector<Assign> assigns;
  std::set<std::string> vm_names;
  for (std::size_t i = 0; i < vms.size(); ++i)
    read_vm(c, vms[i], vms_path + "[" + std::to_string(i) + "]", static_cast<std::uint32_t>(i), vm_names, assigns);
  return assigns;
}

// --- Per-GPU rules (each list in declaration order) -------------------------------------------------------------

// Passthrough gives the whole device to one VM.
void check_passthrough(const std::string& file, const std::string& gname, const std::vector<const Assign*>& list) {
  const Assign* pass = nullptr;
  for (const Assign* a : list)
    if (a->mode == "passthrough") pass = a;
  if (pass && list.size() > 1) {
    const Assign* later = list[0] == pass ? list[1] : pass;  // the assignment declared second (list is in order)
    fail_at(file, later->path, "GPU '" + gname + "' is passed through whole to one VM and also assigned elsewhere",
            "\"" + gname + "\"", "a passed-through GPU in exactly one VM (use vGPU or MIG profiles to share it)");
  }
}

// Time-sliced vGPUs: one profile per GPU, at most its max_per_gpu.
void check_time_sliced(const std::string& file, const std::string& gname, const GpuModel& gm,
                       const std::vector<const Assign*>& ts) {
  for (const Assign* a : ts)
    if (a->profile != ts[0]->profile)
      fail_at(file, a->path + ".profile",
              "time-sliced vGPUs of different profiles on GPU '" + gname +
                  "' (NVIDIA allows one profile per GPU in time-sliced mode)",
              "\"" + a->profile + "\"", "\"" + ts[0]->profile + "\" like the first vGPU on this GPU");
  if (ts.size() > ts[0]->vgpu->max_per_gpu)
    fail_at(file, ts[ts[0]->vgpu->max_per_gpu]->path,
            "too many time-sliced vGPUs on GPU '" + gname + "': " + std::to_string(ts.size()) + " x " + ts[0]->profile,
            std::to_string(ts.size()),
            "at most " + std::to_string(ts[0]->vgpu->max_per_gpu) + " " + ts[0]->profile +
                " vGPUs per GPU (catalog vGPU table of " + gm.key + ")");
}

// MIG: at most max_instances of a profile and 7 compute slices in all.
void check_mig_counts(const std::string& file, const std::string& gname, const GpuModel& gm,
                      const std::vector<const Assign*>& mig) {
  std::map<std::string, std::uint32_t> count;
  std::uint32_t slices = 0;
  for (const Assign* a : mig) {
    slices += a->mig->compute_slices;
    if (++count[a->profile] > a->mig->max_instances)
      fail_at(file, a->path, "too many " + a->profile + " MIG instances on GPU '" + gname + "'",
              std::to_string(count[a->profile]),
              "at most " + std::to_string(a->mig->max_instances) + " (catalog MIG table of " + gm.key + ")");
    if (slices > 7)
      fail_at(file, a->path,
              "too many MIG instances on GPU '" + gname + "': " + std::to_string(slices) + " compute slices",
              std::to_string(slices), "at most 7 compute slices per GPU");
  }
}

// MIG: start slots among the profile's placements, memory slices that do not overlap.
void check_mig_placements(const std::string& file, const std::string& gname, const std::vector<const Assign*>& mig) {
  std::vector<const Assign*> slot_owner(8, nullptr);
  for (const Assign* a : mig) {
    const auto& pl = a->mig->placements;
    if (std::find(pl.begin(), pl.end(), a->placement) == pl.end()) {
      std::string valid;
      for (auto x : pl) valid += (valid.empty() ? "" : ", ") + std::to_string(x);
      fail_at(file, a->path + ".placement", "invalid MIG placement for " + a->profile, std::to_string(a->placement),
              "one of the profile's start slots: " + valid);
    }
    // An instance occupies memory slices [placement, placement + memory_slices) of 8 (nvidia-smi mig -lgipp).
    for (std::uint32_t s = a->placement; s < a->placement + a->mig->memory_slices; ++s) {
      if (s >= 8 || slot_owner[s])
        fail_at(file, a->path + ".placement",
                "overlapping MIG placements on GPU '" + gname + "': slot " + std::to_string(s) +
                    (s < 8 ? " is already used by " + slot_owner[s]->profile + "@" +
                                 std::to_string(slot_owner[s]->placement)
                           : std::string(" is past the last slot")),
                std::to_string(a->placement), "instances whose memory slices do not overlap");
      slot_owner[s] = a;
    }
  }
}

void check_gpu_rules(const HostCtx& c, const std::vector<Assign>& assigns) {
  std::map<std::uint32_t, std::vector<const Assign*>> by_gpu;
  for (const auto& a : assigns) by_gpu[a.gpu].push_back(&a);
  for (const auto& [gi, list] : by_gpu) {
    const std::string& gname = c.t.gpu_names[gi];
    const GpuModel& gm = c.cat.gpu(c.t.gpu_models[gi]);
    check_passthrough(c.m.file, gname, list);
    std::vector<const Assign*> ts, mig;
    for (const Assign* a : list) {
      if (a->mode == "vgpu") ts.push_back(a);
      if (a->mode == "mig") mig.push_back(a);
    }
    if (!ts.empty() && !mig.empty())
      fail_at(c.m.file, std::max(ts.back(), mig.back())->path,  // the later declaration (same array, declaration order)
              "MIG instances and time-sliced vGPUs on the same GPU '" + gname + "'", "\"" + gname + "\"",
              "a GPU either in MIG mode (mig assignments only) or time-sliced (vgpu assignments only)");
    if (!ts.empty()) check_time_sliced(c.m.file, gname, gm, ts);
    if (!mig.empty()) {
      check_mig_counts(c.m.file, gname, gm, mig);
      check_mig_placements(c.m.file, gname, mig);
    }
  }
}

// Per-VM rules: multi-vGPU VMs (under a real hypervisor) take full-framebuffer, non-MIG C-series profiles only.
void check_multi_vgpu_vms(const HostCtx& c, const std::vector<Assign>& assigns, std::size_t vm_count) {
  for (std::uint32_t i = 0; i < vm_count; ++i) {
    std::vector<const Assign*> mine;
    for (const auto& a : assigns)
      if (a.vm == i) mine.push_back(&a);
    if (c.none || mine.size() < 2) continue;
    for (const Assign* a : mine)
      if (a->mode == "mig" || (a->mode == "vgpu" && !a->vgpu->full_framebuffer()))
        fail_at(
            c.m.file, a->path + ".profile",
            "a multi-vGPU VM with a " + std::string(a->mode == "mig" ? "MIG" : "fractional (time-sliced)") + " profile",
            "\"" + a->profile + "\"",
            "full-framebuffer (1:1) C-series vGPU profiles or passthrough in a VM with several GPUs "
            "(NVIDIA multi-vGPU rule, docs/SOURCES.md#mig-vgpu)");
  }
}

// --- Endpoints ----------------------------------------------------------------------------------------------------

// The endpoint of one assignment of VM vmi; `sharers`: time-sliced vGPUs on its GPU.
GpuEndpoint vm_endpoint(const HostCtx& c, const Assign& a, std::uint32_t vmi, std::uint32_t sharers) {
  const std::uint32_t g = c.h.gpu_base + a.gpu;
  const GpuModel& gm = c.m.gpu_models[g];
  GpuEndpoint e;
  e.gpu = g;
  e.host = c.hi;
  e.mode = a.mode;
  e.profile = a.profile;
  e.vm = c.m.vms[vmi].name;
  e.vm_index = vmi;
  e.name = e.vm + "/" + c.t.gpu_names[a.gpu];
  e.sms = gm.sms;
  e.memory = gm.memory;
  if (a.mig) {
    e.name += "/" + a.profile + "@" + std::to_string(a.placement);
    e.sms = a.mig->sms;
    e.memory = a.mig->memory;
    e.compute_fraction = static_cast<double>(a.mig->sms) / static_cast<double>(gm.sms);
    e.memory_fraction = a.mig->memory_slices / 8.0;
    e.mig_placement = a.placement;
    e.mig_compute_slices = a.mig->compute_slices;
    e.mig_memory_slices = a.mig->memory_slices;
  } else if (a.vgpu) {
    e.memory = a.vgpu->framebuffer;
    e.memory_fraction = std::min(1.0, static_cast<double>(a.vgpu->framebuffer) / static_cast<double>(gm.memory));
    e.time_slice_sharers = sharers;
    e.time_slice_share = 1.0 / sharers;
  }
  return e;
}

void add_vm_endpoints(const HostCtx& c, const std::vector<Assign>& assigns, std::uint32_t vm_base) {
  std::map<std::uint32_t, std::uint32_t> ts_count;
  for (const auto& a : assigns)
    if (a.mode == "vgpu") ++ts_count[a.gpu];
  for (const auto& a : assigns) {
    const std::uint32_t vmi = vm_base + a.vm;
    GpuEndpoint e = vm_endpoint(c, a, vmi, a.vgpu ? ts_count[a.gpu] : 1);
    c.m.vms[vmi].endpoints.push_back(static_cast<std::uint32_t>(c.m.endpoints.size()));
    c.m.endpoints.push_back(std::move(e));
  }
}

// --- Per-VM resources and notes ---------------------------------------------------------------------------------

// Socket threads of NCCL's TCP transport inside the VM: each helper thread needs a vCPU and half the vCPUs are
// left to the framework (data loading, Horovod/MPI) [assumption], so threads = min(host setting, vcpus / 2).
void add_socket_threads(const HostCtx& c, const VmInfo& vm, VmState& st) {
  const Template& t = c.t;
  const std::uint32_t threads = std::max<std::uint32_t>(1, std::min(t.socket_thread_count, vm.vcpus / 2));
  const Bandwidth cap = t.per_thread * static_cast<double>(threads);
  const std::string src = "min(" + std::to_string(t.socket_thread_count) + " threads, " + std::to_string(vm.vcpus) +
                          " vCPUs / 2) = " + std::to_string(threads) + " x " + fmt_gbps(t.per_thread) +
                          " [assumption: one vCPU per socket thread, half the vCPUs left to the framework]; " +
                          "per-thread rate: " + t.threads_source;
  // One resource for the VM's sends and receives alike (NCCL's proxy thread moves both; cluster.cpp).
  st.socket_proxy = push_res(c.m, vm.name + "/socket-threads", cap, "socket-threads", src);
}

// SR-IOV/passthrough without ATS: GPU<->NIC peer traffic through the root complex, at a share of the narrowest link.
void add_no_ats_p2p(const HostCtx& c, const VmInfo& vm, VmState& st, const std::vector<std::uint32_t>& local_gpus) {
  const Template& t = c.t;
  Bandwidth link = local_capacity(t, t.nics[t.ports[st.port_local].nic].name + "/pcie-up");
  for (auto lg : local_gpus) link = std::min(link, local_capacity(t, t.gpu_names[lg] + "/pcie-up"));
  const Bandwidth cap = link * vm.overheads.no_ats_p2p_efficiency;
  char buf[160];
  std::snprintf(buf, sizeof buf, "no_ats_p2p_efficiency %.3g x narrowest GPU/NIC PCIe link %s; ",
                vm.overheads.no_ats_p2p_efficiency, fmt_gbps(link).c_str());
  st.no_ats_tx =
      push_res(c.m, vm.name + "/no-ats-p2p/tx", cap, "pcie", buf + vm.overheads.no_ats_p2p_efficiency_source);
  st.no_ats_rx =
      push_res(c.m, vm.name + "/no-ats-p2p/rx", cap, "pcie", buf + vm.overheads.no_ats_p2p_efficiency_source);
}

// Modelling notes: NUMA spread of the VM's devices, GPU pairs without NVLink.
void add_vm_notes(const HostCtx& c, VmInfo& vm, const VmState& st, const std::vector<std::uint32_t>& local_gpus) {
  const Template& t = c.t;
  std::set<std::uint32_t> sockets;
  for (auto lg : local_gpus) sockets.insert(t.gpu_socket[lg]);
  if (st.port_local != kNone) sockets.insert(t.nics[t.ports[st.port_local].nic].socket);
  if (sockets.size() > 1)
    vm.notes.push_back(
        "NUMA: the VM's GPUs and NIC span several sockets; traffic crosses the inter-socket link and "
        "GPUDirect needs NCCL_NET_GDR_LEVEL=SYS");
  bool unbridged = false;
  for (std::size_t x = 0; x < local_gpus.size(); ++x)
    for (std::size_t y = x + 1; y < local_gpus.size(); ++y)
      if (local_gpus[x] != local_gpus[y] && !t.bridge_res.count({local_gpus[x], local_gpus[y]}) &&
          !(t.nvsw_up[local_gpus[x]] != kNone && t.nvsw_up[local_gpus[y]] != kNone))
        unbridged = true;
  if (unbridged)
    vm.notes.push_back(
        "P2P only within NVLink-connected GPUs: other GPU pairs of this VM use SHM through host "
        "memory (PCIe P2P is unsupported under vGPU; NVLink bridges join pairs only)");
}

// Resources and notes of the host's VMs (from vm_base on); true when one of them uses vmxnet3 (the host needs a
// vswitch).
bool add_vm_resources(const HostCtx& c, std::uint32_t vm_base) {
  bool any_vmxnet3 = false;
  for (std::uint32_t vmi = vm_base; vmi < c.m.vms.size(); ++vmi) {
    VmInfo& vm = c.m.vms[vmi];
    VmState& st = c.m.vm_state[vmi];
    // A vmxnet3 vNIC crosses the vswitch whenever NCCL sends over it (also as the fallback of an SR-IOV VM).
    for (const NetInterface& f : vm.interfaces) any_vmxnet3 = any_vmxnet3 || f.kind == "vmxnet3";
    add_socket_threads(c, vm, st);
    std::vector<std::uint32_t> local_gpus;
    for (auto ei : vm.endpoints) local_gpus.push_back(c.m.endpoints[ei].gpu - c.h.gpu_base);
    if ((vm.nic_mode == "sriov" || vm.nic_mode == "passthrough") && !vm.ats && !c.none && !local_gpus.empty())
      add_no_ats_p2p(c, vm, st, local_gpus);
    add_vm_notes(c, vm, st, local_gpus);
  }
  return any_vmxnet3;
}

// --- One host -----------------------------------------------------------------------------------------------------

void build_host(Cluster::Impl& m, std::uint32_t hi, const Catalog& cat) {
  const HostInst& h = m.insts[hi];
  const Template& t = m.templates[h.tmpl];
  const HostDecl d = host_decl(h, t);
  const Json& hyp = *d.hypervisor;
  const Json& vms = *d.vms;
  HostVirt hv;
  if (!hyp.is_null()) hv.overheads = read_hypervisor(hyp, m.file, d.hypervisor_path);
  if (vms.is_null() || (vms.is_array() && vms.empty())) {
    m.host_virt.push_back(hv);
    bare_endpoints(m, hi);
    return;
  }
  if (!vms.is_array()) fail_at(m.file, d.vms_path, "wrong type", json_snippet(vms), "an array of VM objects");
  if (hyp.is_null())
    fail_at(m.file, d.vms_path, "VMs need a hypervisor", json_snippet(vms),
            "a \"hypervisor\": {\"type\": \"esxi-7.0.3\" | \"kvm\" | \"none\"} next to \"vms\"");
  hv.has_vms = true;
  hv.hypervisor_none = hv.overheads.hypervisor == "none";
  const HostCtx c{m, hi, h, t, cat, hv.overheads, hv.hypervisor_none};

  const std::uint32_t vm_base = static_cast<std::uint32_t>(m.vms.size());
  const std::vector<Assign> assigns = read_vms(c, vms, d.vms_path);
  check_gpu_rules(c, assigns);
  check_multi_vgpu_vms(c, assigns, vms.size());
  add_vm_endpoints(c, assigns, vm_base);
  if (add_vm_resources(c, vm_base))
    hv.vswitch = push_res(
        m, h.name + "/vswitch", hv.overheads.vswitch_bandwidth, "vswitch",
        "vswitch_bandwidth " + fmt_gbps(hv.overheads.vswitch_bandwidth) + ": " + hv.overheads.vswitch_bandwidth_source);
  m.host_virt.push_back(hv);
}

}  // namespace

void build_virtualization(Cluster::Impl& m, const Catalog& cat) {
  for (std::uint32_t hi = 0; hi < m.insts.size(); ++hi) build_host(m, hi, cat);
  for (std::uint32_t i = 0; i < m.endpoints.size(); ++i) m.endpoint_by_name.emplace(m.endpoints[i].name, i);
}

}  // namespace vgsim::topo::detail
