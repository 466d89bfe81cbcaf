// SPDX-License-Identifier: Apache-2.0
// The dataflow engine. Node i's round r is a TBB task that becomes ready when
//   (a) each neighbour's round r-1 message has arrived, and
//   (b) node i has finished its own round r-1,
// counted down by an atomic counter per node and round parity. A neighbour can never be more
// than one round ahead of a node (it needs the node's message of the previous round), so two
// counters (even/odd rounds) and two messages per channel suffice. There is no global barrier:
// nodes in different parts of the graph may be in different rounds at the same time.
//
// Nodes are grouped into batches of consecutive ids, and the task and its counters belong to a
// batch: batch b's round r is ready when every neighbouring batch (one holding a neighbour of
// one of b's nodes) and b itself have finished round r - 1; it then runs its nodes' round r in id
// order. With one node per batch this is the node-level dataflow above; larger batches amortise
// the task, counter and notification costs over nodes whose round is tiny (a batch is at most
// one round ahead of a neighbouring batch, so the two-message bound still holds). The batch size
// comes from the cost of the last round run on the calling thread (below); it changes the
// schedule only, never a node's inputs, so the bits are those of the serial engine for every
// batch size.
//
// Cheap rounds never become tasks: round 0, and every later round while rounds take less than
// EngineOptions::inline_round_seconds, run on the calling thread in node order (the serial
// engine's loop). A round of a few microseconds costs more in spawns, counters and wake-ups
// than a second thread can save. Once rounds are measured above the limit, on the wall clock
// and then on the thread's CPU clock (see Execute), the run turns to tasks from the next round
// on, for good.
//
// Reports go to a ring of `window` round slots. The last node to report round r makes the round
// complete; completed rounds are handed to the sink strictly in order by whichever thread holds
// the emitter role. A node whose round needs a slot that an older round still occupies parks on
// that slot and is re-spawned when the slot is released (no waiting inside tasks).
//
// A node fault (a Fail, an exception, a NaN/Inf; see node_calls.h) stops the run after its
// round: rounds above it are not started, every node still runs that round, and the failure
// with the lowest (round, node) is reported, so the result is the same as the serial engine's.
// No exception from a program leaves a task. An exception from the sink is caught by the
// emitter, stops the run like a fault, and is rethrown by Execute() once every task is done.
#include <time.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <memory>
#include <mutex>
#include <queue>
#include <utility>
#include <vector>

#include <oneapi/tbb/info.h>
#include <oneapi/tbb/task_arena.h>
#include <oneapi/tbb/task_group.h>

#include "engines.h"
#include "node_calls.h"
#include "wiring.h"

