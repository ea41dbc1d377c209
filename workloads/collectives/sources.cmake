# Sources of the collectives part of vgsim::workloads, relative to workloads/ (explicit list, no globbing).
set(VGSIM_COLLECTIVES_SOURCES
  collectives/schedule.cpp
  collectives/generate.cpp
  collectives/ring.cpp
  collectives/chain.cpp
  collectives/sendrecv.cpp
  collectives/alltoall.cpp
  collectives/tree.cpp
  collectives/nvls.cpp
  collectives/nvls_tree.cpp
  collectives/validate.cpp
  collectives/schedule_json.cpp
  collectives/nccl_tuning.cpp
  collectives/nccl_versions.cpp
  collectives/analytical.cpp
  collectives/ompi_allreduce.cpp
)
