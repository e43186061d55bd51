// The autotuner's search, fed synthetic scores: which candidates it samples, in which order,
// what it keeps, and how windows become scores (warm-up, median, idle time).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <functional>
#include <sstream>

#include "engine/autotune.h"

namespace kolo {
namespace {

constexpr int64_t kMiB = 1 << 20;
using Score = std::function<double(const TuningParams&)>;

// Drives a tuner with back-to-back cycles of 100 µs that each score `score(Current())`, so every
// window scores exactly that.
class Driver {
 public:
  explicit Driver(Autotuner& tuner) : tuner_(tuner) {}
  void Window(int steps, double score) {
    for (int i = 0; i < steps; ++i) {
      tuner_.RecordCycle(static_cast<int64_t>(score * 100), now_, now_ + 100);
      now_ += 100;
    }
  }
  void RunToEnd(int steps, const Score& score) {
    for (int guard = 0; !tuner_.Done() && guard < 10000; ++guard) {
      Window(steps, score(tuner_.Current()));
    }
  }

 private:
  Autotuner& tuner_;
  double now_ = 0;
};

// (fusion MiB, cycle ms) of every sample, in order.
std::vector<std::pair<double, double>> Sequence(const Autotuner& tuner) {
  std::vector<std::pair<double, double>> out;
  for (const TuningSample& s : tuner.Samples()) {
    const double mib = static_cast<double>(s.params.fusion_threshold_bytes) / kMiB;
    out.push_back({mib, s.params.cycle_time_ms});
  }
  return out;
}

// A bowl over grid positions, highest at (fusion 2^best_log2 MiB, cycle grid index best_cycle).
Score Bowl(double best_log2, double best_cycle) {
  return [=](const TuningParams& p) {
    const double cycles[] = {1, 2, 5, 10, 25, 50, 100};
    double ci = 0;
    for (int i = 0; i < 7; ++i) {
      if (cycles[i] == p.cycle_time_ms) ci = i;
    }
    const double f = std::log2(static_cast<double>(p.fusion_threshold_bytes) / kMiB) - best_log2;
    return 1000 - 10 * f * f - 10 * (ci - best_cycle) * (ci - best_cycle);
  };
}

AutotuneConfig Config(int warmup, int steps, int max_samples) {
  AutotuneConfig c;
  c.enabled = true;
  c.warmup_samples = warmup;
  c.steps_per_sample = steps;
  c.max_samples = max_samples;
  return c;
}

TEST(Autotune, SamplesStartThenHorovodPointsThenCompassSearchAroundTheBest) {
  Autotuner tuner(Config(0, 1, 20), {128 * kMiB, 1});
  Driver(tuner).RunToEnd(1, Bowl(1, 1));  // best at (2 MiB, 2 ms)
  const std::vector<std::pair<double, double>> expected = {
      {128, 1}, {4, 5}, {32, 50}, {16, 25}, {8, 10},  // start, Horovod's initial points
      {2, 5},   {8, 5}, {4, 2},   {4, 10},            // neighbours of (4, 5)
      {1, 5},   {2, 2}, {2, 10},                      // of (2, 5)
      {1, 2},   {2, 1}};                              // of (2, 2), whose neighbours are then all done
  EXPECT_EQ(Sequence(tuner), expected);
  ASSERT_TRUE(tuner.Done());
  EXPECT_EQ(tuner.Current(), (TuningParams{2 * kMiB, 2}));
  EXPECT_EQ(tuner.Best()->score, 1000);
}

TEST(Autotune, StopsAtMaxSamplesAndKeepsTheBestSoFar) {
  Autotuner tuner(Config(0, 1, 11), {128 * kMiB, 1});
  Driver(tuner).RunToEnd(1, Bowl(1, 1));
  ASSERT_EQ(tuner.Samples().size(), 11u);
  EXPECT_EQ(Sequence(tuner).back(), (std::pair<double, double>{2, 2}));
  EXPECT_TRUE(tuner.Done());
  EXPECT_EQ(tuner.Current(), (TuningParams{2 * kMiB, 2}));
}

TEST(Autotune, StaysAtAnInitialPointWhoseNeighboursAreWorse) {
  Autotuner tuner(Config(0, 1, 20), {128 * kMiB, 1});
  Driver(tuner).RunToEnd(1, Bowl(3, 3));  // best at (8 MiB, 10 ms)
  const std::vector<std::pair<double, double>> expected = {
      {128, 1}, {4, 5}, {32, 50}, {16, 25}, {8, 10}, {4, 10}, {16, 10}, {8, 5}, {8, 25}};
  EXPECT_EQ(Sequence(tuner), expected);
  EXPECT_EQ(tuner.Current(), (TuningParams{8 * kMiB, 10}));
}

TEST(Autotune, AnExplicitFusionThresholdIsHeldFixed) {
  AutotuneConfig c = Config(0, 1, 20);
  c.fusion_threshold_fixed = true;
  Autotuner tuner(c, {64 * kMiB, 1});
  Driver(tuner).RunToEnd(1, Bowl(0, 1));  // best cycle time 2 ms
  const std::vector<std::pair<double, double>> expected = {{64, 1}, {64, 5}, {64, 50}, {64, 25},
                                                           {64, 10}, {64, 2}};
  EXPECT_EQ(Sequence(tuner), expected);
  EXPECT_EQ(tuner.Current(), (TuningParams{64 * kMiB, 2}));
}

TEST(Autotune, WithBothParametersFixedItScoresTheOnlyCandidateOnce) {
  AutotuneConfig c = Config(0, 1, 20);
  c.fusion_threshold_fixed = true;
  c.cycle_time_fixed = true;
  Autotuner tuner(c, {3 * kMiB + 1, 3.5});
  Driver(tuner).RunToEnd(1, [](const TuningParams&) { return 7.0; });
  ASSERT_EQ(tuner.Samples().size(), 1u);
  EXPECT_EQ(tuner.Current(), (TuningParams{3 * kMiB + 1, 3.5}));
}

TEST(Autotune, AStartOffTheGridJoinsTheGrid) {
  Autotuner tuner(Config(0, 1, 7), {3 * kMiB, 1});
  // Everything but (3 MiB, 1 ms) and its neighbour (2 MiB, 1 ms) scores 1.
  Driver(tuner).RunToEnd(1, [](const TuningParams& p) {
    if (p.cycle_time_ms != 1) return 1.0;
    if (p.fusion_threshold_bytes == 3 * kMiB) return 10.0;
    return p.fusion_threshold_bytes == 2 * kMiB ? 20.0 : 1.0;
  });
  const std::vector<std::pair<double, double>> expected = {{3, 1}, {4, 5}, {32, 50}, {16, 25},
                                                           {8, 10}, {2, 1}, {4, 1}};
  EXPECT_EQ(Sequence(tuner), expected);
  EXPECT_EQ(tuner.Current(), (TuningParams{2 * kMiB, 1}));
}

TEST(Autotune, WarmupWindowsAreDiscardedAndASampleIsTheMedianOfFiveWindows) {
  Autotuner tuner(Config(2, 3, 20), {128 * kMiB, 1});
  Driver d(tuner);
  d.Window(3, 1e9);  // warm-up: ignored
  d.Window(3, 1e9);
  for (double score : {5.0, 9.0, 1e6, 7.0, 0.5}) d.Window(3, score);
  ASSERT_EQ(tuner.Samples().size(), 1u);
  EXPECT_EQ(tuner.Samples()[0].score, 7.0);
  EXPECT_EQ(tuner.Samples()[0].params, (TuningParams{128 * kMiB, 1}));
  EXPECT_EQ(tuner.Current(), (TuningParams{4 * kMiB, 5}));
}

TEST(Autotune, CyclesWithoutBytesDoNotCountButTheirTimeDoes) {
  Autotuner tuner(Config(0, 2, 20), {128 * kMiB, 1});
  for (int w = 0; w < kWindowsPerSample; ++w) {
    const double t = w * 1000.0;
    tuner.RecordCycle(400, t, t + 100);
    tuner.RecordCycle(0, t + 100, t + 200);  // idle cycle inside the window
    tuner.RecordCycle(400, t + 700, t + 800);
  }
  ASSERT_EQ(tuner.Samples().size(), 1u);
  EXPECT_EQ(tuner.Samples()[0].score, 1.0);  // 800 bytes over 800 µs
}

TEST(Autotune, RankZerosVoteSurvivesTheMinimumOverRanks) {
  TuningState mine{{48 * kMiB + 3, 2.5}, true};
  const TuningVote votes[3] = {CastTuningVote(mine), CastTuningVote(std::nullopt),
                               CastTuningVote(std::nullopt)};
  TuningVote reduced;
  for (size_t i = 0; i < kTuningVoteBytes; ++i) {
    unsigned char m = 0xFF;
    for (const TuningVote& v : votes) m = std::min(m, static_cast<unsigned char>(v[i]));
    reduced[i] = static_cast<char>(m);
  }
  std::optional<TuningState> got = ReadTuningVote(reduced.data());
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->params, mine.params);
  EXPECT_TRUE(got->searching);
  EXPECT_FALSE(ReadTuningVote(CastTuningVote(std::nullopt).data()).has_value());
  EXPECT_FALSE(ReadTuningVote(CastTuningVote(TuningState{{1, 1}, false}).data())->searching);
}

TEST(Autotune, LogHasOneRowPerSampleThenTheBest) {
  const std::string path = ::testing::TempDir() + "kolo-autotune-log.csv";
  {
    AutotuneLog log;
    std::string error;
    ASSERT_TRUE(log.Open(path, &error)) << error;
    log.Write({{4 * kMiB, 5}, 12.5}, false);
    log.Write({{128 * kMiB, 1}, 0.25}, false);
    log.Write({{4 * kMiB, 5}, 12.5}, true);
  }
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(),
            "fusion_threshold_bytes,cycle_time_ms,score_bytes_per_us,best\n"
            "4194304,5,12.5,0\n"
            "134217728,1,0.25,0\n"
            "4194304,5,12.5,1\n");
  std::remove(path.c_str());
  AutotuneLog bad;
  std::string error;
  EXPECT_FALSE(bad.Open("/nonexistent-dir/x.csv", &error));
  EXPECT_EQ(error,
            "cannot write the autotune log /nonexistent-dir/x.csv: No such file or directory");
}

}  // namespace
}  // namespace kolo
