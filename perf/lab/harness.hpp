#pragma once
// Interleaved timing: every round runs each member once (a batch of back-to-back launches, then a
// fence), in order, so members of one round see the same machine load and their per-round ratios
// are meaningful even when absolute times swing between rounds.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace dgatd::perf {

struct Timed {
  std::string kernel;
  std::string layout;
  std::string backend;
  int threads = 1;
  std::function<void()> launch; // one launch, not fenced
  std::function<void()> fence;
  std::int64_t bytes = 0;
  double flops = 0;
  std::int64_t updates = 0;
};

struct Samples {
  std::vector<double> seconds; // per launch, one per round
  int batch = 1;
};

std::vector<Samples> interleave(std::vector<Timed const*> const& members, int repetitions, int warmup,
                                double min_sample_seconds);

double median(std::vector<double> values);

// Median over rounds of numerator[r] / denominator[r].
// numerator[r] / denominator[r] for each round r both have, and their median.
std::vector<double> round_ratios(std::vector<double> const& numerator, std::vector<double> const& denominator);
double median_ratio(std::vector<double> const& numerator, std::vector<double> const& denominator);

} // namespace dgatd::perf
