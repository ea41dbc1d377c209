# Sources of the collectives part of vgsim::workloads, relative to workloads/ (explicit list, no globbing).
set(VGSIM_COLLECTIVES_SOURCES
  collectives/schedule.cpp
)
