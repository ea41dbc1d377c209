// Command line and plan file of vgsim-probe (see probe_options.hpp).
#include "probe_options.hpp"

#include <CLI/CLI.hpp>
#include <cmath>
#include <iostream>
#include <optional>
#include <sstream>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/kernel/json_input.hpp"
#include "vgsim/kernel/units.hpp"

namespace vgsim::probe {
namespace {

const std::vector<std::string> kOps{"allreduce", "allgather", "reducescatter", "broadcast", "sendrecv"};
const std::vector<std::string> kAlgos{
    "ring", "tree", "nvls", "nvlstree"};  // nvls / nvlstree: opt-in (Hopper+ NVSwitch nodes; nvlstree multi-node only)
const std::vector<std::string> kProtos{"ll", "ll128", "simple"};
const std::vector<std::string> kPrecisions{"fp32", "tf32", "fp16", "bf16"};

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (!item.empty()) out.push_back(item);
  }
  return out;
}

// Checks each element of a list against `allowed` (CLI side).
void check_cli_list(const std::string& option, const std::vector<std::string>& values,
                    const std::vector<std::string>& allowed) {
  if (values.empty()) throw InputError("command line", option, "empty list", "", "a comma-separated list");
  for (const auto& v : values) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == v;
    if (!ok) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      const std::string hint = did_you_mean(v, allowed);
      throw InputError("command line", option,
                       "unknown value" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"), v, "one of " + list);
    }
  }
}

// Checks each element of a plan list against `allowed` (plan side, located by JSON path).
std::vector<std::string> plan_list(JsonReader& r, const std::string& key, const std::vector<std::string>& allowed) {
  std::vector<std::string> values = r.strings(key);
  if (values.empty()) r.fail(key, "empty list", "at least one value");
  for (const auto& v : values) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == v;
    if (!ok) {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      const std::string hint = did_you_mean(v, allowed);
      r.fail(key, "unknown value '" + v + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"),
             "each one of " + list);
    }
  }
  return values;
}

void read_sweep(JsonReader& r, SizeSweep& sweep) {
  if (auto v = r.opt_bytes("min_bytes")) sweep.min_bytes = *v;
  if (auto v = r.opt_bytes("max_bytes")) sweep.max_bytes = *v;
  if (auto v = r.opt_number("factor", 1.0000001, 1024.0)) sweep.factor = *v;
  if (sweep.min_bytes < 4) r.fail("min_bytes", "too small", "at least 4 bytes (one float)");
  if (sweep.max_bytes < sweep.min_bytes) r.fail("max_bytes", "smaller than min_bytes", "max_bytes >= min_bytes");
}

void load_plan(const std::string& path, ProbeOptions& o) {
  const Json j = load_json_file(path);
  JsonReader r(j, path);
  if (auto c = r.opt_object("collectives")) {
    read_sweep(*c, o.collective);
    if (c->has("ops")) o.ops = plan_list(*c, "ops", kOps);
    if (c->has("algos")) o.algos = plan_list(*c, "algos", kAlgos);
    if (c->has("protos")) o.protos = plan_list(*c, "protos", kProtos);
    if (auto v = c->opt_boolean("sweep_algos")) o.sweep_algos = *v;
    if (auto v = c->opt_integer("iters", 1, 1000000)) o.iters = static_cast<int>(*v);
    if (auto v = c->opt_integer("warmup", 0, 1000000)) o.warmup = static_cast<int>(*v);
    c->finish();
  }
  if (auto c = r.opt_object("copies")) {
    read_sweep(*c, o.copy);
    if (auto v = c->opt_boolean("enabled")) o.copies = *v;
    if (auto v = c->opt_integer("iters", 1, 1000000)) o.copy_iters = static_cast<int>(*v);
    if (auto v = c->opt_integer("warmup", 0, 1000000)) o.copy_warmup = static_cast<int>(*v);
    c->finish();
  }
  if (auto g = r.opt_object("gemm")) {
    if (auto v = g->opt_boolean("enabled")) o.gemm = *v;
    if (g->has("sizes")) {
      const Json& sizes = g->json().at("sizes");
      g->allow("sizes");
      if (!sizes.is_array() || sizes.empty()) g->fail("sizes", "wrong type", "a non-empty array of integers");
      o.gemm_sizes.clear();
      for (const auto& s : sizes) {
        if (!s.is_number_integer() || s.get<std::int64_t>() < 16 || s.get<std::int64_t>() > 65536)
          g->fail("sizes", "bad matrix size " + json_snippet(s), "integers in [16, 65536] (square m = n = k)");
        o.gemm_sizes.push_back(s.get<std::int64_t>());
      }
    }
    if (g->has("precisions")) o.gemm_precisions = plan_list(*g, "precisions", kPrecisions);
    if (auto v = g->opt_integer("iters", 1, 1000000)) o.gemm_iters = static_cast<int>(*v);
    if (auto v = g->opt_integer("warmup", 0, 1000000)) o.gemm_warmup = static_cast<int>(*v);
    g->finish();
  }
  if (auto t = r.opt_time("timeout")) {
    if (t->s() <= 0) r.fail("timeout", "not positive", "a duration like \"600s\"");
    o.timeout_s = t->s();
  }
  r.finish();
}

