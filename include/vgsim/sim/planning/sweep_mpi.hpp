// The MPI side of `vgsim sweep` under `mpirun -np N` (Open MPI): rank 0 runs run_sweep as usual (resume, journal,
// progress, final CSV, summary) with an executor that also hands point indices to the other ranks one at a time and
// takes their results back; the other ranks only run points. Only rank 0 touches the output files. It plugs into the
// sweep's seam, SweepOptions::executor (sweep.hpp). No MPI type appears here; the code (sim/planning/sweep_mpi.cpp)
// is the target vgsim::sweep_mpi, built only when MPI is found, whose users get VGSIM_HAVE_MPI defined. Not installed.
#pragma once

#include <string>
#include <vector>

#include "vgsim/sim/planning/sweep.hpp"

namespace vgsim::sim::planning {

// True when Open MPI's mpirun/mpiexec started this process (OMPI_COMM_WORLD_SIZE is set).
bool launched_by_mpirun();

// One MPI session: MPI_Init_thread (MPI_THREAD_FUNNELED: only the calling thread talks MPI) to MPI_Finalize.
class MpiSweep {
 public:
  MpiSweep();
  ~MpiSweep();
  MpiSweep(const MpiSweep&) = delete;
  MpiSweep& operator=(const MpiSweep&) = delete;

  int rank() const { return rank_; }
  int world() const { return world_; }
  unsigned local_ranks() const;  // ranks on this host (OMPI_COMM_WORLD_LOCAL_SIZE), >= 1

  // Rank 0: the executor for SweepOptions::executor. `jobs` local threads (0: rank 0 only coordinates, unless it is
  // alone) and every other rank take points from one counter; returns when every point is done and every other rank
  // has said goodbye. With `progress`, says on stderr how many points each rank ran.
  PointExecutor coordinator(unsigned jobs, bool progress);
  // Rank 0, after run_sweep returned (status 0) or threw (status != 0): answers the remaining requests with "stop"
  // until every rank has said goodbye (nothing left to do after a coordinator that ran), reports ranks that could not
  // start (only when status == 0: otherwise they failed the way rank 0 did, which reports it), then sends `status`.
  void finish(int status);
  // Other ranks: runs points for rank 0 on `jobs` threads until told to stop; returns the exit status rank 0 sends.
  // With plan == nullptr (this rank could not load it; `why` says why) it takes no points and only waits.
  int serve(const SweepPlan* plan, Fidelity fidelity, unsigned jobs, const std::string& why);

  void finalize();  // MPI_Finalize (once; the destructor calls it otherwise)

 private:
  // Rank 0: counts a goodbye message (tag kBye) and keeps its reason; false for any other tag.
  bool take_bye(int from, int tag, const std::string& bytes);
  int rank_ = 0, world_ = 1;
  int byes_ = 0;  // rank 0: goodbyes received
  bool finalized_ = false;
  std::string failure_;  // rank 0: first internal error a rank reported
  std::vector<std::string> could_not_start_;
};

}  // namespace vgsim::sim::planning
