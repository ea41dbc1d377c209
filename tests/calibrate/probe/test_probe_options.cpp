// Unit tests of vgsim-probe's command line (calibrate/probe/probe_options.cpp), no GPU needed: nccl-tests' flags
// -b -e -f -i -g -n -w mean what they mean in nccl-tests and give the same options as the probe's earlier long names
// --min --max --factor --gpus --iters --warmup; bad values are InputErrors naming the flag.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "probe_options.hpp"
#include "vgsim/kernel/input_error.hpp"

using namespace vgsim::probe;

namespace {
ProbeOptions parse(std::vector<std::string> args) {
  args.insert(args.begin(), "vgsim-probe");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  ProbeOptions o;
  REQUIRE(parse_probe_options(static_cast<int>(argv.size()), argv.data(), o));
  return o;
}
}  // namespace

TEST_CASE("probe: nccl-tests flags equal the long options") {
  const ProbeOptions a = parse({"-b", "8", "-e", "128M", "-f", "4", "-g", "2", "-n", "7", "-w", "3"});
  const ProbeOptions b =
      parse({"--min", "8", "--max", "128M", "--factor", "4", "--gpus", "2", "--iters", "7", "--warmup", "3"});
  const ProbeOptions c = parse({"--minbytes", "8", "--maxbytes", "128M", "--stepfactor", "4", "--ngpus", "2", "--iters",
                                "7", "--warmup_iters", "3"});
  for (const ProbeOptions* o : {&a, &b, &c}) {
    CHECK(o->collective.min_bytes == 8);
    CHECK(o->collective.max_bytes == 128LL << 20);  // 128M = MiB, as nccl-tests
    CHECK(o->collective.factor == 4.0);
    CHECK(o->gpus == 2);
    CHECK(o->iters == 7);
    CHECK(o->warmup == 3);
    CHECK(options_json(*o) == options_json(a));
  }
  CHECK(a.collective.sizes() == b.collective.sizes());
  CHECK(a.collective.sizes().size() == 13);  // 8 x 4^k = 2^(3 + 2k) for k = 0..12, up to 2^27 = 128 MiB
  CHECK(a.collective.sizes().back() == 128LL << 20);
}

TEST_CASE("probe: -i steps linearly as nccl-tests -i") {
  const ProbeOptions o = parse({"-b", "1K", "-e", "4K", "-i", "1K"});
  CHECK(o.collective.sizes() == std::vector<std::int64_t>{1024, 2048, 3072, 4096});
  CHECK(o.collective.step_bytes == 1024);
}

TEST_CASE("probe: --table and the defaults") {
  CHECK_FALSE(parse({}).table);
  CHECK(parse({"--table"}).table);
  const ProbeOptions d = parse({});
  CHECK(d.collective.min_bytes == 8);
  CHECK(d.collective.max_bytes == 1LL << 30);
  CHECK(d.iters == 20);
  CHECK(d.warmup == 5);
}

TEST_CASE("probe: bad nccl-tests flags name the flag") {
  auto fails = [](std::vector<std::string> args, const std::string& needle) {
    args.insert(args.begin(), "vgsim-probe");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    ProbeOptions o;
    CHECK_THROWS_WITH(parse_probe_options(static_cast<int>(argv.size()), argv.data(), o), Catch::Contains(needle));
  };
  fails({"-f", "1"}, "-f/--stepfactor");
  fails({"-b", "2"}, "-b/--minbytes");
  fails({"-b", "1M", "-e", "1K"}, "-e/--maxbytes");
  fails({"-n", "0"}, "-n/--iters");
  fails({"-w", "-1"}, "-w/--warmup_iters");
  fails({"-g", "0"}, "-g/--ngpus");
  fails({"-i", "2"}, "-i/--stepbytes");
  fails({"-b", "lots"}, "-b");
}