namespace dpadmm::runtime::detail {
namespace {

// The report window (rounds in flight at once) is clamped to [kMinWindow, kMaxWindow]; with
// diameter + 2 slots no node ever parks on a slot (nodes at distance k are at most k rounds
// apart), so only min(diameter, kMaxWindow - 2) matters.
constexpr int kMinWindow = 4;
constexpr int kMaxWindow = 64;
// Graphs with nodes * (nodes + directed edges) up to this get their exact diameter (one BFS per
// node); larger ones get the two-sweep bound below, which keeps the set-up O(N + E).
constexpr std::int64_t kExactDiameterWork = std::int64_t{1} << 22;
// Automatic batches aim at this much work per task (a TBB task costs well under a microsecond
// to spawn and run, so the overhead stays a few percent) ...
constexpr double kBatchSeconds = 20e-6;
// ... while keeping at least this many batches per thread (when there are enough nodes), so that
// work stealing can balance uneven nodes.
constexpr int kBatchesPerThread = 8;
// On one thread, tasks can only win by running a batch's nodes while their channels are in
// cache, which pays on larger rounds only (bench_engine EngineScaling: tasks on one thread were
// 1.1x slower than the calling thread at about 13 us per round, faster from about 60 us): the
// limit is this many times higher there.
constexpr double kOneThreadFactor = 4.0;
// ... and only for cheap nodes: a node whose round costs at least this keeps its data in cache
// through its own round, so a batch's locality saves nothing and one thread stays inline for the
// whole run (bench_engine EngineGrid, one thread: tasks at 0.71-0.96x serial for nodes of
// 0.1 us at N >= 1000, 0.93-1.12x for nodes of 10 us and 1 ms, i.e. nothing to gain).
constexpr double kOneThreadNodeSeconds = 1e-6;
// A slow wall-clock reading turns the run to tasks only when this many rounds after it, each
// timed alone on the thread's CPU clock, are slow too (Execute).
constexpr int kCpuConfirmations = 2;

// Breadth-first search from s: the eccentricity of s and a node at that distance, or
// eccentricity -1 when some node is unreachable.
std::pair<int, int> Eccentricity(const Topology& t, int s, std::vector<int>& dist,
                                 std::vector<int>& queue) {
  const int n = t.num_nodes();
  std::fill(dist.begin(), dist.end(), -1);
  int head = 0, tail = 0;
  queue[tail++] = s;
  dist[s] = 0;
  int far = s;
  while (head < tail) {
    const int u = queue[head++];
    for (int v : t.neighbors[u]) {
      if (dist[v] < 0) {
        dist[v] = dist[u] + 1;
        far = v;  // BFS order: the last node reached is a farthest one
        queue[tail++] = v;
      }
    }
  }
  if (tail < n) return {-1, far};
  return {dist[far], far};
}

int Window(int diameter) { return std::clamp(diameter + 2, kMinWindow, kMaxWindow); }

// The window for `t`: Window(diameter), or Window(nodes) for a disconnected graph (lags are
// then unbounded). For large graphs the diameter D is bracketed by two sweeps,
// e(far) <= D <= 2 e(0) (far: a node farthest from node 0), and the upper end is used when the
// two give different windows: a window larger than needed costs memory, never a wait.
int ReportWindow(const Topology& t) {
  const int n = t.num_nodes();
  if (n == 0) return kMinWindow;
  std::vector<int> dist(n);
  std::vector<int> queue(n);
  const auto [e0, far] = Eccentricity(t, 0, dist, queue);
  if (e0 < 0) return Window(n);
  const int lower = Eccentricity(t, far, dist, queue).first;
  const int upper = 2 * e0;
  if (Window(lower) == Window(upper)) return Window(lower);
  std::int64_t arcs = 0;
  for (const auto& nb : t.neighbors) arcs += static_cast<std::int64_t>(nb.size());
  if (static_cast<std::int64_t>(n) * (n + arcs) > kExactDiameterWork) return Window(upper);
  int diameter = lower;
  for (int s = 0; s < n && Window(diameter) < Window(upper); ++s) {
    diameter = std::max(diameter, Eccentricity(t, s, dist, queue).first);
  }
  return Window(diameter);
}

double WallSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The calling thread's CPU time (POSIX; the TBB engine is not built where this is missing).
double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

void AtomicMin(std::atomic<std::int64_t>& a, std::int64_t v) {
  std::int64_t cur = a.load(std::memory_order_relaxed);
  while (v < cur && !a.compare_exchange_weak(cur, v, std::memory_order_acq_rel)) {
  }
}

class TbbRun {
 public:
  TbbRun(std::span<NodeProgram* const> programs, const Topology& topology,
         const EngineOptions& options, const Shapes& shapes, RoundSink& sink)
      : programs_(programs),
        topology_(topology),
        options_(options),
        sink_(sink),
        n_(topology.num_nodes()),
        finite_report_(shapes.finite_report),
        wiring_(shapes.max_message, shapes.report_width, topology, options.channel_capacity),
        width_(wiring_.report_width),
        window_(options.report_window > 0 ? options.report_window : ReportWindow(topology)),
        slots_(std::make_unique<Slot[]>(window_)),
        slot_data_(static_cast<std::size_t>(window_) * n_ * width_),
        stop_round_(options.last_round),
        fail_round_(options.last_round + 1) {
    for (int s = 0; s < window_; ++s) slots_[s].owner.store(s, std::memory_order_relaxed);
  }

