// Sweep points over MPI ranks (see sweep_mpi.hpp). Dynamic distribution, not a static i % world split: point costs
// differ by orders of magnitude (1 vs 4 hosts, step vs analytical fidelity), so a rank asks rank 0 for the next
// index whenever one of its threads is free. Protocol (all messages between rank 0 and one other rank, in order):
//   other -> 0  kWork  [a finished PointResult, or nothing on the first request]   0 -> other  kPoint  u64 index
//   other -> 0  kFail  [error text of an internal error in a point]                0 -> other  kPoint  kStop
//   other -> 0  kBye   [why this rank could not start, or nothing]                 0 -> other  kStatus int exit code
// A result travels as its lossless JSON (sim/planning/point_result_json.hpp, the sweep journal's payload). Waits
// poll with short sleeps rather than blocking MPI calls, which spin in Open MPI and would steal cores from points.
#include "vgsim/sim/planning/sweep_mpi.hpp"

#define OMPI_SKIP_MPICXX 1  // the C API only: no deprecated C++ bindings
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <future>
#include <iostream>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "vgsim/sim/planning/point_result_json.hpp"

namespace vgsim::sim::planning {

namespace {

enum Tag : int { kWork = 1, kFail, kBye, kPoint, kStatus };
constexpr std::uint64_t kStop = ~std::uint64_t{0};
constexpr auto kPollSleep = std::chrono::microseconds(100);

void check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw std::runtime_error(std::string("MPI error in ") + what);
}

// A PointResult travels as its lossless JSON (point_result_json.hpp, the journal's record payload).
std::string encode(const PointResult& r) { return to_json(r).dump(); }

PointResult decode(const std::string& bytes) {
  try {
    return point_result_from_json(nlohmann::json::parse(bytes), "MPI sweep message", "result");
  } catch (const std::exception& e) {  // ranks of one binary disagree: an internal error (exit 1), not bad input
    throw std::runtime_error(std::string("malformed sweep result message: ") + e.what());
  }
}

void wait(MPI_Request& req) {
  for (;;) {
    int flag = 0;
    check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), "MPI_Test");
    if (flag) return;
    std::this_thread::sleep_for(kPollSleep);
  }
}

void send_bytes(const std::string& bytes, int to, int tag) {
  MPI_Request req;
  check(MPI_Isend(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD, &req), "MPI_Isend");
  wait(req);
}

template <class T>
void send_value(T v, int to, int tag) {
  send_bytes(std::string(reinterpret_cast<const char*>(&v), sizeof v), to, tag);
}

template <class T>
T recv_value(int from, int tag) {
  T v{};
  MPI_Request req;
  check(MPI_Irecv(&v, sizeof v, MPI_BYTE, from, tag, MPI_COMM_WORLD, &req), "MPI_Irecv");
  wait(req);
  return v;
}

// The next message from any rank, or nothing (does not wait).
bool poll_message(int& from, int& tag, std::string& bytes) {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return false;
  int n = 0;
  check(MPI_Get_count(&st, MPI_BYTE, &n), "MPI_Get_count");
  bytes.assign(static_cast<std::size_t>(n), '\0');
  from = st.MPI_SOURCE;
  tag = st.MPI_TAG;
  check(MPI_Recv(bytes.data(), n, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE), "MPI_Recv");
  return true;
}

}  // namespace

bool launched_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

MpiSweep::MpiSweep() {
  int provided = 0;
  check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &world_), "MPI_Comm_size");
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    finalized_ = true;
    throw std::runtime_error("the MPI library does not support MPI_THREAD_FUNNELED");
  }
}

MpiSweep::~MpiSweep() { finalize(); }

void MpiSweep::finalize() {
  if (!finalized_) MPI_Finalize();
  finalized_ = true;
}

unsigned MpiSweep::local_ranks() const {
  const char* s = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const int n = s ? std::atoi(s) : 1;
  return n > 0 ? static_cast<unsigned>(n) : 1u;
}

