// Pipeline schedules: Megatron-LM's op orders (GPipe, 1F1B, interleaved 1F1B) and their exact timeline against the
// bubble formulas of Narayanan et al. SC'21 ((p - 1) / m, and (p - 1) / (v m) interleaved) and the in-flight
// activation counts behind Korthikanti et al. 2022 section 4.2.3.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "vgsim/kernel/input_error.hpp"
#include "vgsim/workloads/models/pipeline_schedule.hpp"

using namespace vgsim;
using namespace vgsim::models;

namespace {

// Runs schedule s with every virtual stage taking f forward and b backward and every p2p transfer taking t.
PipelineTimeline uniform(PipelineSchedule s, std::int64_t p, std::int64_t m, std::int64_t v, Time f, Time b,
                         Time t = Time{0}) {
  const auto n = static_cast<std::size_t>(p * v);
  return run_pipeline(pipeline_order(s, p, m, v), p, v, std::vector<Time>(n, f), std::vector<Time>(n, b),
                      std::vector<Time>(n - 1, t), std::vector<Time>(n - 1, t));
}

std::string order_error(PipelineSchedule s, std::int64_t p, std::int64_t m, std::int64_t v) {
  try {
    pipeline_order(s, p, m, v);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

PipeOp F(int micro, int chunk = 0) { return PipeOp{micro, chunk, false}; }
PipeOp B(int micro, int chunk = 0) { return PipeOp{micro, chunk, true}; }

}  // namespace

TEST_CASE("op orders follow Megatron-LM's warmup / steady / cooldown") {
  // 1F1B, p = 4, m = 6, rank 1: warmup min(p - r - 1, m) = 2 forwards, 4 steady (F, B) pairs, 2 cooldown backwards.
  auto o = pipeline_order(PipelineSchedule::OneFOneB, 4, 6, 1);
  REQUIRE(o.size() == 4);
  CHECK(o[1] == std::vector<PipeOp>{F(0), F(1), F(2), B(0), F(3), B(1), F(4), B(2), F(5), B(3), B(4), B(5)});
  // Last rank: no warmup, strict alternation.
  CHECK(o[3] == std::vector<PipeOp>{F(0), B(0), F(1), B(1), F(2), B(2), F(3), B(3), F(4), B(4), F(5), B(5)});
  // GPipe: all forwards, then backwards in reverse micro-batch order.
  CHECK(pipeline_order(PipelineSchedule::GPipe, 2, 3, 1)[0] == std::vector<PipeOp>{F(0), F(1), F(2), B(2), B(1), B(0)});
  // Interleaved, p = 2, m = 4, v = 2, rank 0: warmup (p - 1) 2 + (v - 1) p = 4; virtual micro-batch k runs chunk
  // (k mod 4) / 2 (backward: 1 - that) on micro-batch (k / 4) 2 + k mod 2.
  auto i = pipeline_order(PipelineSchedule::Interleaved, 2, 4, 2);
  CHECK(i[0] == std::vector<PipeOp>{F(0, 0), F(1, 0), F(0, 1), F(1, 1), F(2, 0), B(0, 1), F(3, 0), B(1, 1), F(2, 1),
                                    B(0, 0), F(3, 1), B(1, 0), B(2, 1), B(3, 1), B(2, 0), B(3, 0)});
  // Rank 1: warmup (2 - 1 - 1) 2 + 2 = 2.
  CHECK(i[1] == std::vector<PipeOp>{F(0, 0), F(1, 0), F(0, 1), B(0, 1), F(1, 1), B(1, 1), F(2, 0), B(0, 0), F(3, 0),
                                    B(1, 0), F(2, 1), B(2, 1), F(3, 1), B(3, 1), B(2, 0), B(3, 0)});
}

TEST_CASE("GPipe and 1F1B take (m + p - 1)(F + B) with bubble (p - 1) / m") {
  const Time f = us(1), b = us(2);  // B = 2F
  for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB})
    for (auto [p, m] : {std::pair<std::int64_t, std::int64_t>{2, 1}, {2, 8}, {4, 4}, {4, 16}, {8, 3}, {8, 64}}) {
      INFO(to_string(s) << " p " << p << " m " << m);
      const PipelineTimeline t = uniform(s, p, m, 1, f, b);
      // Narayanan et al. SC'21 section 2.2: makespan (m + p - 1)(F + B); each rank is busy m (F + B), so it idles
      // (p - 1)(F + B), a bubble fraction (p - 1) / m of the ideal m (F + B).
      CHECK(t.makespan == (f + b) * (m + p - 1));
      for (std::int64_t r = 0; r < p; ++r) {
        CHECK(t.busy[static_cast<std::size_t>(r)] == (f + b) * m);
        CHECK(t.idle[static_cast<std::size_t>(r)] == (f + b) * (p - 1));
      }
      CHECK(static_cast<double>(t.idle[0].ps) / static_cast<double>(((f + b) * m).ps) ==
            Approx(static_cast<double>(p - 1) / static_cast<double>(m)));
    }
}

