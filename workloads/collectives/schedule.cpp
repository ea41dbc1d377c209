// Names and parsers of the collective enums (Op, Proto; an Algo's name and parser are the algorithm registry's,
// algorithm_registry.cpp). Parsing is case-insensitive, ignores '_' and '-', and accepts NCCL's spellings; errors
// list the accepted values. No schedule logic lives here.
#include "vgsim/workloads/collectives/schedule.hpp"

#include <cctype>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::coll {

const char* to_string(Op o) {
  switch (o) {
    case Op::AllReduce:
      return "allreduce";
    case Op::AllGather:
      return "allgather";
    case Op::ReduceScatter:
      return "reducescatter";
    case Op::Broadcast:
      return "broadcast";
    case Op::Reduce:
      return "reduce";
    case Op::SendRecv:
      return "sendrecv";
    case Op::AllToAll:
      return "alltoall";
  }
  return "?";
}
const char* to_string(Proto p) {
  switch (p) {
    case Proto::LL:
      return "LL";
    case Proto::LL128:
      return "LL128";
    case Proto::Simple:
      return "Simple";
  }
  return "?";
}

namespace {
std::string normalize(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '_' || c == '-' || c == ' ') continue;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}
[[noreturn]] void bad(const char* what, const std::string& s, const char* accepted) {
  throw UnitError(std::string("unknown ") + what + " '" + s + "', expected one of: " + accepted);
}
}  // namespace

Op parse_op(const std::string& s) {
  const std::string n = normalize(s);
  if (n == "allreduce") return Op::AllReduce;
  if (n == "allgather") return Op::AllGather;
  if (n == "reducescatter") return Op::ReduceScatter;
  if (n == "broadcast" || n == "bcast") return Op::Broadcast;
  if (n == "reduce") return Op::Reduce;
  if (n == "sendrecv") return Op::SendRecv;
  if (n == "alltoall") return Op::AllToAll;  // also nccl-tests' binary name alltoall_perf, and "all_to_all"
  bad("collective", s, "allreduce, allgather, reducescatter, broadcast, reduce, sendrecv, alltoall");
}
Proto parse_proto(const std::string& s) {
  const std::string n = normalize(s);
  if (n == "ll") return Proto::LL;
  if (n == "ll128") return Proto::LL128;
  if (n == "simple") return Proto::Simple;
  bad("protocol", s, "LL, LL128, Simple");
}

}  // namespace vgsim::coll
