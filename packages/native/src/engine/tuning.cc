// How the engine runs the autotuner: rank 0 scores each cycle that allreduced something and
// sends the parameters it wants in every negotiation (the vote, or the coordinator's response
// list when the cycle has no vote); every rank applies what rank 0 sent right after that exchange,
// so the fusion of agreed responses changes on all ranks in the same cycle.
#include <chrono>
#include <cstdio>
#include <utility>

#include "engine/engine.h"

namespace kolo {

void Engine::StartAutotune() {
  tuning_state_.params = {config_.fusion_threshold_bytes, config_.cycle_time_ms};
  tuning_state_.searching = config_.autotune.enabled;
  if (config_.rank != 0 || !config_.autotune.enabled) return;
  autotuner_ = std::make_unique<Autotuner>(config_.autotune, tuning_state_.params);
  if (config_.autotune.log_path.empty()) return;
  std::string error;
  if (!autotune_log_.Open(config_.autotune.log_path, &error)) {
    std::fprintf(stderr, "Kolo WARNING: %s; autotuning without a log.\n", error.c_str());
  }
}

TuningVote Engine::OwnTuningVote() const {
  if (!autotuner_) return CastTuningVote(std::nullopt);
  return CastTuningVote(TuningState{autotuner_->Current(), !autotuner_->Done()});
}

void Engine::AdoptTuning(const char* vote) {
  std::optional<TuningState> state = ReadTuningVote(vote);
  if (!state) return;
  config_.fusion_threshold_bytes = state->params.fusion_threshold_bytes;
  config_.cycle_time_ms = state->params.cycle_time_ms;
  if (coordinator_) coordinator_->SetFusionThreshold(config_.fusion_threshold_bytes);
  std::lock_guard<std::mutex> lock(tuning_mu_);
  tuning_state_ = *state;
}

TuningState Engine::Tuning() const {
  std::lock_guard<std::mutex> lock(tuning_mu_);
  return tuning_state_;
}

void Engine::Tune(std::chrono::steady_clock::time_point cycle_start) {
  const int64_t bytes = std::exchange(tuning_bytes_, 0);
  if (!autotuner_ || bytes == 0) return;
  using Micros = std::chrono::duration<double, std::micro>;
  const auto epoch = std::chrono::steady_clock::time_point();
  const double start_us = Micros(cycle_start - epoch).count();
  const double end_us = Micros(std::chrono::steady_clock::now() - epoch).count();
  std::optional<TuningSample> sample = autotuner_->RecordCycle(bytes, start_us, end_us);
  if (!sample) return;
  autotune_log_.Write(*sample, false);
  if (autotuner_->Done()) autotune_log_.Write(*autotuner_->Best(), true);
}

}  // namespace kolo
