// NCCL collective sweep (see collective_sweep.hpp).
#include "collective_sweep.hpp"

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "collective_shape.hpp"
#include "environment_record.hpp"
#include "vgsim/sim/nccl_tests_report.hpp"

namespace vgsim::probe {
namespace {

// One GPU driven by this process: its stream, buffers (sized for the largest sweep size) and timing events.
struct DeviceSlot {
  int device = 0;
  int nccl_rank = 0;
  cudaStream_t stream = nullptr;
  float* send = nullptr;
  float* recv = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
};

// An NCCL_ALGO x NCCL_PROTO setting; "default" leaves the user's environment as it was.
struct Combo {
  std::string algo, proto;
  bool forced() const { return algo != "default"; }
};

std::string nccl_name(const std::string& v) {
  if (v == "ring") return "Ring";
  if (v == "tree") return "Tree";
  if (v == "nvls") return "NVLS";
  if (v == "nvlstree") return "NVLSTree";
  if (v == "ll") return "LL";
  if (v == "ll128") return "LL128";
  return "Simple";
}

std::optional<std::string> getenv_opt(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::optional<std::string>(v) : std::nullopt;
}

// Label of the user's own NCCL_ALGO / NCCL_PROTO for the "default" combination: the schema value when it names
// exactly one, otherwise "default" (the environment record lists the variable verbatim).
std::string default_label(const std::optional<std::string>& value, const std::vector<std::string>& allowed) {
  if (!value) return "default";
  std::string lower;
  for (char c : *value) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const auto& a : allowed) {
    if (a == lower) return a;
  }
  return "default";
}

void set_or_unset(const char* name, const std::optional<std::string>& v) {
  if (v) {
    setenv(name, v->c_str(), 1);
  } else {
    unsetenv(name);
  }
}

class Communicators {
 public:
  Communicators(const ProbeContext& ctx, std::vector<DeviceSlot>& slots, Watchdog& w)
      : ctx_(ctx), slots_(slots), w_(w) {}
  ~Communicators() { destroy(); }

  bool live() const { return !comms_.empty(); }
  const std::vector<ncclComm_t>& comms() const { return comms_; }

  void create() {
    ArmedRegion armed(w_, "NCCL communicator init");
    comms_.assign(slots_.size(), nullptr);
    if (!ctx_.use_mpi) {
      std::vector<int> devs;
      for (const auto& s : slots_) devs.push_back(s.device);
      NCCL_CHECK(ncclCommInitAll(comms_.data(), static_cast<int>(devs.size()), devs.data()));
    } else {
      ncclUniqueId id{};
      if (ctx_.world_rank == 0) NCCL_CHECK(ncclGetUniqueId(&id));
      ctx_.broadcast_bytes(&id, sizeof id);
      CUDA_CHECK(cudaSetDevice(slots_[0].device));
      NCCL_CHECK(ncclCommInitRank(&comms_[0], ctx_.nccl_ranks, id, ctx_.world_rank));
    }
  }

  // After a rejected launch: peers may have kernels in flight waiting for us, so abort rather than destroy.
  void abort() {
    ArmedRegion armed(w_, "ncclCommAbort");
    for (auto& c : comms_) NCCL_CHECK(ncclCommAbort(c));
    comms_.clear();
    for (auto& s : slots_) {
      CUDA_CHECK(cudaSetDevice(s.device));
      const cudaError_t rc = cudaStreamSynchronize(s.stream);
      if (rc != cudaSuccess) CUDA_CHECK(rc);
    }
  }

  void destroy() {
    if (comms_.empty()) return;
    ArmedRegion armed(w_, "ncclCommFinalize/ncclCommDestroy");
    NCCL_CHECK(ncclGroupStart());
    for (auto& c : comms_) NCCL_CHECK(ncclCommFinalize(c));
    NCCL_CHECK(ncclGroupEnd());
    for (auto& c : comms_) NCCL_CHECK(ncclCommDestroy(c));
    comms_.clear();
  }

