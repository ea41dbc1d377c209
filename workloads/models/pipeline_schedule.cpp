// Pipeline schedules' op orders and their exact timeline (see pipeline_schedule.hpp). The orders follow Megatron-LM's
// schedules.py as recalled (grade C); the timeline is a longest path over the op dependency graph.
#include "vgsim/workloads/models/pipeline_schedule.hpp"

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "vgsim/kernel/input_error.hpp"

namespace vgsim::models {

namespace {

using Order = std::vector<std::vector<PipeOp>>;

PipeOp op(std::int64_t micro, std::int64_t chunk, bool backward) {
  return PipeOp{static_cast<std::int32_t>(micro), static_cast<std::int32_t>(chunk), backward};
}

// GPipe: all forwards in micro-batch order, then all backwards in reverse micro-batch order.
std::vector<PipeOp> gpipe_rank(std::int64_t m) {
  std::vector<PipeOp> ops;
  ops.reserve(static_cast<std::size_t>(2 * m));
  for (std::int64_t i = 0; i < m; ++i) ops.push_back(op(i, 0, false));
  for (std::int64_t i = m - 1; i >= 0; --i) ops.push_back(op(i, 0, true));
  return ops;
}

// Megatron-LM's warmup / steady / cooldown structure over `total` forward and backward "virtual micro-batches":
// `warmup` forwards, then (forward warmup + i, backward i) pairs, then the remaining backwards. `fwd(k)` and `bwd(k)`
// name the op of the k-th forward and backward.
template <class F, class B>
std::vector<PipeOp> one_f_one_b(std::int64_t total, std::int64_t warmup, F fwd, B bwd) {
  std::vector<PipeOp> ops;
  ops.reserve(static_cast<std::size_t>(2 * total));
  for (std::int64_t k = 0; k < warmup; ++k) ops.push_back(fwd(k));
  const std::int64_t steady = total - warmup;
  for (std::int64_t i = 0; i < steady; ++i) {
    ops.push_back(fwd(warmup + i));
    ops.push_back(bwd(i));
  }
  for (std::int64_t i = steady; i < total; ++i) ops.push_back(bwd(i));
  return ops;
}

// Megatron-LM's interleaved order on rank r (get_model_chunk_id and the micro-batch of a virtual micro-batch, as
// recalled): virtual micro-batch k runs chunk (k mod p v) / p (reversed for backwards) on micro-batch
// (k / (p v)) p + k mod p.
std::vector<PipeOp> interleaved_rank(std::int64_t p, std::int64_t m, std::int64_t v, std::int64_t r) {
  const std::int64_t total = m * v;
  const std::int64_t warmup = m == p ? total : std::min((p - r - 1) * 2 + (v - 1) * p, total);
  auto micro = [p, v](std::int64_t k) { return (k / (p * v)) * p + k % p; };
  auto fwd = [&](std::int64_t k) { return op(micro(k), (k % (p * v)) / p, false); };
  auto bwd = [&](std::int64_t k) { return op(micro(k), v - 1 - (k % (p * v)) / p, true); };
  return one_f_one_b(total, warmup, fwd, bwd);
}

void validate_order_request(PipelineSchedule s, std::int64_t pp, std::int64_t m, std::int64_t v,
                            const std::string& where) {
  auto fail = [&](const std::string& field, std::int64_t value, const std::string& problem,
                  const std::string& expected) {
    throw InputError("", where + "." + field, problem, std::to_string(value), expected);
  };
  if (pp < 1) fail("pp", pp, "a pipeline of fewer than one stage", ">= 1");
  if (m < 1) fail("micro_batches", m, "a pipeline run needs at least one micro-batch", ">= 1");
  if (v < 1) fail("virtual_stages", v, "fewer than one model chunk per rank", ">= 1");
  if (m > INT32_MAX / v || pp > INT32_MAX / v)
    fail("micro_batches", m, "too many micro-batches x virtual stages for one pipeline run",
         "micro_batches x virtual_stages and pp x virtual_stages <= 2^31 - 1");
  if (v > 1 && s != PipelineSchedule::Interleaved)
    fail("virtual_stages", v, std::string("virtual stages need the interleaved schedule, not ") + to_string(s), "1");
  if (s == PipelineSchedule::Interleaved && m % pp != 0)
    fail("micro_batches", m, "the interleaved schedule needs micro-batches divisible by pp (Megatron-LM's rule)",
         "a multiple of pp = " + std::to_string(pp));
}

std::string describe(const PipeOp& o, std::int64_t rank) {
  return std::string(o.backward ? "backward" : "forward") + " of micro-batch " + std::to_string(o.micro) + " chunk " +
         std::to_string(o.chunk) + " on rank " + std::to_string(rank);
}

void check_times(const std::vector<Time>& t, std::size_t size, const char* name) {
  if (t.size() != size)
    throw InputError("", name, "wrong number of entries", std::to_string(t.size()), std::to_string(size));
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i].ps < 0)
      throw InputError("", std::string(name) + "[" + std::to_string(i) + "]", "a negative duration",
                       std::to_string(t[i].ps) + " ps", ">= 0");
}

