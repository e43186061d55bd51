// The autotuner: rank 0 searches the fusion threshold and cycle time that move the most
// allreduced bytes per microsecond, then keeps the best for the rest of the job. It is pure logic
// (times and byte counts come in, parameters come out), so it is unit-tested with synthetic
// scores; the engine carries rank 0's choice to every rank in the negotiation vote.
//
// Unlike Horovod (a Gaussian-process Bayesian optimisation), the search is deterministic:
// the starting parameters, then Horovod's four initial test points, then a compass search on a
// fixed grid that samples the unsampled grid neighbours of the best point so far until the best
// has none left or the sample budget is spent.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace kolo {

struct TuningParams {
  int64_t fusion_threshold_bytes = 128 << 20;
  double cycle_time_ms = 1.0;
  bool operator==(const TuningParams& o) const {
    return fusion_threshold_bytes == o.fusion_threshold_bytes && cycle_time_ms == o.cycle_time_ms;
  }
};

// The parameters a rank applies, and whether rank 0 is still searching.
struct TuningState {
  TuningParams params;
  bool searching = false;
};

struct AutotuneConfig {
  bool enabled = false;
  std::string log_path;  // CSV written by rank 0; empty: none
  int warmup_samples = 3;     // windows discarded before scores count
  int steps_per_sample = 10;  // cycles that allreduced something, per window
  int max_samples = 20;       // candidates scored at most
  // Set explicitly by the user, so held at the starting value (as Horovod does).
  bool fusion_threshold_fixed = false;
  bool cycle_time_fixed = false;
};

// Windows whose median is one candidate's score (Horovod's five).
inline constexpr int kWindowsPerSample = 5;

struct TuningSample {
  TuningParams params;
  double score = 0;  // allreduced bytes per microsecond
};

class Autotuner {
 public:
  Autotuner(const AutotuneConfig& config, TuningParams start);

  // What every rank should apply from the next cycle on.
  TuningParams Current() const { return ParamsAt(current_); }
  bool Done() const { return done_; }
  // One cycle that allreduced `bytes` and ran from `start_us` to `end_us` (a monotonic clock).
  // Cycles without bytes are ignored (their time still counts inside a window). Returns the
  // sample this cycle completed, if any; Current() has then moved on (or to the best, if Done).
  std::optional<TuningSample> RecordCycle(int64_t bytes, double start_us, double end_us);
  const std::vector<TuningSample>& Samples() const { return samples_; }
  // The highest score so far (the earliest of equal ones).
  std::optional<TuningSample> Best() const;

 private:
  using Point = std::pair<size_t, size_t>;  // (fusion index, cycle index) in the grid
  TuningParams ParamsAt(Point p) const { return {fusions_[p.first], cycles_[p.second]}; }
  void Queue(Point p);
  void Advance();

  AutotuneConfig config_;
  std::vector<int64_t> fusions_;
  std::vector<double> cycles_;
  std::deque<Point> queue_;
  std::map<Point, double> scores_;
  std::vector<Point> order_;  // sampled points, in order
  std::vector<TuningSample> samples_;
  Point current_{0, 0};
  bool done_ = false;
  int warmup_left_ = 0;
  int window_cycles_ = 0;
  int64_t window_bytes_ = 0;
  double window_start_us_ = 0;
  std::vector<double> window_scores_;
};

// The CSV log: `fusion_threshold_bytes,cycle_time_ms,score_bytes_per_us,best`, one row per
// sample with best 0, then the chosen parameters again with best 1. Rows are flushed at once.
class AutotuneLog {
 public:
  ~AutotuneLog();
  bool Open(const std::string& path, std::string* error);
  void Write(const TuningSample& sample, bool best);

 private:
  std::FILE* file_ = nullptr;
};

// Rank 0's parameters travel in the negotiation's minimum-allreduce of bytes: rank 0 writes
// them, every other rank writes 0xFF, so each byte's minimum is rank 0's and every rank reads the
// same parameters in the same cycle. A first byte of 0xFF means rank 0 sent none.
inline constexpr size_t kTuningVoteBytes = 1 + sizeof(int64_t) + sizeof(double);
using TuningVote = std::array<char, kTuningVoteBytes>;
TuningVote CastTuningVote(const std::optional<TuningState>& mine);
std::optional<TuningState> ReadTuningVote(const char* bytes);

}  // namespace kolo