 private:
  const ProbeContext& ctx_;
  std::vector<DeviceSlot>& slots_;
  Watchdog& w_;
  std::vector<ncclComm_t> comms_;
};

ncclResult_t launch_one(const CollectiveShape& s, const DeviceSlot& slot, ncclComm_t comm, int nranks) {
  const auto count = static_cast<size_t>(s.count);
  if (s.op == "allreduce") return ncclAllReduce(slot.send, slot.recv, count, ncclFloat, ncclSum, comm, slot.stream);
  if (s.op == "allgather") return ncclAllGather(slot.send, slot.recv, count, ncclFloat, comm, slot.stream);
  if (s.op == "reducescatter")
    return ncclReduceScatter(slot.send, slot.recv, count, ncclFloat, ncclSum, comm, slot.stream);
  if (s.op == "broadcast") return ncclBroadcast(slot.send, slot.recv, count, ncclFloat, s.root, comm, slot.stream);
  const int next = (slot.nccl_rank + 1) % nranks;
  const int prev = (slot.nccl_rank - 1 + nranks) % nranks;
  ncclResult_t rc = ncclGroupStart();
  if (rc != ncclSuccess) return rc;
  ncclResult_t first = ncclSend(slot.send, count, ncclFloat, next, comm, slot.stream);
  if (first == ncclSuccess) first = ncclRecv(slot.recv, count, ncclFloat, prev, comm, slot.stream);
  rc = ncclGroupEnd();
  return first != ncclSuccess ? first : rc;
}

// One iteration on every local GPU, grouped (required when one thread drives several GPUs).
ncclResult_t launch_all(const CollectiveShape& s, const std::vector<DeviceSlot>& slots,
                        const std::vector<ncclComm_t>& comms, int nranks) {
  ncclResult_t rc = ncclGroupStart();
  if (rc != ncclSuccess) return rc;
  ncclResult_t first = ncclSuccess;
  for (std::size_t d = 0; d < slots.size(); ++d) {
    const ncclResult_t r = launch_one(s, slots[d], comms[d], nranks);
    if (r != ncclSuccess && first == ncclSuccess) first = r;
  }
  rc = ncclGroupEnd();
  return first != ncclSuccess ? first : rc;
}

std::vector<cudaStream_t> streams_of(const std::vector<DeviceSlot>& slots) {
  std::vector<cudaStream_t> out;
  for (const auto& s : slots) out.push_back(s.stream);
  return out;
}

}  // namespace

// The head of one --table: nccl-tests' preamble line (parsers look for it) and what was measured.
static vgsim::sim::NcclTestsHeader table_header(const ProbeContext& ctx, const ProbeOptions& o, const std::string& op,
                                                const std::string& label) {
  int version = 0;
  ncclGetVersion(&version);  // e.g. 21803 for 2.18.3 (NCCL_VERSION_CODE encoding from 2.9; 2.x.y earlier: 2xyy)
  vgsim::sim::NcclTestsHeader h;
  h.title = "vgsim-probe: " + op + " (" + label + "), " + std::to_string(ctx.nccl_ranks) + " rank(s) on " +
            std::to_string(ctx.nnodes) + " node(s) (measured; NCCL " + std::to_string(version) + ")";
  char pre[256];
  const std::string step = o.collective.step_bytes > 0 ? std::to_string(o.collective.step_bytes) + "(bytes)"
                                                       : std::to_string(o.collective.factor).substr(0, 4) + "(factor)";
  std::snprintf(pre, sizeof pre,
                "nThread 1 nGpus %zu minBytes %lld maxBytes %lld step: %s warmup iters: %d iters: %d agg iters: 1 "
                "validation: 1 graph: 0",
                ctx.devices.size(), static_cast<long long>(o.collective.min_bytes),
                static_cast<long long>(o.collective.max_bytes), step.c_str(), o.warmup, o.iters);
  h.notes.push_back(pre);
  h.notes.push_back("out-of-place only: the in-place columns are N/A (not measured); float, time averaged over ranks");
  return h;
}

namespace {

// One GPU per local device, with buffers for `max_elems` floats.
std::vector<DeviceSlot> create_slots(const ProbeContext& ctx, std::int64_t max_elems) {
  std::vector<DeviceSlot> slots(ctx.devices.size());
  for (std::size_t d = 0; d < slots.size(); ++d) {
    DeviceSlot& s = slots[d];
    s.device = ctx.devices[d];
    s.nccl_rank = ctx.nccl_rank(d);
    CUDA_CHECK(cudaSetDevice(s.device));
    CUDA_CHECK(cudaStreamCreateWithFlags(&s.stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&s.send), static_cast<size_t>(max_elems) * 4));
    CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&s.recv), static_cast<size_t>(max_elems) * 4));
    CUDA_CHECK(cudaEventCreate(&s.start));
    CUDA_CHECK(cudaEventCreate(&s.stop));
  }
  return slots;
}