TEST_CASE("interleaving v chunks of F / v, B / v takes (m + (p - 1) / v)(F + B)") {
  const Time f = us(1), b = us(2);  // per chunk: F / v and B / v, so F = v f, B = v b
  for (auto [p, m, v] : {std::tuple<std::int64_t, std::int64_t, std::int64_t>{2, 2, 2},
                         {2, 4, 2},
                         {4, 4, 2},
                         {4, 8, 2},
                         {4, 12, 3},
                         {3, 9, 4},
                         {8, 16, 2},
                         {8, 24, 5},
                         {64, 128, 5}}) {
    INFO("p " << p << " m " << m << " v " << v);
    const PipelineTimeline t = uniform(PipelineSchedule::Interleaved, p, m, v, f, b);
    // Narayanan et al. SC'21 section 2.2.2: the bubble shrinks to (p - 1)(F + B) / v, so the makespan is
    // (m + (p - 1) / v)(F + B) = (m v + p - 1)(f + b) with F = v f, B = v b.
    CHECK(t.makespan == (f + b) * (m * v + p - 1));
    CHECK(t.idle[0] == (f + b) * (p - 1));  // (p - 1)(F + B) / v on every rank
    CHECK(t.idle[static_cast<std::size_t>(p - 1)] == (f + b) * (p - 1));
  }
}

TEST_CASE("activations in flight per rank") {
  const Time f = us(1), b = us(2);
  // GPipe holds all m micro-batches before the first backward.
  CHECK(uniform(PipelineSchedule::GPipe, 4, 10, 1, f, b).peak_in_flight == std::vector<std::int64_t>(4, 10));
  // 1F1B: warmup min(p - r - 1, m) plus the steady forward: min(m, p - r); rank 0 holds min(m, p).
  CHECK(uniform(PipelineSchedule::OneFOneB, 4, 10, 1, f, b).peak_in_flight == std::vector<std::int64_t>{4, 3, 2, 1});
  CHECK(uniform(PipelineSchedule::OneFOneB, 4, 2, 1, f, b).peak_in_flight == std::vector<std::int64_t>{2, 2, 2, 1});
  // Interleaved, m > p: the warmup (p - r - 1) 2 + (v - 1) p plus one steady forward, in chunk activations. On
  // rank 0 that is p v + p - 1 = v p (1 + (p - 1) / (p v)): Korthikanti et al. 2022 section 4.2.3's factor exactly
  // (p = 4, v = 3: 15 chunks = 5 whole-stage micro-batches = 4 (1 + 3 / 12)).
  CHECK(uniform(PipelineSchedule::Interleaved, 4, 8, 3, f, b).peak_in_flight ==
        std::vector<std::int64_t>{15, 13, 11, 9});
  // Interleaved with m == p runs all m v forwards first (Megatron-LM's rule): every rank holds m v = 12 chunks.
  CHECK(uniform(PipelineSchedule::Interleaved, 4, 4, 3, f, b).peak_in_flight == std::vector<std::int64_t>(4, 12));
}

TEST_CASE("p2p transfers lengthen the critical path") {
  const Time f = us(1), b = us(2), t = ns(300);
  // m = 1 is a chain: p forwards, p backwards and p - 1 transfers each way: p (F + B) + 2 (p - 1) t.
  for (std::int64_t p : {2, 4, 8}) {
    CHECK(uniform(PipelineSchedule::OneFOneB, p, 1, 1, f, b, t).makespan == (f + b) * p + t * (2 * (p - 1)));
    CHECK(uniform(PipelineSchedule::GPipe, p, 1, 1, f, b, t).makespan == (f + b) * p + t * (2 * (p - 1)));
  }
  // Per-boundary and per-stage times: the m = 1 chain adds every one of them once.
  const std::vector<Time> fw{us(1), us(3), us(2)}, bw{us(2), us(5), us(4)}, pf{ns(100), Time{0}}, pb{ns(700), ns(50)};
  const PipelineTimeline c = run_pipeline(pipeline_order(PipelineSchedule::OneFOneB, 3, 1, 1), 3, 1, fw, bw, pf, pb);
  CHECK(c.makespan == us(1 + 3 + 2 + 2 + 5 + 4) + ns(100 + 700 + 50));
  // Every op starts no earlier than its inputs (1F1B, p = 4, m = 8, t > 0): forward after the previous stage's forward
  // + t, backward after the next stage's backward + t and after its own forward.
  const PipelineTimeline g = uniform(PipelineSchedule::OneFOneB, 4, 8, 1, f, b, t);
  for (std::size_t r = 1; r < 4; ++r)
    for (const PipeSpan& s : g.ranks[r])
      for (const PipeSpan& q : g.ranks[r - 1])
        if (q.op.micro == s.op.micro && !q.op.backward && !s.op.backward) CHECK(s.start >= q.end + t);
  CHECK(g.makespan > (f + b) * (8 + 3));  // the zero-p2p makespan plus the transfers on the critical path
}

