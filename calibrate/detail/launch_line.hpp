// Private helper of the text importers (nccl-tests, OSU): what a launch command quoted in a measurement file says
// about the job: ranks, nodes, ranks per node, hosts, and Open MPI MCA settings. Launchers: Open MPI mpirun /
// mpiexec / orterun (-np, -N = ranks per node, --npernode, --map-by ppr:K:node, -H a:4,b:4, --mca k v, -x
// OMPI_MCA_k=v) and Slurm srun (-N = nodes, -n, --ntasks-per-node, -w a,b). A hostfile is named, never read (it is
// not in the measurement file). Header-only; not a public header.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "text_table.hpp"

namespace vgsim::calibrate::detail {

struct LaunchLine {
  std::string launcher;         // mpirun | mpiexec | orterun | srun
  std::int64_t np = 0;          // processes (-np / -n / --ntasks)
  std::int64_t per_node = 0;    // processes per node (mpirun -N / --npernode / ppr:K:node; srun --ntasks-per-node)
  std::int64_t nodes = 0;       // srun -N; mpirun: the distinct hosts of -H / --host
  std::int64_t host_slots = 0;  // sum of the slots of -H a:4,b:4 (0 unless every host names its slots)
  std::int64_t slots_each = 0;  // the slots of every host when they are all equal (-H a:4,b:4 -> 4), else 0
  std::string hostfile;         // -hostfile / --hostfile / -machinefile / --default-hostfile: named, not readable
  std::map<std::string, std::string> mca;  // --mca k v, -mca k v, -x OMPI_MCA_k=v, OMPI_MCA_k=v before the launcher
  std::string program;                     // the first token after the launcher's options, and what follows
};

inline bool is_launcher_name(const std::string& tok) {
  const std::string b = basename_of(tok);
  return b == "mpirun" || b == "mpiexec" || b == "orterun" || b == "srun";
}

// A count of processes, nodes, slots, GPUs or threads; 0 when absent, not a number or implausible (> 1,000,000).
inline std::int64_t count_of(const std::string& v) {
  const auto n = v.size() > 12 ? std::nullopt : parse_int_token(v);
  return n && *n > 0 && *n <= 1000000 ? *n : 0;
}

// "a:4,b:4" -> hosts {a, b}, slots 4 + 4 (slots 0 when a host names none).
inline void read_hosts(const std::string& list, std::set<std::string>& hosts, std::int64_t& slots, bool& all_slots,
                       std::set<std::int64_t>& slot_values) {
  std::size_t p = 0;
  while (p <= list.size()) {
    const std::size_t q = std::min(list.find(',', p), list.size());
    const std::string h = list.substr(p, q - p);
    if (!h.empty()) {
      const auto colon = h.find(':');
      hosts.insert(h.substr(0, colon));
      const std::int64_t n = colon == std::string::npos ? 0 : count_of(h.substr(colon + 1));
      if (n > 0)
        slots += n, slot_values.insert(n);
      else
        all_slots = false;
    }
    p = q + 1;
  }
}

// The options of one launcher that take a value (the rest are flags).
inline bool takes_value(const std::string& launcher, const std::string& opt) {
  static const std::set<std::string> mpirun{"-np",
                                            "-n",
                                            "-c",
                                            "-N",
                                            "--npernode",
                                            "-npernode",
                                            "-H",
                                            "--host",
                                            "-host",
                                            "-hostfile",
                                            "--hostfile",
                                            "-machinefile",
                                            "--machinefile",
                                            "--default-hostfile",
                                            "--map-by",
                                            "-map-by",
                                            "--bind-to",
                                            "-bind-to",
                                            "--rank-by",
                                            "-rank-by",
                                            "-x",
                                            "--prefix",
                                            "-prefix",
                                            "-wdir",
                                            "--wdir",
                                            "-wd",
                                            "--output-filename",
                                            "--report-bindings-file",
                                            "-tag-output-file",
                                            "--rankfile",
                                            "-rf"};
  static const std::set<std::string> srun{
      "-N", "--nodes", "-n", "--ntasks",        "--ntasks-per-node", "-w", "--nodelist", "-p",    "--partition",
      "-t", "--time",  "-c", "--cpus-per-task", "--gpus-per-node",   "-A", "--account",  "--mpi", "-o",
      "-e", "--export"};
  return (launcher == "srun" ? srun : mpirun).count(opt) > 0;
}

inline void read_option(LaunchLine& L, const std::string& opt, const std::string& v, std::set<std::string>& hosts,
                        bool& all_slots, std::set<std::int64_t>& slot_values) {
  const bool srun = L.launcher == "srun";
  if (opt == "-np" || opt == "-n" || opt == "--ntasks" || opt == "--np" || (opt == "-c" && !srun))
    L.np = count_of(v);
  else if (srun && (opt == "-N" || opt == "--nodes"))
    L.nodes = count_of(v.substr(0, v.find('-')));  // "2" or "2-4": the minimum
  else if (opt == "-N" || opt == "--npernode" || opt == "-npernode" || opt == "--ntasks-per-node")
    L.per_node = count_of(v);
  else if ((opt == "--map-by" || opt == "-map-by") && v.rfind("ppr:", 0) == 0 && v.find(":node") != std::string::npos)
    L.per_node = count_of(v.substr(4, v.find(':', 4) - 4));
  else if (opt == "-H" || opt == "--host" || opt == "-host" || (srun && (opt == "-w" || opt == "--nodelist")))
    read_hosts(v, hosts, L.host_slots, all_slots, slot_values);
  else if (opt == "-hostfile" || opt == "--hostfile" || opt == "-machinefile" || opt == "--machinefile" ||
           opt == "--default-hostfile")
    L.hostfile = v;
  else if (opt == "-x" && v.rfind("OMPI_MCA_", 0) == 0 && v.find('=') != std::string::npos)
    L.mca[v.substr(9, v.find('=') - 9)] = v.substr(v.find('=') + 1);
}

// The launch command of a line ('#', '$' and '>' prompts and "command:"-style prefixes are skipped), or nullopt when
// the line starts no launcher.
inline std::optional<LaunchLine> parse_launch_line(const std::string& line) {
  const auto toks = split_ws(line);
  std::size_t i = 0;
  LaunchLine L;
  for (; i < toks.size() && !is_launcher_name(toks[i]); ++i)
    if (toks[i].rfind("OMPI_MCA_", 0) == 0 && toks[i].find('=') != std::string::npos)
      L.mca[toks[i].substr(9, toks[i].find('=') - 9)] = toks[i].substr(toks[i].find('=') + 1);
  if (i == toks.size()) return std::nullopt;
  L.launcher = basename_of(toks[i]);
  std::set<std::string> hosts;
  std::set<std::int64_t> slot_values;
  bool all_slots = true;
  for (++i; i < toks.size(); ++i) {
    const std::string& t = toks[i];
    if (t.empty() || t[0] != '-') break;  // the program
    std::string opt = t, v;
    if (const auto eq = t.find('='); eq != std::string::npos && t.rfind("--", 0) == 0)
      opt = t.substr(0, eq), v = t.substr(eq + 1);
    else if ((opt == "--mca" || opt == "-mca" || opt == "--gmca" || opt == "-gmca") && i + 2 < toks.size())
      L.mca[toks[i + 1]] = toks[i + 2], i += 2;
    else if (takes_value(L.launcher, opt) && i + 1 < toks.size())
      v = toks[++i];
    read_option(L, opt, v, hosts, all_slots, slot_values);
  }
  for (; i < toks.size(); ++i) L.program += (L.program.empty() ? "" : " ") + toks[i];
  if (!hosts.empty() && !L.nodes) L.nodes = static_cast<std::int64_t>(hosts.size());
  if (!all_slots) L.host_slots = 0;
  if (L.host_slots && slot_values.size() == 1) L.slots_each = *slot_values.begin();
  return L;
}

}  // namespace vgsim::calibrate::detail
