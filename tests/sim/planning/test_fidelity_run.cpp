// The sweep fidelities run through one function (planning::simulate_at): "folded" runs the step engine with the
// channel fold (CommOptions::fold_channels), says so, and on DGX nodes gives the step engine's iteration with fewer
// engine events; "analytical" falls back to the step engine where its closed forms do not apply; plans name it.
#include <catch2/catch.hpp>
#include <cmath>

#include "vgsim/sim/planning/fidelity_run.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/topologies/catalog.hpp"

using namespace vgsim;
using namespace vgsim::sim;

TEST_CASE("the folded fidelity runs the engine with the channel fold", "[planning]") {
  // Expectation: ResNet-50 DDP on 4 dgx-a100-128 nodes (8 channels; NCCL's model picks trees and rings per bucket):
  // the fold runs one channel per ring and one per tree, so fewer engine events, and docs/BENCHMARKS.md (session 37)
  // measured the iteration identical on 32 nodes (an overlapped iteration dilutes a collective's fold error, at most
  // 4e-5 over six DGX workload cases); bound: 1e-4 relative. The step fidelity is the engine unfolded.
  const topo::Catalog catalog = topo::Catalog::load_default();
  training::JobSpec spec;
  spec.cluster = "dgx-a100-128";
  spec.workload = "resnet50";
  spec.nodes = 4;
  spec.gpus_per_node = 8;
  const training::TrainingJob job = training::resolve_job(spec, catalog);
  const planning::FidelityStudy step = planning::simulate_at(job, planning::Fidelity::Step);
  const planning::FidelityStudy folded = planning::simulate_at(job, planning::Fidelity::Folded);
  CHECK(step.used == planning::Fidelity::Step);
  CHECK(folded.used == planning::Fidelity::Folded);
  CHECK_FALSE(job.comm.fold_channels);  // the job itself is left as it was
  CHECK(folded.study.result.events < step.study.result.events);
  const double t_folded = folded.study.result.iteration_time.us(), t_step = step.study.result.iteration_time.us();
  CHECK(std::abs(t_folded - t_step) / t_step <= 1e-4);
  CHECK(std::string(planning::to_string(planning::parse_fidelity("folded"))) == "folded");
}
