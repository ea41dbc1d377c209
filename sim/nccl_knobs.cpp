// Parsing and overlaying NCCL's user-facing knobs (include/vgsim/sim/nccl_knobs.hpp).
#include "vgsim/sim/nccl_knobs.hpp"

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::sim {

namespace {
template <typename F>
auto parsed(const std::string& origin, const std::string& option, const std::string& value, F parse) {
  try {
    return parse(value);
  } catch (const UnitError& e) {
    throw InputError(origin, option, "bad value", "'" + value + "'", e.what());
  }
}
}  // namespace

void NcclKnobs::merge(const NcclKnobs& over) {
  if (!over.algo.empty()) algo = over.algo;
  if (!over.proto.empty()) proto = over.proto;
  if (over.channels) channels = over.channels;
  if (!over.p2p_level.empty()) p2p_level = over.p2p_level;
  if (!over.gdr_level.empty()) gdr_level = over.gdr_level;
  if (over.ib_disable) ib_disable = over.ib_disable;
  if (over.p2p_disable) p2p_disable = over.p2p_disable;
  if (over.shm_disable) shm_disable = over.shm_disable;
  if (over.gdr_disable) gdr_disable = over.gdr_disable;
  if (!over.version.empty()) version = over.version;
}

coll::NcclTuning NcclKnobs::tuning(const std::string& origin) const {
  return parsed(origin, "--nccl-version", version, [](const std::string& v) { return coll::NcclTuning::defaults(v); });
}

void NcclKnobs::apply(CommOptions& opt, const std::string& origin) const {
  if (!algo.empty()) opt.algo = parsed(origin, "--algo", algo, coll::parse_algo);
  if (!proto.empty()) opt.proto = parsed(origin, "--proto", proto, coll::parse_proto);
  if (channels) opt.channels = channels;
  if (!p2p_level.empty()) opt.path.p2p_level = parsed(origin, "--p2p-level", p2p_level, topo::parse_path_type);
  if (!gdr_level.empty()) opt.path.gdr_level = parsed(origin, "--gdr-level", gdr_level, topo::parse_path_type);
  if (ib_disable) opt.path.ib_disable = *ib_disable;
  if (p2p_disable) opt.path.p2p_disable = *p2p_disable;
  if (shm_disable) opt.path.shm_disable = *shm_disable;
  if (gdr_disable) opt.path.gdr_disable = *gdr_disable;
}

}  // namespace vgsim::sim