TEST_CASE("one stage has no bubble") {
  const Time f = us(1), b = us(2);
  for (auto s : {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB, PipelineSchedule::Interleaved}) {
    // p = 1: m (F + B), idle 0 (interleaved: m v (f + b) with v = 3 chunks).
    const std::int64_t v = s == PipelineSchedule::Interleaved ? 3 : 1;
    const PipelineTimeline t = uniform(s, 1, 5, v, f, b);
    CHECK(t.makespan == (f + b) * (5 * v));
    CHECK(t.idle[0] == Time{0});
  }
}

TEST_CASE("invalid schedules name the field") {
  CHECK(order_error(PipelineSchedule::Interleaved, 4, 6, 2).find("plan.micro_batches") != std::string::npos);
  CHECK(order_error(PipelineSchedule::OneFOneB, 4, 8, 2).find("plan.virtual_stages") != std::string::npos);
  CHECK(order_error(PipelineSchedule::GPipe, 4, 8, 2).find("plan.virtual_stages") != std::string::npos);
  CHECK(order_error(PipelineSchedule::OneFOneB, 0, 8, 1).find("plan.pp") != std::string::npos);
  CHECK(order_error(PipelineSchedule::OneFOneB, 2, 0, 1).find("plan.micro_batches") != std::string::npos);
  CHECK(order_error(PipelineSchedule::Interleaved, 2, 4, 0).find("plan.virtual_stages") != std::string::npos);
  CHECK(order_error(PipelineSchedule::Interleaved, 4, 8, 2).empty());
  // Wrong sizes or negative times for the evaluator name the argument.
  const auto o = pipeline_order(PipelineSchedule::OneFOneB, 2, 2, 1);
  const std::vector<Time> two(2, us(1)), one(1, us(1));
  CHECK_THROWS_WITH(run_pipeline(o, 2, 1, one, two, one, one), Catch::Contains("forward"));
  CHECK_THROWS_WITH(run_pipeline(o, 2, 1, two, two, two, one), Catch::Contains("p2p_forward"));
  CHECK_THROWS_WITH(run_pipeline(o, 2, 1, two, {us(1), Time{-1}}, one, one), Catch::Contains("backward[1]"));
  CHECK_THROWS_AS(run_pipeline(o, 3, 1, two, two, one, one), InputError);
}

TEST_CASE("malformed or deadlocking orders are logic errors") {
  const std::vector<Time> two(2, us(1)), one(1, us(1));
  // Rank 1 needs rank 0's forward of micro-batch 1, which rank 0 runs only after a backward that waits on rank 1.
  const std::vector<std::vector<PipeOp>> dead{{F(0), B(0), F(1), B(1)}, {F(0), F(1), B(1), B(0)}};
  CHECK_THROWS_WITH(run_pipeline(dead, 2, 1, two, two, one, one), Catch::Contains("deadlocks"));
  const std::vector<std::vector<PipeOp>> early{{F(0), B(0)}, {B(0), F(0)}};  // a backward before its forward
  CHECK_THROWS_AS(run_pipeline(early, 2, 1, two, two, one, one), std::logic_error);
  const std::vector<std::vector<PipeOp>> twice{{F(0), B(0)}, {F(0), F(0)}};
  CHECK_THROWS_WITH(run_pipeline(twice, 2, 1, two, two, one, one), Catch::Contains("twice"));
  const std::vector<std::vector<PipeOp>> range{{F(0), B(0)}, {F(0), B(0, 1)}};
  CHECK_THROWS_WITH(run_pipeline(range, 2, 1, two, two, one, one), Catch::Contains("out of range"));
}