  EngineResult Execute() {
    // Rounds run on the calling thread, in node order, while they are cheap (see
    // EngineOptions::inline_round_seconds); round 0 always does, and its cost (or the cost of the
    // round that ended the inline phase) sizes the batches.
    //
    // A slow wall-clock measurement may be a cold first round, an interrupt, or (on a loaded
    // machine) the calling thread preempted for milliseconds in the middle of a group of tiny
    // rounds. So it is only a suspicion: the next round alone is timed on the thread's CPU clock
    // (which stops while the thread is preempted; reading it is a system call of a few
    // microseconds, so it is read only then), and the run turns to tasks when that round and the
    // next, each timed alone on the CPU clock, are slow too. Two, because interrupts handled while
    // the thread runs are charged to its CPU clock: at load 25 one CPU reading still turned
    // about one run in three of tiny rounds to tasks. Before these checks, a single preemption
    // turned runs of tiny rounds to tasks for good (bench_engine EngineGrid, loaded machine:
    // 1.5-2.2x slower than serial at N = 5-100).
    const int workers = options_.threads > 0 ? options_.threads : tbb::info::default_concurrency();
    const double limit = options_.inline_round_seconds * (workers == 1 ? kOneThreadFactor : 1.0);
    std::int64_t r = 0;  // the next round to run
    double per_round = 0.0;
    // Slow readings in a row: from 1 on, the next round is timed alone on the CPU clock.
    int suspect = 0;
    for (;;) {
      const std::int64_t group = std::min(r <= 1 || suspect ? 1 : InlineGroup(per_round, limit),
                                          options_.last_round - r + 1);
      const double t0 = suspect ? ThreadCpuSeconds() : WallSeconds();
      for (std::int64_t k = 0; k < group; ++k, ++r) {
        if (!RunRoundInline(r)) return Finish();
      }
      per_round =
          ((suspect ? ThreadCpuSeconds() : WallSeconds()) - t0) / static_cast<double>(group);
      if (r > options_.last_round) return Finish();
      const bool slow = per_round >= limit;
      if (slow && (suspect == kCpuConfirmations || limit <= 0.0)) {
        if (workers > 1 || limit <= 0.0 || per_round < kOneThreadNodeSeconds * n_) break;
        // One thread and expensive nodes: the rest of the run on this thread, untimed.
        for (; r <= options_.last_round; ++r) {
          if (!RunRoundInline(r)) return Finish();
        }
        return Finish();
      }
      suspect = slow ? suspect + 1 : 0;
    }

    // Tasks from round r on.
    const int threads = options_.threads > 0 ? options_.threads : tbb::task_arena::automatic;
    tbb::task_arena arena(threads);
    arena.initialize();
    MakeBatches(options_.batch_nodes > 0 ? options_.batch_nodes
                                         : AutoBatch(per_round, arena.max_concurrency()),
                r);
    first_task_round_ = r;
    arena.execute([&] {
      for (int b = 0; b < batches_; ++b) Spawn(b, r);
      group_.wait();
    });
    return Finish();
  }

 private:
  struct Pending {
    std::atomic<int> count[2];
  };
  struct Slot {
    std::atomic<std::int64_t> owner{0};  // the round this slot currently collects
    std::atomic<int> count{0};           // reports received for that round
    bool complete = false;               // guarded by emit_mu_
    std::mutex mu;                       // guards parked
    std::vector<int> parked;             // batches waiting for this slot
  };

  // Round r of every node on the calling thread, in node order (the serial engine's schedule),
  // then handed to the sink. False when the run ends here: a fault (recorded), a cancellation
  // or the sink's stop.
  bool RunRoundInline(std::int64_t r) {
    if (r > 0 && options_.stop != nullptr && options_.stop->stop_requested()) {
      cancelled_.store(true);
      return false;
    }
    const int row = static_cast<int>(r % window_);
    NodeFailure failure;  // written only on a fault (one per round, as on the serial engine)
    for (int i = 0; i < n_; ++i) {
      bool ok = ComputeRound(*programs_[i], i, r, wiring_, failure);
      if (ok) {
        wiring_.Broadcast(i);
        ok = ReportRound(*programs_[i], i, r, Row(row, i), finite_report_[i], failure);
      }
      if (!ok) {
        RecordFailure(std::move(failure));  // the first in node order is the lowest node
        return false;
      }
    }
    // Straight to the sink, as on the serial engine (no task is running, so no lock is needed
    // and an exception from the sink leaves Execute() as it is). The slot is left as the
    // emitter would leave it, for the tasks that may follow.
    const bool go_on = sink_.OnRound(r, ReportTable(Row(row, 0).data(), n_, width_));
    slots_[row].owner.store(r + window_, std::memory_order_relaxed);
    last_emitted_ = r;
    next_emit_ = r + 1;
    if (!go_on) {
      sink_stopped_.store(true);
      AtomicMin(stop_round_, r);
    }
    return go_on;
  }

  // Rounds between two clock reads in the inline phase: about `limit` of work at the last
  // measured cost (at most 64 rounds), so that an interrupt of a few microseconds does not lift
  // a group of tiny rounds over the limit, a clock read (tens of ns) stays small against rounds
  // of a few hundred ns, and a run whose rounds grow expensive still turns to tasks soon.
  static std::int64_t InlineGroup(double per_round, double limit) {
    if (!(per_round > 0.0)) return 1;
    return static_cast<std::int64_t>(std::clamp(limit / per_round, 1.0, 64.0));
  }