void destroy_slots(std::vector<DeviceSlot>& slots) {
  for (auto& s : slots) {
    CUDA_CHECK(cudaSetDevice(s.device));
    CUDA_CHECK(cudaEventDestroy(s.start));
    CUDA_CHECK(cudaEventDestroy(s.stop));
    CUDA_CHECK(cudaFree(s.send));
    CUDA_CHECK(cudaFree(s.recv));
    CUDA_CHECK(cudaStreamDestroy(s.stream));
  }
}

// The user's NCCL_ALGO / NCCL_PROTO, restored after the forced combinations.
struct UserChoice {
  std::optional<std::string> algo = getenv_opt("NCCL_ALGO");
  std::optional<std::string> proto = getenv_opt("NCCL_PROTO");
  void restore() const {
    set_or_unset("NCCL_ALGO", algo);
    set_or_unset("NCCL_PROTO", proto);
  }
};

// The combinations to sweep: NCCL's default choice first, recorded under the user's own single NCCL_ALGO/PROTO when
// they set one, then every forced --algos x --protos pair (none with --no-sweep-algos).
std::vector<Combo> combos_of(const ProbeOptions& o, const UserChoice& user) {
  std::vector<Combo> combos{
      {default_label(user.algo, ProbeOptions::all_algos()), default_label(user.proto, ProbeOptions::all_protos())}};
  if (o.sweep_algos) {
    for (const auto& a : o.algos)
      for (const auto& p : o.protos) combos.push_back({a, p});
  }
  return combos;
}

// What one size measured: the time averaged over ranks, the wrong elements summed over ranks, the bandwidths.
struct SizeResult {
  double time_us = 0;
  std::int64_t wrong = 0;
  double algbw = 0, busbw = 0;
};

// The collective record of one size (the measurement JSONL schema, calibrate/SCHEMA.md).
nlohmann::ordered_json collective_record(const ProbeContext& ctx, const CollectiveShape& shape, const std::string& op,
                                         const Combo& combo, const SizeResult& m) {
  nlohmann::ordered_json r;
  r["kind"] = "collective";
  r["op"] = op;
  r["algo"] = combo.algo;
  r["proto"] = combo.proto;
  r["size_bytes"] = shape.size_bytes;
  r["count"] = shape.count;
  r["dtype"] = "float";
  r["redop"] = shape.redop;
  r["root"] = shape.root;
  r["nranks"] = ctx.nccl_ranks;
  r["nnodes"] = ctx.nnodes;
  r["gpus_per_node"] = ctx.gpus_per_node;
  r["in_place"] = false;
  r["time_us"] = round3(m.time_us);
  r["algbw_GBps"] = round3(m.algbw);
  r["busbw_GBps"] = round3(m.busbw);
  r["wrong"] = m.wrong;
  r["library"] = "nccl";
  r["source"] = ctx.source();
  r["usable"] = m.wrong == 0;
  return r;
}

vgsim::sim::NcclTestsRow table_row(const CollectiveShape& shape, const Combo& combo, const SizeResult& m) {
  vgsim::sim::NcclTestsRow row;
  row.size = shape.size_bytes;
  row.count = shape.count;
  row.type = "float";
  row.redop = shape.redop;
  row.root = shape.root;
  row.time = vgsim::Time::from_us(m.time_us);
  row.algbw_GBps = m.algbw;
  row.busbw_GBps = m.busbw;
  row.algo = combo.algo;
  row.proto = combo.proto;
  row.wrong = m.wrong;
  row.in_place = false;
  return row;
}

// --table: nccl-tests' table for one op and combination, in vgsim collective's format (rank 0, stdout); the head
// is printed with the first row.
struct TableOut {
  std::vector<vgsim::sim::NcclTestsRow> rows;
  bool head = false;
};

// The sweep over ops and sizes for one combination after another, on communicators created when first needed.
class CollectiveSweep {
 public:
  CollectiveSweep(const ProbeContext& ctx, const ProbeOptions& o, RecordWriter& writer, Watchdog& watchdog,
                  std::vector<DeviceSlot>& slots, std::int64_t max_elems)
      : ctx_(ctx),
        o_(o),
        writer_(writer),
        watchdog_(watchdog),
        slots_(slots),
        host_(static_cast<size_t>(max_elems)),
        comms_(ctx, slots, watchdog),
        n_(ctx.nccl_ranks) {}

  long wrong_records() const { return wrong_records_; }

