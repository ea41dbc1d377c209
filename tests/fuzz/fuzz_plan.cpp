// Fuzz harness: sweep plan files (planning::load_plan), then, for plans of a few points, the points expanded and the
// first two turned into resolved jobs as `sweep` does before simulating. Bad input must throw InputError or UnitError
// only (see fuzz_common.hpp).
#include "fuzz_common.hpp"
#include "vgsim/sim/planning/plan.hpp"
#include "vgsim/sim/training/job.hpp"
#include "vgsim/topologies/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vgsim;
  if (fuzz::too_large(size)) return 0;
  static const topo::Catalog catalog = topo::Catalog::load_default();
  const std::string path = fuzz::write_temp("plan.json", data, size);
  sim::planning::SweepPlan plan;
  if (!fuzz::accepts([&] { plan = sim::planning::load_plan(path); })) return 0;
  if (sim::planning::point_count(plan) == 0) fuzz::property_failed("an accepted plan has no point");
  if (sim::planning::point_count(plan) > 64) return 0;
  std::vector<sim::planning::PlanPoint> points;
  if (!fuzz::accepts([&] { points = sim::planning::expand(plan); })) return 0;
  if (points.size() != sim::planning::point_count(plan)) fuzz::property_failed("expand() size != point_count()");
  for (std::size_t i = 0; i < points.size() && i < 2; ++i)
    fuzz::accepts([&] { (void)sim::training::resolve_job(sim::planning::to_job_spec(plan, points[i]), catalog); });
  return 0;
}