  EngineResult Finish() {
    if (sink_error_) std::rethrow_exception(sink_error_);
    EngineResult result;
    result.last_reported_round = last_emitted_;
    result.first_task_round = first_task_round_;
    if (failed_) {
      result.outcome = EngineOutcome::kFailed;
      result.failure = failure_;
    } else if (cancelled_.load()) {
      result.outcome = EngineOutcome::kCancelled;
    } else if (sink_stopped_.load()) {
      result.outcome = EngineOutcome::kStopped;
    }
    return result;
  }

  // Nodes per batch: enough for kBatchSeconds of work at the measured cost per round, but at
  // most n / (kBatchesPerThread threads) (at least 1). The measured round can be far cheaper than
  // a later one (round 0: a consensus node's Start is one data pass, its Step about 20), so the
  // cap, not the estimate, guards the parallelism: there are always at least kBatchesPerThread
  // batches per thread when n allows.
  int AutoBatch(double round_seconds, int threads) const {
    const double per_node = round_seconds / n_;
    const double want = per_node > 0 ? std::ceil(kBatchSeconds / per_node) : n_;
    const int cap = std::max(1, n_ / (kBatchesPerThread * std::max(1, threads)));
    return static_cast<int>(std::clamp<double>(want, 1.0, cap));
  }

  // Batch b holds nodes [b * size, min(n, (b + 1) * size)); its neighbours are the other
  // batches holding a neighbour of one of its nodes (each once). Every batch's round `first` is
  // spawned directly (all of round first - 1 is done); the counters start armed for round
  // first + 1: neighbouring batches plus the batch's own round `first` (the counter of round
  // first + 2 is armed when round `first` starts).
  void MakeBatches(int size, std::int64_t first) {
    batch_size_ = std::clamp(size, 1, std::max(1, n_));
    batches_ = (n_ + batch_size_ - 1) / batch_size_;
    batch_neighbors_.assign(batches_, {});
    std::vector<int> seen(batches_, -1);
    for (int b = 0; b < batches_; ++b) {
      seen[b] = b;
      for (int i = First(b); i < Last(b); ++i) {
        for (int j : topology_.neighbors[i]) {
          const int c = j / batch_size_;
          if (seen[c] != b) {
            seen[c] = b;
            batch_neighbors_[b].push_back(c);
          }
        }
      }
    }
    pending_ = std::make_unique<Pending[]>(batches_);
    for (int b = 0; b < batches_; ++b) {
      pending_[b].count[(first + 1) % 2].store(Degree(b) + 1, std::memory_order_relaxed);
      pending_[b].count[first % 2].store(0, std::memory_order_relaxed);
    }
  }
  int First(int b) const { return b * batch_size_; }
  int Last(int b) const { return std::min(n_, (b + 1) * batch_size_); }
  int Degree(int b) const { return static_cast<int>(batch_neighbors_[b].size()); }
  std::span<double> Row(int slot, int i) {
    return {slot_data_.data() + (static_cast<std::size_t>(slot) * n_ + i) * width_, width_};
  }
  void Spawn(int b, std::int64_t r) {
    group_.run([this, b, r] { RunBatch(b, r); });
  }

  void RunBatch(int b, std::int64_t r) {
    if (r > stop_round_.load(std::memory_order_acquire)) return;
    if (options_.stop != nullptr && options_.stop->stop_requested()) {
      cancelled_.store(true);
      AtomicMin(stop_round_, r - 1);
      return;
    }
    Slot& slot = slots_[r % window_];
    if (slot.owner.load(std::memory_order_acquire) != r) {
      std::lock_guard<std::mutex> lock(slot.mu);
      if (slot.owner.load(std::memory_order_acquire) != r) {
        slot.parked.push_back(b);
        return;
      }
    }
    // Arm the counter of round r + 2 (same parity). No decrement for that round can happen
    // before this batch notifies its round r below.
    pending_[b].count[r % 2].fetch_add(Degree(b) + 1, std::memory_order_relaxed);

    // Every node of the batch runs round r even after one of them fails, so that the failure
    // with the lowest (round, node) is recorded (as on the serial engine). A failing node
    // neither broadcasts nor reports; a failing Report leaves round r incomplete (never
    // emitted). Either way the batch notifies nobody: round r + 1 is above the stop round.
    const int first = First(b), last = Last(b);
    const int row = static_cast<int>(r % window_);
    bool ok = true;
    for (int i = first; i < last; ++i) {
      NodeFailure failure;
      if (!ComputeRound(*programs_[i], i, r, wiring_, failure)) {
        RecordFailure(std::move(failure));
        ok = false;
        continue;
      }
      wiring_.Broadcast(i);
      if (!ReportRound(*programs_[i], i, r, Row(row, i), finite_report_[i], failure)) {
        RecordFailure(std::move(failure));
        ok = false;
      }
    }
    if (!ok) return;
    if (r + 1 <= options_.last_round) {
      for (int c : batch_neighbors_[b]) Notify(c, r + 1);
      Notify(b, r + 1);
    }
    const int count = last - first;
    if (slot.count.fetch_add(count, std::memory_order_acq_rel) + count == n_) OnRoundComplete(r);
  }