  // Every op at every size under one combination's NCCL_ALGO / NCCL_PROTO.
  void run_combo(const Combo& combo, const std::string& label, bool is_default,
                 const std::vector<std::int64_t>& sizes) {
    for (const std::string& op : o_.ops) {
      if (op == "sendrecv" && !is_default) {
        note_p2p_default_only();
        continue;
      }
      TableOut table;
      for (const std::int64_t requested : sizes) {
        const CollectiveShape shape = collective_shape(op, requested, n_);
        if (shape.count == 0) continue;                        // fewer than one float per rank
        if (!run_size(shape, op, combo, label, table)) break;  // the next op gets fresh communicators
      }
      if (table.head) {
        vgsim::sim::write_nccl_tests_tail(std::cout, table.rows);
        std::cout.flush();
      }
    }
    comms_.destroy();  // the next combination needs communicators initialised under its NCCL_ALGO/NCCL_PROTO
  }

 private:
  void note_p2p_default_only() {
    if (p2p_note_written_) return;
    writer_.write(skipped_record(ctx_, "sendrecv", "ring,tree", "ll,ll128,simple",
                                 "NCCL_ALGO does not apply to point-to-point operations; sendrecv is measured "
                                 "with NCCL's default choice only"));
    p2p_note_written_ = true;
  }

  void ensure_communicators() {
    if (comms_.live()) return;
    comms_.create();
    if (!topology_written_) {
      const auto topo = topology_dump_record(ctx_);
      if (!topo.is_null()) writer_.write(topo);
      topology_written_ = true;
    }
  }

  // Measures one size; false when NCCL rejected the combination for this op (communicators aborted).
  bool run_size(const CollectiveShape& shape, const std::string& op, const Combo& combo, const std::string& label,
                TableOut& table) {
    ensure_communicators();
    const std::string what = op + " " + label + " " + std::to_string(shape.size_bytes) + " B";
    ArmedRegion armed(watchdog_, what);
    fill_buffers(shape);
    if (rejected_by_nccl(shape, op, combo, label)) return false;
    for (int it = 1; it < o_.warmup; ++it) NCCL_CHECK(launch_all(shape, slots_, comms_.comms(), n_));
    wait_streams(streams_of(slots_), comms_.comms());
    const SizeResult m = timed_iterations(shape);
    writer_.write(collective_record(ctx_, shape, op, combo, m));
    if (ctx_.is_writer()) print_result(shape, op, label, m);
    if (m.wrong > 0) ++wrong_records_;
    if (o_.table && ctx_.is_writer()) print_table_row(shape, op, combo, label, m, table);
    return true;
  }

  // Inputs: the deterministic pattern; outputs: NaN (0xFF bytes), so a result left by an earlier run fails.
  void fill_buffers(const CollectiveShape& shape) {
    for (auto& s : slots_) {
      fill_input(shape, s.nccl_rank, host_.data());
      CUDA_CHECK(cudaSetDevice(s.device));
      CUDA_CHECK(cudaMemcpy(s.send, host_.data(), static_cast<size_t>(shape.send_count) * 4, cudaMemcpyHostToDevice));
      CUDA_CHECK(cudaMemsetAsync(s.recv, 0xFF, static_cast<size_t>(shape.recv_count) * 4, s.stream));
      CUDA_CHECK(cudaStreamSynchronize(s.stream));
    }
  }

  // The first launch tells whether NCCL accepts this algorithm/protocol for this op; all ranks agree. A rejection
  // is reported, recorded as skipped and aborts the communicators.
  bool rejected_by_nccl(const CollectiveShape& shape, const std::string& op, const Combo& combo,
                        const std::string& label) {
    const ncclResult_t first = launch_all(shape, slots_, comms_.comms(), n_);
    const int any_rejected = ctx_.max(first != ncclSuccess ? 1 : 0);
    if (!any_rejected) return false;
    std::string reason = "rejected by NCCL on another rank";
    if (first != ncclSuccess) {
      const char* last = ncclGetLastError(comms_.comms()[0]);
      reason = std::string(ncclGetErrorString(first)) + (last && *last ? std::string(": ") + last : "");
    }
    if (ctx_.is_writer()) {
      std::fprintf(stderr, "vgsim-probe: %s %s: skipped (%s)\n", op.c_str(), label.c_str(), reason.c_str());
    }
    writer_.write(skipped_record(ctx_, op, combo.algo, combo.proto, reason));
    comms_.abort();
    return true;
  }

