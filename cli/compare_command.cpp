// `vgsim compare a.json b.json [--json out.json]`: A and B are `vgsim train --json` reports or sweep plan points
// ("plan.json#INDEX"); prints a markdown table (throughput, breakdown, what limits the iteration, busiest link,
// differing parameters).
#include "compare_command.hpp"

#include <iostream>
#include <memory>
#include <sstream>

#include "calibration_option.hpp"
#include "catalog_option.hpp"
#include "vgsim/kernel/atomic_file.hpp"
#include "vgsim/sim/planning/compare.hpp"

namespace vgsim::cli {

void add_compare_command(CLI::App& app) {
  struct Args {
    std::string a, b, json_out, calibration;
  };
  auto a = std::make_shared<Args>();
  CLI::App* c = app.add_subcommand("compare", "Compare two designs: train --json reports or plan points (plan.json#3)");
  // Named for the messages CLI11 writes ("design-b is required", not "b is required").
  c->add_option("design-a", a->a, "design A: report JSON or plan.json#INDEX")->required();
  c->add_option("design-b", a->b, "design B: report JSON or plan.json#INDEX")->required();
  c->add_option("--json", a->json_out, "also write the comparison as JSON ('-' for stdout instead of markdown)");
  c->add_option("--calibration", a->calibration, "training profile applied to plan points (reports are read as is)");
  add_catalog_option(c);
  c->callback([a] {
    using namespace sim::planning;
    const auto cal = calibration_sets(a->calibration);
    const Json design_a = load_design(a->a, cal);  // A first: its errors are reported before B's
    const Json cmp = compare_designs(design_a, a->a, load_design(a->b, cal), a->b);
    if (a->json_out == "-") {
      std::cout << cmp.dump(2) << "\n";
      return;
    }
    std::ostringstream s;
    write_compare_markdown(s, cmp);
    std::cout << s.str();
    if (!a->json_out.empty()) write_file_atomically(a->json_out, cmp.dump(2) + "\n");
  });
}

}  // namespace vgsim::cli
