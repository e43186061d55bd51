#include "engine/autotune.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace kolo {
namespace {

constexpr int64_t kMiB = 1 << 20;
// Horovod's ranges (fusion up to 64 MiB, cycle time 1 to 100 ms) on a roughly logarithmic grid,
// plus Kolo's 128 MiB default.
constexpr int64_t kFusionGridMiB[] = {1, 2, 4, 8, 16, 32, 64, 128};
constexpr double kCycleGridMs[] = {1, 2, 5, 10, 25, 50, 100};
// Horovod's initial test points (MiB, ms), sampled right after the starting parameters.
constexpr std::pair<int64_t, double> kInitialPoints[] = {{4, 5}, {32, 50}, {16, 25}, {8, 10}};

template <typename T, size_t N>
std::vector<T> Axis(const T (&grid)[N], T scale, T start, bool fixed) {
  std::vector<T> axis{start};
  if (fixed) return axis;
  for (T v : grid) axis.push_back(v * scale);
  std::sort(axis.begin(), axis.end());
  axis.erase(std::unique(axis.begin(), axis.end()), axis.end());
  return axis;
}

template <typename T>
size_t IndexOf(const std::vector<T>& axis, T value) {
  return static_cast<size_t>(std::find(axis.begin(), axis.end(), value) - axis.begin());
}

}  // namespace

Autotuner::Autotuner(const AutotuneConfig& config, TuningParams start)
    : config_(config),
      fusions_(Axis(kFusionGridMiB, kMiB, start.fusion_threshold_bytes,
                    config.fusion_threshold_fixed)),
      cycles_(Axis(kCycleGridMs, 1.0, start.cycle_time_ms, config.cycle_time_fixed)),
      warmup_left_(std::max(0, config.warmup_samples)) {
  config_.steps_per_sample = std::max(1, config_.steps_per_sample);
  config_.max_samples = std::max(1, config_.max_samples);
  Queue({IndexOf(fusions_, start.fusion_threshold_bytes), IndexOf(cycles_, start.cycle_time_ms)});
  for (const auto& [mib, ms] : kInitialPoints) {
    Queue({config_.fusion_threshold_fixed ? 0 : IndexOf(fusions_, mib * kMiB),
           config_.cycle_time_fixed ? 0 : IndexOf(cycles_, ms)});
  }
  current_ = queue_.front();
  queue_.pop_front();
}

void Autotuner::Queue(Point p) {
  if (scores_.count(p) != 0 || std::find(queue_.begin(), queue_.end(), p) != queue_.end()) return;
  queue_.push_back(p);
}

std::optional<TuningSample> Autotuner::Best() const {
  std::optional<TuningSample> best;
  for (const TuningSample& s : samples_) {
    if (!best || s.score > best->score) best = s;
  }
  return best;
}

std::optional<TuningSample> Autotuner::RecordCycle(int64_t bytes, double start_us, double end_us) {
  if (done_ || bytes <= 0) return std::nullopt;
  if (window_cycles_ == 0) {
    window_start_us_ = start_us;
    window_bytes_ = 0;
  }
  window_bytes_ += bytes;
  if (++window_cycles_ < config_.steps_per_sample) return std::nullopt;
  window_cycles_ = 0;
  const double elapsed_us = std::max(end_us - window_start_us_, 1e-3);
  const double score = static_cast<double>(window_bytes_) / elapsed_us;
  if (warmup_left_ > 0) {
    --warmup_left_;
    return std::nullopt;
  }
  window_scores_.push_back(score);
  if (static_cast<int>(window_scores_.size()) < kWindowsPerSample) return std::nullopt;
  std::sort(window_scores_.begin(), window_scores_.end());
  const double median = window_scores_[window_scores_.size() / 2];
  window_scores_.clear();
  scores_[current_] = median;
  order_.push_back(current_);
  samples_.push_back({ParamsAt(current_), median});
  Advance();
  return samples_.back();
}

void Autotuner::Advance() {
  size_t best = 0;
  for (size_t i = 1; i < order_.size(); ++i) {
    if (scores_[order_[i]] > scores_[order_[best]]) best = i;
  }
  const Point at = order_[best];
  if (static_cast<int>(samples_.size()) < config_.max_samples && queue_.empty()) {
    // Compass search: the best point's unsampled neighbours on the grid.
    const auto [f, c] = at;
    if (f > 0) Queue({f - 1, c});
    if (f + 1 < fusions_.size()) Queue({f + 1, c});
    if (c > 0) Queue({f, c - 1});
    if (c + 1 < cycles_.size()) Queue({f, c + 1});
  }
  if (static_cast<int>(samples_.size()) >= config_.max_samples || queue_.empty()) {
    done_ = true;
    current_ = at;
    return;
  }
  current_ = queue_.front();
  queue_.pop_front();
}

AutotuneLog::~AutotuneLog() {
  if (file_ != nullptr) std::fclose(file_);
}

bool AutotuneLog::Open(const std::string& path, std::string* error) {
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) {
    *error = "cannot write the autotune log " + path + ": " + std::strerror(errno);
    return false;
  }
  std::fputs("fusion_threshold_bytes,cycle_time_ms,score_bytes_per_us,best\n", file_);
  std::fflush(file_);
  return true;
}

void AutotuneLog::Write(const TuningSample& sample, bool best) {
  if (file_ == nullptr) return;
  std::fprintf(file_, "%lld,%g,%.6g,%d\n",
               static_cast<long long>(sample.params.fusion_threshold_bytes),
               sample.params.cycle_time_ms, sample.score, best ? 1 : 0);
  std::fflush(file_);
}

TuningVote CastTuningVote(const std::optional<TuningState>& mine) {
  TuningVote vote;
  vote.fill(static_cast<char>(0xFF));
  if (!mine) return vote;
  vote[0] = mine->searching ? 1 : 0;
  std::memcpy(vote.data() + 1, &mine->params.fusion_threshold_bytes, sizeof(int64_t));
  std::memcpy(vote.data() + 1 + sizeof(int64_t), &mine->params.cycle_time_ms, sizeof(double));
  return vote;
}

std::optional<TuningState> ReadTuningVote(const char* bytes) {
  if (static_cast<unsigned char>(bytes[0]) == 0xFF) return std::nullopt;
  TuningState state;
  state.searching = bytes[0] == 1;
  std::memcpy(&state.params.fusion_threshold_bytes, bytes + 1, sizeof(int64_t));
  std::memcpy(&state.params.cycle_time_ms, bytes + 1 + sizeof(int64_t), sizeof(double));
  return state;
}

}  // namespace kolo