  void Notify(int j, std::int64_t r) {
    if (pending_[j].count[r % 2].fetch_sub(1, std::memory_order_acq_rel) == 1) Spawn(j, r);
  }

  void RecordFailure(NodeFailure failure) {
    const std::int64_t r = failure.round;
    {
      std::lock_guard<std::mutex> lock(fail_mu_);
      if (!failed_ || r < failure_.round || (r == failure_.round && failure.node < failure_.node)) {
        failure_ = std::move(failure);
        failed_ = true;
      }
    }
    AtomicMin(fail_round_, r);
    AtomicMin(stop_round_, r);  // every node still runs round r, so the lowest node is found
  }

  // Hands completed rounds to the sink in order; at most one thread is the emitter at a time.
  void OnRoundComplete(std::int64_t r) {
    {
      std::lock_guard<std::mutex> lock(emit_mu_);
      slots_[r % window_].complete = true;
      if (emitting_) return;
      emitting_ = true;
    }
    for (;;) {
      std::int64_t e;
      {
        std::lock_guard<std::mutex> lock(emit_mu_);
        e = next_emit_;
        if (e > stop_round_.load() || e >= fail_round_.load() || !slots_[e % window_].complete) {
          emitting_ = false;
          return;
        }
      }
      Slot& slot = slots_[e % window_];
      const double* data = slot_data_.data() + static_cast<std::size_t>(e % window_) * n_ * width_;
      bool go_on = false;
      try {
        go_on = sink_.OnRound(e, ReportTable(data, n_, width_));
      } catch (...) {
        // Keep the emitter role: no later round may reach the sink. Only this thread writes
        // sink_error_ (it is the emitter); Execute() reads it after group_.wait().
        sink_error_ = std::current_exception();
        AtomicMin(stop_round_, e - 1);
        AtomicMin(fail_round_, e);
        return;
      }
      if (!go_on) {
        sink_stopped_.store(true);
        AtomicMin(stop_round_, e);
      }
      {
        std::lock_guard<std::mutex> lock(emit_mu_);
        slot.complete = false;
        last_emitted_ = e;
        next_emit_ = e + 1;
      }
      std::vector<int> parked;  // batches
      {
        std::lock_guard<std::mutex> lock(slot.mu);
        slot.count.store(0, std::memory_order_relaxed);
        slot.owner.store(e + window_, std::memory_order_release);
        parked.swap(slot.parked);
      }
      for (int b : parked) Spawn(b, e + window_);
    }
  }

  std::span<NodeProgram* const> programs_;
  const Topology& topology_;
  const EngineOptions& options_;
  RoundSink& sink_;
  const int n_;
  const std::vector<std::size_t>& finite_report_;
  Wiring wiring_;
  const std::size_t width_;
  const int window_;
  std::int64_t first_task_round_ = -1;
  int batch_size_ = 1;
  int batches_ = 0;
  std::vector<std::vector<int>> batch_neighbors_;
  std::unique_ptr<Pending[]> pending_;  // per batch
  std::unique_ptr<Slot[]> slots_;
  std::vector<double> slot_data_;

  std::atomic<std::int64_t> stop_round_;  // no round above this starts
  std::atomic<std::int64_t> fail_round_;  // no round at or above this is reported
  std::atomic<bool> cancelled_{false};
  std::atomic<bool> sink_stopped_{false};

  std::mutex emit_mu_;
  bool emitting_ = false;
  std::int64_t next_emit_ = 0;
  std::int64_t last_emitted_ = -1;

  std::mutex fail_mu_;
  bool failed_ = false;
  NodeFailure failure_;

  std::exception_ptr sink_error_;  // written by the emitter only

  tbb::task_group group_;
};

}  // namespace

bool TbbEngineBuilt() { return true; }

EngineResult RunTbb(std::span<NodeProgram* const> programs, const Topology& topology,
                    const EngineOptions& options, const Shapes& shapes, RoundSink& sink) {
  TbbRun run(programs, topology, options, shapes, sink);
  return run.Execute();
}

}  // namespace dpadmm::runtime::detail
