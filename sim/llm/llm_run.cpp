// One large-model training iteration (include/vgsim/sim/llm/llm_run.hpp): layer compute, the communication patterns
// simulated on the engine, the pipeline timeline, gradient synchronisation and optimizer, and the breakdown.
#include "vgsim/sim/llm/llm_run.hpp"

#include <algorithm>

#include "vgsim/sim/llm/group_collectives.hpp"
#include "vgsim/sim/llm/moe_groups.hpp"
#include "vgsim/workloads/models/moe.hpp"

namespace vgsim::sim::llm {

namespace {

Time scaled(Time t, double speed) { return Time{static_cast<std::int64_t>(static_cast<double>(t.ps) / speed + 0.5)}; }

// Parameters one rank of pipeline stage `s` holds before ZeRO sharding (layers / pp, the embedding on the first
// stage, the LM head (or the tied embedding's copy) and the final norm on the last), divided over tp.
double stage_params(const models::TransformerShape& m, const models::ParallelPlan& p, std::int64_t s) {
  const models::ParameterCount c = models::parameter_count(m);
  double n = static_cast<double>(c.per_layer) * static_cast<double>(m.layers / p.pp);
  if (s == 0) n += static_cast<double>(c.embedding);
  if (s == p.pp - 1) n += static_cast<double>(c.lm_head ? c.lm_head : c.embedding) + static_cast<double>(c.final_norm);
  return n / static_cast<double>(p.tp);
}

// MoE expert weights one rank of any stage holds before the ep split: layers / pp x a layer's experts / tp (0 for a
// dense shape); stage_params counts them in full.
double stage_expert_params_tp(const models::TransformerShape& m, const models::ParallelPlan& p) {
  return static_cast<double>(models::expert_params_per_layer(m)) * static_cast<double>(m.layers / p.pp) /
         static_cast<double>(p.tp);
}

struct Context {
  const LlmJob& job;
  const models::ParallelPlan& p;
  std::vector<std::uint32_t> node_of;
  GroupCollectives gc;
  LlmResult& r;
  Context(const LlmJob& j, std::vector<std::uint32_t> nodes, LlmResult& res)
      : job(j),
        p(j.plan),
        node_of(std::move(nodes)),
        gc(*j.platform.cluster, j.platform.comm, j.platform.rank_to_endpoint, node_of),
        r(res) {}