  // --iters launches between two events per GPU; the time is the mean over ranks, as nccl-tests -a 1, and every
  // GPU's result is checked against the expected one.
  SizeResult timed_iterations(const CollectiveShape& shape) {
    for (auto& s : slots_) {
      CUDA_CHECK(cudaSetDevice(s.device));
      CUDA_CHECK(cudaEventRecord(s.start, s.stream));
    }
    for (int it = 0; it < o_.iters; ++it) NCCL_CHECK(launch_all(shape, slots_, comms_.comms(), n_));
    for (auto& s : slots_) {
      CUDA_CHECK(cudaSetDevice(s.device));
      CUDA_CHECK(cudaEventRecord(s.stop, s.stream));
    }
    wait_streams(streams_of(slots_), comms_.comms());

    double local_us = 0;
    double local_wrong = 0;
    for (auto& s : slots_) {
      float ms = 0;
      CUDA_CHECK(cudaEventElapsedTime(&ms, s.start, s.stop));
      local_us += static_cast<double>(ms) * 1e3 / o_.iters;
      CUDA_CHECK(cudaSetDevice(s.device));
      CUDA_CHECK(cudaMemcpy(host_.data(), s.recv, static_cast<size_t>(shape.recv_count) * 4, cudaMemcpyDeviceToHost));
      local_wrong += static_cast<double>(count_wrong(shape, s.nccl_rank, n_, host_.data()));
    }
    SizeResult m;
    m.time_us = ctx_.sum(local_us) / n_;
    m.wrong = static_cast<std::int64_t>(ctx_.sum(local_wrong));
    m.algbw = m.time_us > 0 ? static_cast<double>(shape.size_bytes) / (m.time_us * 1e3) : 0.0;
    m.busbw = m.algbw * shape.bus_factor;
    return m;
  }

  void print_result(const CollectiveShape& shape, const std::string& op, const std::string& label,
                    const SizeResult& m) const {
    std::fprintf(stderr, "vgsim-probe: %-13s %-14s %12lld B %12.2f us  busbw %8.2f GB/s  wrong %lld\n", op.c_str(),
                 label.c_str(), static_cast<long long>(shape.size_bytes), m.time_us, m.busbw,
                 static_cast<long long>(m.wrong));
    if (m.wrong > 0)
      warn(op + " " + label + " " + std::to_string(shape.size_bytes) + " B: " + std::to_string(m.wrong) +
           " wrong elements; recorded with \"usable\": false");
  }

  void print_table_row(const CollectiveShape& shape, const std::string& op, const Combo& combo,
                       const std::string& label, const SizeResult& m, TableOut& table) const {
    if (!table.head) {
      vgsim::sim::write_nccl_tests_head(std::cout, table_header(ctx_, o_, op, label));
      table.head = true;
    }
    const vgsim::sim::NcclTestsRow row = table_row(shape, combo, m);
    vgsim::sim::write_nccl_tests_row(std::cout, row);
    std::cout.flush();
    table.rows.push_back(row);
  }

  const ProbeContext& ctx_;
  const ProbeOptions& o_;
  RecordWriter& writer_;
  Watchdog& watchdog_;
  std::vector<DeviceSlot>& slots_;
  std::vector<float> host_;
  Communicators comms_;
  const int n_;
  long wrong_records_ = 0;
  bool topology_written_ = false;
  bool p2p_note_written_ = false;
};

}  // namespace

long run_collective_sweep(const ProbeContext& ctx, const ProbeOptions& o, RecordWriter& writer, Watchdog& watchdog) {
  const std::vector<std::int64_t> sizes = o.collective.sizes();
  if (sizes.empty() || o.ops.empty()) return 0;
  const std::int64_t max_elems = sizes.back() / 4;
  std::vector<DeviceSlot> slots = create_slots(ctx, max_elems);
  const UserChoice user{};
  const std::vector<Combo> combos = combos_of(o, user);
  const Combo& default_combo = combos[0];
  CollectiveSweep sweep(ctx, o, writer, watchdog, slots, max_elems);
  for (std::size_t ci = 0; ci < combos.size(); ++ci) {
    const Combo& combo = combos[ci];
    const bool is_default = ci == 0;
    if (is_default) {
      user.restore();
    } else {
      setenv("NCCL_ALGO", nccl_name(combo.algo).c_str(), 1);
      setenv("NCCL_PROTO", nccl_name(combo.proto).c_str(), 1);
    }
    const std::string label = is_default && default_combo.algo == "default" && default_combo.proto == "default"
                                  ? std::string("default")
                                  : combo.algo + "/" + combo.proto;
    sweep.run_combo(combo, label, is_default, sizes);
  }
  user.restore();
  destroy_slots(slots);
  return sweep.wrong_records();
}

}  // namespace vgsim::probe
