// Process/rank layout of vgsim-probe (see probe_context.hpp).
#include "probe_context.hpp"

#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <map>
#include <set>

#include "checked_calls.hpp"
#include "exit_codes.hpp"

namespace vgsim::probe {
namespace {

constexpr int kHostLen = 256;

std::string local_hostname() {
  char buf[kHostLen] = {0};
  if (gethostname(buf, sizeof(buf) - 1) != 0) return "unknown-host";
  return buf;
}

std::string utc_stamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%SZ", &tm);
  return buf;
}

}  // namespace

bool launched_by_mpi() {
  for (const char* v :
       {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE", "MV2_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"}) {
    if (std::getenv(v) != nullptr) return true;
  }
  return false;
}

ProbeContext start_context(bool use_mpi) {
  ProbeContext ctx;
  ctx.use_mpi = use_mpi;
  ctx.hostname = local_hostname();
  if (!use_mpi) {
    ctx.hostnames = {ctx.hostname};
    ctx.run_id = utc_stamp() + "-" + ctx.hostname;
    return ctx;
  }
  int provided = 0;
  // THREAD_MULTIPLE so the watchdog thread may call MPI_Abort; the probe itself calls MPI from one thread only.
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    fatal(kExitCallFailed, "MPI_Init_thread failed");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_CHECK(MPI_Comm_rank(MPI_COMM_WORLD, &ctx.world_rank));
  MPI_CHECK(MPI_Comm_size(MPI_COMM_WORLD, &ctx.world_size));
  set_fatal_context(true, ctx.world_rank, ctx.hostname);

  // Local rank: Open MPI tells it directly; otherwise split by shared-memory node.
  if (const char* lr = std::getenv("OMPI_COMM_WORLD_LOCAL_RANK")) {
    ctx.local_rank = std::atoi(lr);
  } else {
    MPI_Comm node;
    MPI_CHECK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, ctx.world_rank, MPI_INFO_NULL, &node));
    MPI_CHECK(MPI_Comm_rank(node, &ctx.local_rank));
    MPI_CHECK(MPI_Comm_free(&node));
  }

  std::vector<char> mine(kHostLen, 0), all(static_cast<std::size_t>(kHostLen) * ctx.world_size, 0);
  std::strncpy(mine.data(), ctx.hostname.c_str(), kHostLen - 1);
  MPI_CHECK(MPI_Allgather(mine.data(), kHostLen, MPI_CHAR, all.data(), kHostLen, MPI_CHAR, MPI_COMM_WORLD));
  for (int r = 0; r < ctx.world_size; ++r)
    ctx.hostnames.emplace_back(all.data() + static_cast<std::size_t>(r) * kHostLen);

  char id[128] = {0};
  if (ctx.world_rank == 0) std::strncpy(id, (utc_stamp() + "-" + ctx.hostname).c_str(), sizeof(id) - 1);
  MPI_CHECK(MPI_Bcast(id, sizeof(id), MPI_CHAR, 0, MPI_COMM_WORLD));
  ctx.run_id = id;
  return ctx;
}

void assign_devices(ProbeContext& ctx, int device_count, int gpus) {
  ctx.devices.clear();
  if (ctx.use_mpi) {
    // One GPU per rank: the local rank's device; a rank that sees a single GPU (CUDA_VISIBLE_DEVICES set per rank by
    // the launcher) uses it.
    int dev = device_count == 1 ? 0 : ctx.local_rank;
    if (dev >= device_count)
      fatal(kExitUsage, "local rank " + std::to_string(ctx.local_rank) + " has no GPU of its own (" +
                            std::to_string(device_count) +
                            " visible on this node); start at most one rank per GPU (mpirun -N <gpus per node>)");
    ctx.devices.push_back(dev);
  } else {
    const int n = gpus > 0 ? gpus : device_count;
    if (n > device_count)
      fatal(kExitUsage,
            "--gpus " + std::to_string(gpus) + " but only " + std::to_string(device_count) + " GPU(s) visible");
    for (int d = 0; d < n; ++d) ctx.devices.push_back(d);
  }
  ctx.nccl_ranks = ctx.world_size * static_cast<int>(ctx.devices.size());
  std::map<std::string, int> per_node;
  for (const auto& h : ctx.hostnames) per_node[h] += static_cast<int>(ctx.devices.size());
  ctx.nnodes = static_cast<int>(per_node.size());
  ctx.gpus_per_node = 0;
  for (const auto& [h, n] : per_node) ctx.gpus_per_node = std::max(ctx.gpus_per_node, n);
  if (ctx.use_mpi && ctx.max(static_cast<int>(ctx.devices.size())) != static_cast<int>(ctx.devices.size()))
    fatal(kExitCallFailed, "ranks drive different GPU counts");
}

double ProbeContext::sum(double v) const {
  if (!use_mpi) return v;
  double out = 0;
  MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  return out;
}

int ProbeContext::max(int v) const {
  if (!use_mpi) return v;
  int out = 0;
  MPI_CHECK(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD));
  return out;
}

void ProbeContext::barrier() const {
  if (use_mpi) MPI_CHECK(MPI_Barrier(MPI_COMM_WORLD));
}

void ProbeContext::broadcast_bytes(void* data, int bytes) const {
  if (use_mpi) MPI_CHECK(MPI_Bcast(data, bytes, MPI_BYTE, 0, MPI_COMM_WORLD));
}

std::vector<std::string> ProbeContext::gather_strings(const std::string& s) const {
  if (!use_mpi) return {s};
  int len = static_cast<int>(s.size());
  std::vector<int> lens(world_rank == 0 ? world_size : 0), displs;
  MPI_CHECK(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, MPI_COMM_WORLD));
  std::vector<char> all;
  if (world_rank == 0) {
    int total = 0;
    for (int l : lens) {
      displs.push_back(total);
      total += l;
    }
    all.resize(static_cast<std::size_t>(std::max(total, 1)));
  }
  MPI_CHECK(MPI_Gatherv(s.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(), MPI_CHAR, 0, MPI_COMM_WORLD));
  std::vector<std::string> out;
  if (world_rank == 0) {
    for (int r = 0; r < world_size; ++r) out.emplace_back(all.data() + displs[r], static_cast<std::size_t>(lens[r]));
  }
  return out;
}

}  // namespace vgsim::probe