  // Simulates `op` of `bytes` on `groups` and records it.
  Time comm(const std::string& what, const std::string& pattern, const Groups& groups, coll::Op op, Bytes bytes,
            std::int64_t count) {
    const GroupCallResult g = gc.run(pattern, groups, op, bytes);
    if (g.groups > 0 && count > 0)
      r.comms.push_back({what, coll::to_string(op), bytes, g.time, g.groups, g.algo, g.proto, g.channels, count});
    return g.time;
  }
};

std::vector<std::uint32_t> nodes_of_ranks(const LlmJob& job) {
  const auto instances = os_instances(*job.platform.cluster);
  std::vector<std::uint32_t> inst_of_ep(job.platform.cluster->endpoints().size(), 0);
  for (std::uint32_t i = 0; i < instances.size(); ++i)
    for (std::uint32_t e : instances[i]) inst_of_ep[e] = i;
  std::vector<std::uint32_t> out;
  for (std::uint32_t e : job.platform.rank_to_endpoint) out.push_back(inst_of_ep[e]);
  return out;
}

// Per-layer op times of one micro-batch: compute (VM-scaled) and the TP / ZeRO-3 communication it waits for.
struct LayerOps {
  Time f_compute{0}, b_compute{0}, f_tp{0}, b_tp{0}, f_z3{0}, b_z3{0}, f_ep{0}, b_ep{0};
};

coll::Op coll_op(models::TpOp op) {
  if (op == models::TpOp::AllGather) return coll::Op::AllGather;
  if (op == models::TpOp::ReduceScatter) return coll::Op::ReduceScatter;
  return coll::Op::AllReduce;
}

// The TP collectives of one pass, each simulated on the node's TP groups together; what a collective does not hide
// behind the compute it overlaps (TpCollective::overlap, VM-scaled) is exposed.
Time tp_exposed(Context& c, const std::vector<models::TpCollective>& list, const std::string& pass,
                std::int64_t per_iteration) {
  Time exposed{0};
  if (c.p.tp < 2) return exposed;
  for (const auto& tc : list) {
    const Time t = c.comm("tp " + std::string(models::to_string(tc.op)) + " " + tc.at + " (" + pass + ")", "tp",
                          tensor_groups(c.p), coll_op(tc.op), tc.bytes, per_iteration);
    exposed += std::max(Time{0}, t - scaled(tc.overlap, c.job.platform.compute_efficiency));
  }
  return exposed;
}

// The expert-parallel all-to-alls of one pass (MoE), each simulated on the nodes' EP groups together, blocking.
Time ep_exposed(Context& c, const std::vector<models::EpAllToAll>& list, const std::string& pass,
                std::int64_t per_iteration) {
  Time t{0};
  if (c.p.ep < 2) return t;
  for (const auto& a : list)
    t += c.comm("ep alltoall " + a.at + " (" + pass + ")", "ep", expert_groups(c.p), coll::Op::AllToAll, a.bytes,
                per_iteration);
  return t;
}

LayerOps layer_ops(Context& c) {
  const LlmJob& job = c.job;
  const auto& p = c.p;
  const double speed = job.platform.compute_efficiency;
  // An MoE shape's layer has the MoE MLP; a dense shape's is transformer_layer_time's, unchanged.
  const models::LayerComputeTime lt =
      models::moe_layer_time(job.shape, p, job.platform.gpu, job.precision, job.compute);
  LayerOps o;
  o.f_compute = scaled(lt.forward.total(), speed);
  o.b_compute = scaled(lt.backward_with_recompute(), speed);
  const std::int64_t per_iter = p.micro_batches() * (job.shape.layers / p.pp);
  o.f_tp = tp_exposed(c, lt.forward_comm, "forward", per_iter);
  o.b_tp = tp_exposed(c, lt.backward_comm, "backward", per_iter) +
           tp_exposed(c, lt.recompute_comm, "recomputed forward", per_iter);
  const models::MoeLayerComm a2a = models::moe_alltoalls(job.shape, p);
  o.f_ep = ep_exposed(c, a2a.forward, "forward", per_iter);
  o.b_ep = ep_exposed(c, a2a.backward, "backward", per_iter) + ep_exposed(c, a2a.recompute, "recomputed", per_iter);
  if (p.zero_stage >= 3 && p.dp > 1) {
    // ZeRO-3 / FSDP: a layer's weights are allgathered before its forward and again before its backward, its
    // gradients reduce-scattered after; prefetching hides them behind the neighbouring layer's compute [assumption:
    // one layer of prefetch], so only what exceeds that compute is exposed.
    const models::ParameterCount pc = models::parameter_count(job.shape);
    const double per_rank = static_cast<double>(pc.per_layer) / static_cast<double>(p.tp);
    const Groups dg = data_groups(p);
    const Time ag = c.comm("zero-3 weight allgather (per layer, forward and backward)", "dp", dg, coll::Op::AllGather,
                           static_cast<Bytes>(per_rank * 2.0), 2 * per_iter);
    const Time rs = c.comm("zero-3 gradient reduce-scatter (per layer)", "dp", dg, coll::Op::ReduceScatter,
                           static_cast<Bytes>(per_rank * p.grad_bytes), per_iter);
    o.f_z3 = std::max(Time{0}, ag - o.f_compute);
    o.b_z3 = std::max(Time{0}, ag + rs - o.b_compute);
  }
  return o;
}

// Stage-to-stage transfer of one micro-batch's activation (or its gradient) across boundary k -> k + 1.
Time p2p_time(Context& c, std::int64_t k) {
  const auto& p = c.p;
  if (p.pp < 2) return Time{0};
  const Bytes act = static_cast<Bytes>(p.micro_batch * c.job.shape.seq * c.job.shape.hidden * 2);
  const bool sg = c.job.scatter_gather && p.tp > 1;
  const Bytes wire = sg ? act / static_cast<Bytes>(p.tp) : act;
  const std::int64_t per_iter = 2 * p.micro_batches() * p.virtual_stages;
  Time t = c.comm("pp send/recv (stage " + std::to_string(k) + " -> " + std::to_string((k + 1) % p.pp) +
                      (sg ? ", 1/tp slice)" : ")"),
                  "pp" + std::to_string(k), stage_pairs(p, k), coll::Op::SendRecv, wire, per_iter);
  if (sg)
    t = t + c.comm("pp scatter/gather allgather (NVLink)", "tp", tensor_groups(p), coll::Op::AllGather, act,
                   per_iter);  // one gather per received tensor, as many as the boundary's send/recv
  return t;
}

// Blocking send/recv (LlmJob::pp_blocking): the op that sends across boundary k (the forward of virtual stage k, the
// backward of k + 1) holds its GPU for the transfer, and the receiver has the tensor when that op ends, so the
// boundary's delay becomes 0. Steady state: each op costs its compute plus one exchange with a neighbour, as in
// Megatron-LM's send_forward_recv_backward / send_backward_recv_forward pairs.
void block_on_p2p(Context& c, std::vector<Time>& p2p) {
  LlmResult& r = c.r;
  r.forward_p2p.assign(r.forward.size(), Time{0});
  r.backward_p2p.assign(r.backward.size(), Time{0});
  if (!c.job.pp_blocking) return;
  for (std::size_t k = 0; k < p2p.size(); ++k) {
    r.forward_p2p[k] = p2p[k], r.forward[k] += p2p[k];
    r.backward_p2p[k + 1] = p2p[k], r.backward[k + 1] += p2p[k];
    p2p[k] = Time{0};
  }
}

void build_stage_times(Context& c, const LayerOps& o, std::vector<Time>& p2p) {
  const LlmJob& job = c.job;
  const auto& p = c.p;
  const std::int64_t vstages = p.pp * p.virtual_stages;
  const std::int64_t per_chunk = job.shape.layers / vstages;
  const models::EmbeddingHeadTime h =
      models::embedding_head_time(job.shape, p, job.platform.gpu, job.precision, job.compute);
  const std::int64_t mb = p.micro_batches();
  const Time emb_f = tp_exposed(c, h.embedding_forward_comm, "embedding forward", mb);
  const Time head_f = tp_exposed(c, h.head_forward_comm, "LM head forward", mb);
  const Time head_b = tp_exposed(c, h.head_backward_comm, "LM head backward", mb);
  const double speed = job.platform.compute_efficiency;
  LlmResult& r = c.r;
  r.forward.assign(vstages, Time{0});
  r.backward.assign(vstages, Time{0});
  r.forward_tp.assign(vstages, Time{0});
  r.backward_tp.assign(vstages, Time{0});
  r.forward_z3.assign(vstages, Time{0});
  r.backward_z3.assign(vstages, Time{0});
  r.forward_ep.assign(vstages, o.f_ep * per_chunk);
  r.backward_ep.assign(vstages, o.b_ep * per_chunk);
  for (std::int64_t v = 0; v < vstages; ++v) {
    r.forward_tp[v] = o.f_tp * per_chunk + (v == 0 ? emb_f : Time{0}) + (v == vstages - 1 ? head_f : Time{0});
    r.backward_tp[v] = o.b_tp * per_chunk + (v == vstages - 1 ? head_b : Time{0});
    r.forward_z3[v] = o.f_z3 * per_chunk;
    r.backward_z3[v] = o.b_z3 * per_chunk;
    Time fc = o.f_compute * per_chunk, bc = o.b_compute * per_chunk;
    if (v == 0) fc += scaled(h.embedding_forward.total(), speed), bc += scaled(h.embedding_backward.total(), speed);
    if (v == vstages - 1) fc += scaled(h.head_forward.total(), speed), bc += scaled(h.head_backward.total(), speed);
    r.forward[v] = fc + r.forward_tp[v] + r.forward_z3[v] + r.forward_ep[v];
    r.backward[v] = bc + r.backward_tp[v] + r.backward_z3[v] + r.backward_ep[v];
  }
  std::vector<Time> by_rank(p.pp, Time{0});
  // The wrap from the last stage to the first carries chunk boundaries only with the interleaved schedule.
  for (std::int64_t k = 0; k < (p.virtual_stages > 1 ? p.pp : p.pp - 1); ++k) by_rank[k] = p2p_time(c, k);
  p2p.assign(vstages > 1 ? vstages - 1 : 0, Time{0});
  for (std::int64_t k = 0; k + 1 < vstages; ++k) p2p[k] = by_rank[k % p.pp];
  block_on_p2p(c, p2p);
}

// `all` with stage s's groups first, so contention is counted around its nodes (as sync_and_optimizer orders dp's).
Groups stage_first(const Groups& all, const models::ParallelPlan& p, std::int64_t s) {
  Groups groups;
  for (const auto& g : all)
    if (coord_of(p, g.front()).pp == s) groups.push_back(g);
  for (const auto& g : all)
    if (coord_of(p, g.front()).pp != s) groups.push_back(g);
  return groups;
}

// MoE: the expert gradients' synchronisation over the expert-data-parallel groups (dp / ep ranks) of stage s, as the
// dense one over dp (allreduce, or reduce-scatter + allgather under ZeRO-1/2); `experts` per rank.
Time expert_sync(Context& c, std::int64_t s, double experts, const std::string& suffix) {
  const auto& p = c.p;
  if (experts <= 0.0 || p.dp / p.ep < 2) return Time{0};
  const Groups groups = stage_first(expert_data_groups(p), p, s);
  const std::string stage = " (stage " + std::to_string(s) + ")", pattern = "edp" + suffix;
  if (p.zero_stage == 0)
    return c.comm("expert-dp gradient allreduce" + stage, pattern, groups, coll::Op::AllReduce,
                  static_cast<Bytes>(experts * p.grad_bytes), 1);
  return c.comm("expert-dp gradient reduce-scatter" + stage, pattern, groups, coll::Op::ReduceScatter,
                static_cast<Bytes>(experts * p.grad_bytes), 1) +
         c.comm("expert-dp weight allgather" + stage, pattern, groups, coll::Op::AllGather,
                static_cast<Bytes>(experts * 2), 1);
}

// Data-parallel gradient synchronisation of pipeline rank s after its last backward, and its optimizer step.
void sync_and_optimizer(Context& c, std::int64_t s, Time last_backward) {
  const LlmJob& job = c.job;
  const auto& p = c.p;
  // MoE expert weights are synchronised over their own groups (- 0 and + 0 for a dense shape).
  const double experts_tp = stage_expert_params_tp(job.shape, p);
  const double params = stage_params(job.shape, p, s) - experts_tp;
  const double experts = experts_tp / static_cast<double>(p.ep);
  const int gpn = static_cast<int>(job.platform.gpus_per_node);
  const bool symmetric = (p.tp * p.dp) % gpn == 0;
  const std::string pattern = symmetric ? "dp" : "dp/s" + std::to_string(s);
  Groups groups;  // stage s's groups first, so contention is counted around its nodes
  for (const auto& g : data_groups(p))
    if (coord_of(p, g.front()).pp == s) groups.push_back(g);
  for (const auto& g : data_groups(p))
    if (coord_of(p, g.front()).pp != s) groups.push_back(g);
  Time sync{0};
  if (p.dp > 1 && p.zero_stage == 0) {
    sync = c.comm("dp gradient allreduce (stage " + std::to_string(s) + ")", pattern, groups, coll::Op::AllReduce,
                  static_cast<Bytes>(params * p.grad_bytes), 1);
  } else if (p.dp > 1 && p.zero_stage <= 2) {
    sync = c.comm("zero gradient reduce-scatter (stage " + std::to_string(s) + ")", pattern, groups,
                  coll::Op::ReduceScatter, static_cast<Bytes>(params * p.grad_bytes), 1) +
           c.comm("zero weight allgather (stage " + std::to_string(s) + ")", pattern, groups, coll::Op::AllGather,
                  static_cast<Bytes>(params * 2), 1);
  }
  sync += expert_sync(c, s, experts, symmetric ? "" : "/s" + std::to_string(s));
  if (job.grad_overlap) sync = std::max(Time{0}, sync - last_backward);
  c.r.stage_sync[s] = sync;
  const double shard = (p.zero_stage >= 1 ? params / static_cast<double>(p.dp) : params) +
                       (p.zero_stage >= 1 ? experts / static_cast<double>(p.dp / p.ep) : experts);
  c.r.stage_optimizer[s] = scaled(models::optimizer_step_time(shard, p.grad_bytes, job.platform.gpu, job.compute),
                                  job.platform.compute_efficiency);
}

void breakdown(LlmResult& r, const models::ParallelPlan& p) {
  const std::int64_t s = r.critical_stage;
  Time busy{0}, tp{0}, z3{0}, ep{0}, p2p{0}, last{0};
  for (const auto& span : r.timeline.ranks[s]) {
    const std::int64_t v = span.op.chunk * p.pp + s;
    busy = busy + (span.end - span.start);
    tp = tp + (span.op.backward ? r.backward_tp[v] : r.forward_tp[v]);
    z3 = z3 + (span.op.backward ? r.backward_z3[v] : r.forward_z3[v]);
    ep = ep + (span.op.backward ? r.backward_ep[v] : r.forward_ep[v]);
    p2p = p2p + (span.op.backward ? r.backward_p2p[v] : r.forward_p2p[v]);
    last = std::max(last, span.end);
  }
  r.tp_exposed = tp;
  r.zero3_exposed = z3;
  r.ep_exposed = ep;
  r.compute = busy - tp - z3 - ep - p2p;
  r.pipeline_idle = last - busy + p2p;
  r.dp_exposed = r.stage_sync[s];
  r.optimizer = r.stage_optimizer[s];
}

void rates(const LlmJob& job, LlmResult& r) {
  const auto& p = job.plan;
  const double seqs = static_cast<double>(p.global_batch);
  const double secs = r.iteration.s();
  const double gpus = static_cast<double>(job.ranks());
  r.model_flops = models::model_flops(job.shape, seqs);
  r.hardware_flops = models::hardware_flops(job.shape, seqs, p.recompute);
  r.tokens_per_s = seqs * static_cast<double>(job.shape.seq) / secs;
  r.model_tflops_per_gpu = r.model_flops / secs / gpus / 1e12;
  r.hardware_tflops_per_gpu = r.hardware_flops / secs / gpus / 1e12;
  const double peak = job.platform.gpu.peak_fp16_flops * job.platform.gpu.sm_fraction;
  r.mfu = r.model_flops / (secs * gpus * peak);
  r.hfu = r.hardware_flops / (secs * gpus * peak);
  r.ideal_bubble_fraction = static_cast<double>(p.pp - 1) / static_cast<double>(p.virtual_stages * p.micro_batches());
}

}  // namespace

LlmResult simulate_llm_iteration(const LlmJob& job) {
  LlmResult r;
  const auto& p = job.plan;
  Context c(job, nodes_of_ranks(job), r);
  r.memory = models::memory_per_gpu(job.shape, p, job.compute.flash_attention);
  r.moe = models::is_moe(job.shape);
  const LayerOps o = layer_ops(c);
  std::vector<Time> p2p;
  build_stage_times(c, o, p2p);
  const auto order = models::pipeline_order(p.schedule, p.pp, p.micro_batches(), p.virtual_stages);
  r.timeline = models::run_pipeline(order, p.pp, p.virtual_stages, r.forward, r.backward, p2p, p2p);
  r.stage_sync.assign(p.pp, Time{0});
  r.stage_optimizer.assign(p.pp, Time{0});
  r.stage_end.assign(p.pp, Time{0});
  for (std::int64_t s = 0; s < p.pp; ++s) {
    Time last{0}, last_b{0};
    for (const auto& span : r.timeline.ranks[s])
      if (span.end > last) last = span.end, last_b = span.end - span.start;
    sync_and_optimizer(c, s, last_b);
    r.stage_end[s] = last + r.stage_sync[s] + r.stage_optimizer[s];
    if (r.stage_end[s] > r.stage_end[r.critical_stage]) r.critical_stage = s;
  }
  r.iteration = r.stage_end[r.critical_stage];
  r.engine_events = c.gc.events_simulated();
  breakdown(r, p);
  rates(job, r);
  return r;
}

}  // namespace vgsim::sim::llm
