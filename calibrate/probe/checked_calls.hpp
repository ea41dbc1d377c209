// Checked CUDA / NCCL / cuBLAS / MPI calls and the fatal-error path of vgsim-probe. A failed call prints one line
// naming the call, its error string, the rank and host, and ends the process with kExitCallFailed; under MPI it calls
// MPI_Abort so that no peer is left waiting in a collective (never a hang). A Watchdog ends the process the same way
// when an armed region (communicator init, a timed loop) runs past its deadline.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace vgsim::probe {

// Who we are, for error messages, and whether MPI_Abort must be used. Set once after MPI_Init.
void set_fatal_context(bool mpi_active, int world_rank, const std::string& hostname);
bool mpi_is_active();

// Prints "vgsim-probe: error: [rank r on host] <message>" and ends the whole job with `exit_code`.
[[noreturn]] void fatal(int exit_code, const std::string& message);
// Prints "vgsim-probe: warning: <message>" (any rank).
void warn(const std::string& message);

void check_cuda(cudaError_t rc, const char* call, const char* file, int line);
void check_nccl(ncclResult_t rc, const char* call, const char* file, int line);
void check_cublas(cublasStatus_t rc, const char* call, const char* file, int line);
void check_mpi(int rc, const char* call, const char* file, int line);

// A background thread that ends the job when an armed region takes longer than `timeout_s`.
class Watchdog {
 public:
  explicit Watchdog(double timeout_s);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

  void arm(const std::string& what);  // starts the clock for `what`
  void disarm();

 private:
  void run();

  double timeout_s_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool armed_ = false;
  bool stop_ = false;
  std::string what_;
  std::chrono::steady_clock::time_point deadline_;
  std::thread thread_;
};

// Disarms the watchdog when it goes out of scope.
class ArmedRegion {
 public:
  ArmedRegion(Watchdog& w, const std::string& what) : w_(w) { w_.arm(what); }
  ~ArmedRegion() { w_.disarm(); }
  ArmedRegion(const ArmedRegion&) = delete;
  ArmedRegion& operator=(const ArmedRegion&) = delete;

 private:
  Watchdog& w_;
};

// Waits until every stream has finished, checking each communicator for an asynchronous NCCL error meanwhile
// (a failed peer or network turns into a fatal error instead of a silent hang; the watchdog bounds the time).
void wait_streams(const std::vector<cudaStream_t>& streams, const std::vector<ncclComm_t>& comms);

}  // namespace vgsim::probe

#define CUDA_CHECK(call) ::vgsim::probe::check_cuda((call), #call, __FILE__, __LINE__)
#define NCCL_CHECK(call) ::vgsim::probe::check_nccl((call), #call, __FILE__, __LINE__)
#define CUBLAS_CHECK(call) ::vgsim::probe::check_cublas((call), #call, __FILE__, __LINE__)
#define MPI_CHECK(call) ::vgsim::probe::check_mpi((call), #call, __FILE__, __LINE__)