// Micro-batches of a well-formed order: every rank holds each (micro-batch, chunk) forward and backward exactly once.
std::int64_t checked_micro_batches(const Order& order, std::int64_t v) {
  const std::size_t n = order[0].size();
  if (n == 0 || n % static_cast<std::size_t>(2 * v) != 0)
    throw std::logic_error("pipeline order: rank 0 has " + std::to_string(n) + " ops, not a positive multiple of 2 v");
  const std::int64_t m = static_cast<std::int64_t>(n) / (2 * v);
  std::vector<char> seen(n);
  for (std::size_t r = 0; r < order.size(); ++r) {
    if (order[r].size() != n)
      throw std::logic_error("pipeline order: rank " + std::to_string(r) + " has " + std::to_string(order[r].size()) +
                             " ops, rank 0 has " + std::to_string(n));
    std::fill(seen.begin(), seen.end(), 0);
    for (const PipeOp& o : order[r]) {
      if (o.micro < 0 || o.micro >= m || o.chunk < 0 || o.chunk >= v)
        throw std::logic_error("pipeline order: " + describe(o, static_cast<std::int64_t>(r)) + " is out of range");
      char& s = seen[static_cast<std::size_t>((o.micro * v + o.chunk) * 2 + (o.backward ? 1 : 0))];
      if (s) throw std::logic_error("pipeline order: " + describe(o, static_cast<std::int64_t>(r)) + " twice");
      s = 1;
    }
  }
  return m;
}

// Longest-path evaluation. Each rank runs its ops in order until one waits for an op not yet ended; that op's end
// wakes the rank. Every op has at most one waiter from another rank (a forward is awaited by the next virtual
// stage's forward, a backward by the previous virtual stage's backward), so the whole pass is linear in the ops.
class Evaluator {
 public:
  Evaluator(const Order& order, std::int64_t pp, std::int64_t v, std::int64_t m, const std::vector<Time>& fwd,
            const std::vector<Time>& bwd, const std::vector<Time>& p2p_f, const std::vector<Time>& p2p_b)
      : order_(order), pp_(pp), stages_(pp * v), fwd_(fwd), bwd_(bwd), p2p_f_(p2p_f), p2p_b_(p2p_b) {
    const std::size_t keys = static_cast<std::size_t>(m * stages_ * 2);
    end_.assign(keys, Time{-1});
    waiter_.assign(keys, -1);
    next_.assign(static_cast<std::size_t>(pp), 0);
    free_.assign(static_cast<std::size_t>(pp), Time{0});
    out_.resize(static_cast<std::size_t>(pp));
    for (std::int64_t r = 0; r < pp; ++r) out_[static_cast<std::size_t>(r)].reserve(order[0].size());
  }

  std::vector<std::vector<PipeSpan>> run() {
    for (std::int64_t r = pp_ - 1; r >= 0; --r) ready_.push_back(r);
    while (!ready_.empty()) {
      const std::int64_t r = ready_.back();
      ready_.pop_back();
      advance(r);
    }
    for (std::int64_t r = 0; r < pp_; ++r) {
      const auto& ops = order_[static_cast<std::size_t>(r)];
      const std::size_t i = next_[static_cast<std::size_t>(r)];
      if (i < ops.size())
        throw std::logic_error("pipeline order deadlocks: " + describe(ops[i], r) + " waits for an op never run");
    }
    return std::move(out_);
  }

 private:
  std::size_t key(std::int64_t micro, std::int64_t stage, bool backward) const {
    return static_cast<std::size_t>((micro * stages_ + stage) * 2 + (backward ? 1 : 0));
  }

  // Ready time of `dep` plus `transfer`, or -1 (and `r` registered as its waiter) when `dep` has not ended.
  Time after(std::size_t dep, Time transfer, std::int64_t r) {
    if (end_[dep].ps < 0) {
      waiter_[dep] = r;
      return Time{-1};
    }
    return end_[dep] + transfer;
  }