PointExecutor MpiSweep::coordinator(unsigned jobs, bool progress) {
  return [this, jobs, progress](const std::vector<std::size_t>& todo, const PointRun& run, const PointDone& done) {
    std::atomic<std::size_t> next{0}, ran_here{0};
    std::vector<std::size_t> ran_by(static_cast<std::size_t>(world_), 0);
    std::mutex err_mu;
    std::exception_ptr err;
    auto fail = [&](std::exception_ptr e) {
      std::lock_guard<std::mutex> lock(err_mu);
      if (!err) err = e;
      next = todo.size();  // hand out nothing more
    };
    auto local = [&] {
      for (;;) {
        const std::size_t k = next.fetch_add(1);
        if (k >= todo.size()) return;
        try {
          done(todo[k], run(todo[k]));
          ++ran_here;
        } catch (...) {
          fail(std::current_exception());
        }
      }
    };
    std::vector<std::thread> pool;
    const unsigned threads = world_ > 1 ? jobs : std::max(1u, jobs);  // 0: rank 0 only coordinates
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(local);
    // This (the MPI) thread serves the other ranks until each has said goodbye.
    int from = 0, tag = 0;
    std::string bytes;
    try {
      while (byes_ < world_ - 1) {
        if (!poll_message(from, tag, bytes)) {
          std::this_thread::sleep_for(kPollSleep);
          continue;
        }
        if (take_bye(from, tag, bytes)) continue;
        if (tag == kFail) {
          fail(std::make_exception_ptr(std::runtime_error("rank " + std::to_string(from) + ": " + bytes)));
        } else if (tag == kWork && !bytes.empty()) {
          try {  // a failure here still gets its reply below: the asking rank must never be left waiting
            PointResult r = decode(bytes);
            const std::size_t i = r.index;
            done(i, std::move(r));
            ++ran_by[static_cast<std::size_t>(from)];
          } catch (...) {
            fail(std::current_exception());
          }
        }
        const std::size_t k = next.fetch_add(1);
        send_value<std::uint64_t>(k < todo.size() ? todo[k] : kStop, from, kPoint);
      }
    } catch (...) {
      fail(std::current_exception());
    }
    for (auto& t : pool) t.join();
    if (err) std::rethrow_exception(err);
    if (progress) {
      ran_by[0] = ran_here;
      std::cerr << "vgsim sweep: points run per rank:";
      for (int r = 0; r < world_; ++r) std::cerr << " " << r << ":" << ran_by[static_cast<std::size_t>(r)];
      std::cerr << "\n";
    }
  };
}

bool MpiSweep::take_bye(int from, int tag, const std::string& bytes) {
  if (tag != kBye) return false;
  ++byes_;  // a non-empty goodbye says why that rank could not run points
  if (!bytes.empty()) could_not_start_.push_back("rank " + std::to_string(from) + ": " + bytes);
  return true;
}

void MpiSweep::finish(int status) {
  int from = 0, tag = 0;
  std::string bytes;
  while (byes_ < world_ - 1) {  // run_sweep failed before (or while) handing out points: stop everyone
    if (!poll_message(from, tag, bytes)) {
      std::this_thread::sleep_for(kPollSleep);
      continue;
    }
    if (!take_bye(from, tag, bytes)) send_value<std::uint64_t>(kStop, from, kPoint);
  }
  if (status == 0)
    for (const auto& w : could_not_start_) std::cerr << "vgsim: warning: " << w << " (its share ran elsewhere)\n";
  for (int r = 1; r < world_; ++r) send_value<int>(status, r, kStatus);
}

int MpiSweep::serve(const SweepPlan* plan, Fidelity fidelity, unsigned jobs, const std::string& why) {
  std::string bye = why;
  std::vector<PlanPoint> points;
  std::optional<topo::Catalog> catalog;
  if (plan) {
    try {
      points = expand(*plan);
      catalog.emplace(topo::Catalog::load_default());
    } catch (const std::exception& e) {
      bye = e.what();
      plan = nullptr;
    }
  }
  if (plan) {
    // Each thread posts (its last result or failure, a promise of the next index) to this MPI thread.
    struct Request {
      int tag;
      std::string bytes;
      std::promise<std::uint64_t> next;
    };
    std::mutex mu;
    std::condition_variable cv;
    std::deque<Request*> queue;
    auto ask = [&](int tag, std::string bytes) {
      Request req{tag, std::move(bytes), {}};
      auto f = req.next.get_future();
      {
        std::lock_guard<std::mutex> lock(mu);
        queue.push_back(&req);
      }
      cv.notify_one();
      return f.get();
    };
    auto thread = [&] {
      std::uint64_t i = ask(kWork, "");
      while (i != kStop) {
        if (i >= points.size()) {
          ask(kFail, "rank 0 sent point " + std::to_string(i) + " of a plan with " + std::to_string(points.size()));
          return;
        }
        try {
          PointResult r = run_point(*plan, points[i], *catalog, fidelity);
          r.index = i;
          i = ask(kWork, encode(r));
        } catch (const std::exception& e) {
          ask(kFail, std::string("point ") + std::to_string(i) + ": " + e.what());
          return;
        }
      }
    };
    const unsigned n = std::max(1u, jobs);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t) pool.emplace_back(thread);
    for (unsigned stopped = 0; stopped < n;) {
      Request* req;
      {
        std::unique_lock<std::mutex> lock(mu);
        cv.wait(lock, [&] { return !queue.empty(); });
        req = queue.front();
        queue.pop_front();
      }
      send_bytes(req->bytes, 0, req->tag);
      const auto i = recv_value<std::uint64_t>(0, kPoint);
      if (i == kStop || req->tag == kFail) ++stopped;
      req->next.set_value(i);
    }
    for (auto& t : pool) t.join();
  }
  send_bytes(plan ? std::string() : (bye.empty() ? "could not start" : bye), 0, kBye);
  return recv_value<int>(0, kStatus);
}

}  // namespace vgsim::sim::planning
