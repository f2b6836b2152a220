#include "lab/harness.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>

namespace dgatd::perf {

namespace {

double time_batch(Timed const& member, int batch)
{
  auto const start = std::chrono::steady_clock::now();
  for (int b = 0; b < batch; ++b) member.launch();
  member.fence();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / batch;
}

} // namespace

std::vector<Samples> interleave(std::vector<Timed const*> const& members, int repetitions, int warmup,
                                double min_sample_seconds)
{
  constexpr int max_batch = 2000;
  std::vector<Samples> samples(members.size());
  for (auto const* member : members) member->fence();
  // The first warm-up round times single launches to size each member's batch.
  for (std::size_t m = 0; m < members.size(); ++m) {
    double const single = time_batch(*members[m], 1);
    double const wanted = std::ceil(min_sample_seconds / std::max(single, 1e-9));
    samples[m].batch = static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(max_batch)));
  }
  for (int w = 1; w < warmup; ++w)
    for (std::size_t m = 0; m < members.size(); ++m) time_batch(*members[m], samples[m].batch);
  for (int r = 0; r < repetitions; ++r)
    for (std::size_t m = 0; m < members.size(); ++m)
      samples[m].seconds.push_back(time_batch(*members[m], samples[m].batch));
  return samples;
}

double median(std::vector<double> values)
{
  if (values.empty()) return 0;
  auto const middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
  std::nth_element(values.begin(), middle, values.end());
  if (values.size() % 2 == 1) return *middle;
  return 0.5 * (*middle + *std::max_element(values.begin(), middle));
}

std::vector<double> round_ratios(std::vector<double> const& numerator, std::vector<double> const& denominator)
{
  std::vector<double> ratios;
  for (std::size_t r = 0; r < numerator.size() && r < denominator.size(); ++r)
    ratios.push_back(numerator[r] / denominator[r]);
  return ratios;
}

double median_ratio(std::vector<double> const& numerator, std::vector<double> const& denominator)
{
  return median(round_ratios(numerator, denominator));
}

} // namespace dgatd::perf