  void advance(std::int64_t r) {
    const auto& ops = order_[static_cast<std::size_t>(r)];
    std::size_t& i = next_[static_cast<std::size_t>(r)];
    Time& free = free_[static_cast<std::size_t>(r)];
    for (; i < ops.size(); ++i) {
      const PipeOp& o = ops[i];
      const std::int64_t stage = o.chunk * pp_ + r;
      Time start = free;
      if (!o.backward && stage > 0) {
        const Time t = after(key(o.micro, stage - 1, false), p2p_f_[static_cast<std::size_t>(stage - 1)], r);
        if (t.ps < 0) return;
        start = std::max(start, t);
      }
      if (o.backward) {
        const Time own = end_[key(o.micro, stage, false)];
        if (own.ps < 0)
          throw std::logic_error("pipeline order: " + describe(o, r) + " comes before its forward on that rank");
        start = std::max(start, own);
        if (stage + 1 < stages_) {
          const Time t = after(key(o.micro, stage + 1, true), p2p_b_[static_cast<std::size_t>(stage)], r);
          if (t.ps < 0) return;
          start = std::max(start, t);
        }
      }
      const Time end = start + (o.backward ? bwd_ : fwd_)[static_cast<std::size_t>(stage)];
      out_[static_cast<std::size_t>(r)].push_back(PipeSpan{o, start, end});
      free = end;
      const std::size_t k = key(o.micro, stage, o.backward);
      end_[k] = end;
      if (waiter_[k] >= 0) ready_.push_back(waiter_[k]);
      waiter_[k] = -1;
    }
  }

  const Order& order_;
  std::int64_t pp_, stages_;
  const std::vector<Time>&fwd_, &bwd_, &p2p_f_, &p2p_b_;
  std::vector<Time> end_;             // per (micro, stage, direction): end time, -1 until it ran
  std::vector<std::int64_t> waiter_;  // per (micro, stage, direction): the rank waiting for it, or -1
  std::vector<std::size_t> next_;     // per rank: index of its next op
  std::vector<Time> free_;            // per rank: when its previous op ended
  std::vector<std::int64_t> ready_;   // ranks to advance
  std::vector<std::vector<PipeSpan>> out_;
};

}  // namespace

std::vector<std::vector<PipeOp>> pipeline_order(PipelineSchedule s, std::int64_t pp, std::int64_t micro_batches,
                                                std::int64_t virtual_stages, const std::string& where) {
  validate_order_request(s, pp, micro_batches, virtual_stages, where);
  Order order(static_cast<std::size_t>(pp));
  for (std::int64_t r = 0; r < pp; ++r) {
    auto& ops = order[static_cast<std::size_t>(r)];
    switch (s) {
      case PipelineSchedule::GPipe:
        ops = gpipe_rank(micro_batches);
        break;
      case PipelineSchedule::OneFOneB:
        ops = one_f_one_b(
            micro_batches, std::min(pp - r - 1, micro_batches), [](std::int64_t k) { return op(k, 0, false); },
            [](std::int64_t k) { return op(k, 0, true); });
        break;
      case PipelineSchedule::Interleaved:
        ops = interleaved_rank(pp, micro_batches, virtual_stages, r);
        break;
    }
  }
  return order;
}

PipelineTimeline run_pipeline(const std::vector<std::vector<PipeOp>>& order, std::int64_t pp, std::int64_t v,
                              const std::vector<Time>& forward, const std::vector<Time>& backward,
                              const std::vector<Time>& p2p_forward, const std::vector<Time>& p2p_backward) {
  if (pp < 1) throw InputError("", "pp", "a pipeline of fewer than one stage", std::to_string(pp), ">= 1");
  if (v < 1) throw InputError("", "v", "fewer than one model chunk per rank", std::to_string(v), ">= 1");
  if (order.size() != static_cast<std::size_t>(pp))
    throw InputError("", "order", "one op list per pipeline rank", std::to_string(order.size()) + " ranks",
                     std::to_string(pp));
  const std::size_t stages = static_cast<std::size_t>(pp * v);
  check_times(forward, stages, "forward");
  check_times(backward, stages, "backward");
  check_times(p2p_forward, stages - 1, "p2p_forward");
  check_times(p2p_backward, stages - 1, "p2p_backward");
  const std::int64_t m = checked_micro_batches(order, v);

  PipelineTimeline t;
  t.ranks = Evaluator(order, pp, v, m, forward, backward, p2p_forward, p2p_backward).run();
  Time first = Time::max(), last{0};
  for (const auto& spans : t.ranks) {
    first = std::min(first, spans.front().start);
    last = std::max(last, spans.back().end);
  }
  t.makespan = last - first;
  for (const auto& spans : t.ranks) {
    Time busy{0};
    std::int64_t held = 0, peak = 0;
    for (const PipeSpan& s : spans) {
      busy += s.end - s.start;
      held += s.op.backward ? -1 : 1;  // a forward holds its activations from its start to its backward's end
      peak = std::max(peak, held);
    }
    t.busy.push_back(busy);
    t.idle.push_back(t.makespan - busy);
    t.peak_in_flight.push_back(peak);
  }
  return t;
}

}  // namespace vgsim::models