std::int64_t parse_cli_bytes(const std::string& option, const std::string& text) {
  try {
    return parse_bytes(text);
  } catch (const UnitError& e) {
    throw InputError("command line", option, "bad size", text, e.what());
  }
}

}  // namespace

std::vector<std::int64_t> SizeSweep::sizes() const {
  std::vector<std::int64_t> out;
  double s = static_cast<double>(min_bytes);
  while (s <= static_cast<double>(max_bytes) * (1.0 + 1e-12)) {
    const std::int64_t b = (static_cast<std::int64_t>(std::floor(s)) / 4) * 4;
    if (b >= 4 && (out.empty() || out.back() != b)) out.push_back(b);
    if (step_bytes > 0)
      s += static_cast<double>(step_bytes);
    else
      s *= factor;
  }
  return out;
}

const std::vector<std::string>& ProbeOptions::all_ops() { return kOps; }
const std::vector<std::string>& ProbeOptions::all_algos() { return kAlgos; }
const std::vector<std::string>& ProbeOptions::all_protos() { return kProtos; }
const std::vector<std::string>& ProbeOptions::all_precisions() { return kPrecisions; }

bool parse_probe_options(int argc, char** argv, ProbeOptions& o) {
  CLI::App app{
      "vgsim-probe: measures NCCL collectives (default and each forced NCCL_ALGO x NCCL_PROTO), memory copies and "
      "cuBLAS GEMM throughput on the GPUs it runs on, and writes one JSON line per measurement.\n"
      "Single node: vgsim-probe --out probe.jsonl (one process drives all visible GPUs).\n"
      "Several nodes: mpirun -np 8 -N 4 -x NCCL_SOCKET_IFNAME vgsim-probe --out probe.jsonl (one rank per GPU).\n"
      "Exit status: 0 ok, 2 bad option or plan, 3 no CUDA GPU visible, 4 a CUDA/NCCL/cuBLAS/MPI call failed or timed "
      "out, 5 some collective results were wrong.",
      "vgsim-probe"};
  std::string plan, out, min_s, max_s, step_s, ops_s, algos_s, protos_s;
  std::optional<double> factor, timeout;
  std::optional<int> iters, warmup, gpus;
  bool no_sweep = false, no_copies = false, no_gemm = false, table = false;
  app.add_option("--plan", plan, "JSON plan file (sizes, ops, algos, protos, iterations, copy sizes, GEMM sizes)");
  app.add_option("--out", out, "JSON-lines output file, written by rank 0 only (default probe.jsonl)");
  // nccl-tests' flags with nccl-tests' meaning (short and long names of nccl-tests src/common.cu); --min / --max /
  // --factor / --warmup / --gpus, the probe's earlier names, stay as aliases (nothing else in the probe is a size
  // bound, a factor or a GPU count, so they cannot be confused).
  app.add_option("-b,--minbytes,--min", min_s, "smallest collective size, e.g. 8 or 8B (nccl-tests -b; default 8)");
  app.add_option("-e,--maxbytes,--max", max_s,
                 "largest collective size, e.g. 1G (= GiB, as nccl-tests) (nccl-tests -e; default 1G)");
  app.add_option("-f,--stepfactor,--factor", factor, "multiplicative size step (nccl-tests -f; default 2)");
  app.add_option("-i,--stepbytes", step_s, "linear size step in bytes instead of -f (nccl-tests -i)");
  app.add_option("-n,--iters", iters, "timed iterations per size (nccl-tests -n; default 20)");
  app.add_option("-w,--warmup_iters,--warmup", warmup, "warm-up iterations per size (nccl-tests -w; default 5)");
  app.add_flag("--table", table,
               "also print nccl-tests' table per op and algorithm/protocol on stdout (rank 0), in "
               "the format of vgsim collective (in-place: N/A, not measured)");
  app.add_option("--ops", ops_s, "comma-separated: allreduce,allgather,reducescatter,broadcast,sendrecv (default all)");
  app.add_option("--algos", algos_s,
                 "NCCL_ALGO values to force in the sweep: ring,tree,nvls,nvlstree (default ring,tree; nvls only runs "
                 "on Hopper+ NVSwitch nodes and nvlstree only across several of them, Simple protocol, elsewhere NCCL "
                 "rejects them and the probe records a skip)");
  app.add_option("--protos", protos_s, "NCCL_PROTO values to force in the sweep: ll,ll128,simple (default all)");
  app.add_flag("--no-sweep-algos", no_sweep, "measure only NCCL's default algorithm/protocol choice");
  app.add_option("-g,--ngpus,--gpus", gpus,
                 "without mpirun: number of local GPUs to drive, as nccl-tests -g in one "
                 "process (default all visible; under mpirun each rank drives one GPU)");
  app.add_flag("--no-copies", no_copies, "skip the host<->device, device<->device and peer copy measurements");
  app.add_flag("--no-gemm", no_gemm, "skip the cuBLAS GEMM measurements");
  app.add_option("--timeout", timeout,
                 "seconds before a stuck init or timed loop ends the job with status 4 (default 600)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return false;
  } catch (const CLI::ParseError& e) {
    throw InputError("command line", "", e.what(), "", "see vgsim-probe --help");
  }

  if (!plan.empty()) {
    o.plan_path = plan;
    load_plan(plan, o);
  }
  if (!out.empty()) o.out_path = out;
  if (!min_s.empty()) o.collective.min_bytes = parse_cli_bytes("-b/--minbytes", min_s);
  if (!max_s.empty()) o.collective.max_bytes = parse_cli_bytes("-e/--maxbytes", max_s);
  if (factor) {
    if (!(*factor > 1.0) || *factor > 1024.0)
      throw InputError("command line", "-f/--stepfactor", "out of range", std::to_string(*factor),
                       "a number in (1, 1024]");
    o.collective.factor = *factor;
  }
  if (!step_s.empty()) {
    o.collective.step_bytes = parse_cli_bytes("-i/--stepbytes", step_s);
    if (o.collective.step_bytes < 4)
      throw InputError("command line", "-i/--stepbytes", "too small", step_s, "at least 4 bytes (one float)");
  }
  if (o.collective.min_bytes < 4)
    throw InputError("command line", "-b/--minbytes", "too small", std::to_string(o.collective.min_bytes),
                     "at least 4 bytes (one float)");
  if (o.collective.max_bytes < o.collective.min_bytes)
    throw InputError("command line", "-e/--maxbytes", "smaller than -b/--minbytes",
                     std::to_string(o.collective.max_bytes), "max >= min");
  if (o.collective.step_bytes > 0 &&
      (o.collective.max_bytes - o.collective.min_bytes) / o.collective.step_bytes > 100000)
    throw InputError("command line", "-i/--stepbytes", "so small that the sweep would have more than 100,000 sizes",
                     step_s, "a larger step (or -f)");
  if (iters) {
    if (*iters < 1) throw InputError("command line", "-n/--iters", "out of range", std::to_string(*iters), ">= 1");
    o.iters = *iters;
  }
  if (warmup) {
    if (*warmup < 0)
      throw InputError("command line", "-w/--warmup_iters", "out of range", std::to_string(*warmup), ">= 0");
    o.warmup = *warmup;
  }
  if (gpus) {
    if (*gpus < 1) throw InputError("command line", "-g/--ngpus", "out of range", std::to_string(*gpus), ">= 1");
    o.gpus = *gpus;
  }
  if (table) o.table = true;
  if (timeout) {
    if (!(*timeout > 0))
      throw InputError("command line", "--timeout", "out of range", std::to_string(*timeout), "seconds > 0");
    o.timeout_s = *timeout;
  }
  if (!ops_s.empty()) {
    o.ops = split_list(ops_s);
    check_cli_list("--ops", o.ops, kOps);
  }
  if (!algos_s.empty()) {
    o.algos = split_list(algos_s);
    check_cli_list("--algos", o.algos, kAlgos);
  }
  if (!protos_s.empty()) {
    o.protos = split_list(protos_s);
    check_cli_list("--protos", o.protos, kProtos);
  }
  if (no_sweep) o.sweep_algos = false;
  if (no_copies) o.copies = false;
  if (no_gemm) o.gemm = false;
  return true;
}

std::string options_json(const ProbeOptions& o) {
  nlohmann::ordered_json j;
  j["plan"] = o.plan_path;
  j["collectives"] = {{"min_bytes", o.collective.min_bytes},
                      {"max_bytes", o.collective.max_bytes},
                      {"factor", o.collective.factor},
                      {"step_bytes", o.collective.step_bytes},
                      {"ops", o.ops},
                      {"sweep_algos", o.sweep_algos},
                      {"algos", o.algos},
                      {"protos", o.protos},
                      {"iters", o.iters},
                      {"warmup", o.warmup}};
  j["copies"] = {{"enabled", o.copies},     {"min_bytes", o.copy.min_bytes}, {"max_bytes", o.copy.max_bytes},
                 {"factor", o.copy.factor}, {"iters", o.copy_iters},         {"warmup", o.copy_warmup}};
  j["gemm"] = {{"enabled", o.gemm},
               {"sizes", o.gemm_sizes},
               {"precisions", o.gemm_precisions},
               {"iters", o.gemm_iters},
               {"warmup", o.gemm_warmup}};
  j["timeout_s"] = o.timeout_s;
  return j.dump();
}

}  // namespace vgsim::probe
