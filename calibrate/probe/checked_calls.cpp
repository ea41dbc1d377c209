// Checked calls, fatal errors and the watchdog (see checked_calls.hpp).
#include "checked_calls.hpp"

#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "exit_codes.hpp"

namespace vgsim::probe {
namespace {

bool g_mpi_active = false;
int g_rank = 0;
std::string g_host;

std::string where(const char* file, int line) {
  std::string f = file;
  const auto slash = f.find_last_of('/');
  if (slash != std::string::npos) f = f.substr(slash + 1);
  return " (" + f + ":" + std::to_string(line) + ")";
}

}  // namespace

void set_fatal_context(bool mpi_active, int world_rank, const std::string& hostname) {
  g_mpi_active = mpi_active;
  g_rank = world_rank;
  g_host = hostname;
}

bool mpi_is_active() { return g_mpi_active; }

void fatal(int exit_code, const std::string& message) {
  std::string who;
  if (g_mpi_active) who = "[rank " + std::to_string(g_rank) + " on " + g_host + "] ";
  std::fprintf(stderr, "vgsim-probe: error: %s%s\n", who.c_str(), message.c_str());
  std::fflush(stderr);
  std::fflush(stdout);
  if (g_mpi_active) MPI_Abort(MPI_COMM_WORLD, exit_code);
  std::_Exit(exit_code);
}

void warn(const std::string& message) {
  std::string who;
  if (g_mpi_active) who = "[rank " + std::to_string(g_rank) + " on " + g_host + "] ";
  std::fprintf(stderr, "vgsim-probe: warning: %s%s\n", who.c_str(), message.c_str());
  std::fflush(stderr);
}

void check_cuda(cudaError_t rc, const char* call, const char* file, int line) {
  if (rc == cudaSuccess) return;
  fatal(kExitCallFailed,
        std::string(call) + " failed: " + cudaGetErrorName(rc) + ": " + cudaGetErrorString(rc) + where(file, line));
}

void check_nccl(ncclResult_t rc, const char* call, const char* file, int line) {
  if (rc == ncclSuccess) return;
  const char* last = ncclGetLastError(nullptr);
  fatal(kExitCallFailed, std::string(call) + " failed: " + ncclGetErrorString(rc) +
                             (last && *last ? std::string(" (") + last + ")" : std::string()) + where(file, line));
}

void check_cublas(cublasStatus_t rc, const char* call, const char* file, int line) {
  if (rc == CUBLAS_STATUS_SUCCESS) return;
  fatal(kExitCallFailed, std::string(call) + " failed: " + cublasGetStatusString(rc) + where(file, line));
}

void check_mpi(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {0};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  fatal(kExitCallFailed, std::string(call) + " failed: " + text + where(file, line));
}

Watchdog::Watchdog(double timeout_s) : timeout_s_(timeout_s), thread_([this] { run(); }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
}

void Watchdog::arm(const std::string& what) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = true;
    what_ = what;
    deadline_ = std::chrono::steady_clock::now() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                                       std::chrono::duration<double>(timeout_s_));
  }
  cv_.notify_all();
}

void Watchdog::disarm() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    armed_ = false;
  }
  cv_.notify_all();
}

void Watchdog::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_) {
    if (!armed_) {
      cv_.wait(lock);
      continue;
    }
    const auto deadline = deadline_;
    if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && armed_ && !stop_ && deadline_ == deadline) {
      const std::string what = what_;
      lock.unlock();
      fatal(kExitCallFailed, "timed out after " + std::to_string(static_cast<long>(timeout_s_)) + " s in " + what +
                                 " (a peer may have failed, or the network is stuck; raise --timeout for very slow "
                                 "links)");
    }
  }
}

void wait_streams(const std::vector<cudaStream_t>& streams, const std::vector<ncclComm_t>& comms) {
  for (;;) {
    bool done = true;
    for (cudaStream_t s : streams) {
      const cudaError_t rc = cudaStreamQuery(s);
      if (rc == cudaErrorNotReady) {
        done = false;
      } else {
        CUDA_CHECK(rc);
      }
    }
    if (done) return;
    for (ncclComm_t c : comms) {
      ncclResult_t async = ncclSuccess;
      NCCL_CHECK(ncclCommGetAsyncError(c, &async));
      if (async != ncclSuccess && async != ncclInProgress) {
        const char* last = ncclGetLastError(c);
        fatal(kExitCallFailed, std::string("NCCL asynchronous error: ") + ncclGetErrorString(async) +
                                   (last && *last ? std::string(" (") + last + ")" : std::string()));
      }
    }
    std::this_thread::yield();
  }
}

}  // namespace vgsim::probe
