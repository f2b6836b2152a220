#pragma once
// splitmix64 (Steele, Lea and Flood, OOPSLA 2014): a tiny generator whose sequence is the same on
// every platform, compiler and library, so random initial fields, jittered meshes and test data are
// reproducible bit for bit.

#include <cstdint>

namespace dgatd {

inline constexpr std::uint64_t splitmix64_increment = 0x9e3779b97f4a7c15ULL;

// The output function: a bijection of 64-bit words that scatters neighbouring inputs.
inline std::uint64_t splitmix64_mix(std::uint64_t z)
{
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// A word's top 53 bits as a double in [-1, 1).
inline double to_minus_one_to_one(std::uint64_t z)
{
  return 2.0 * static_cast<double>(z >> 11) / static_cast<double>(1ULL << 53) - 1.0;
}

// The number uniform_minus_one_to_one gives at its n-th call (from 0) from state seed, directly.
inline double nth_uniform_minus_one_to_one(std::uint64_t seed, std::uint64_t n)
{
  return to_minus_one_to_one(splitmix64_mix(seed + (n + 1) * splitmix64_increment));
}

// The next number of the sequence in [-1, 1); state advances.
inline double uniform_minus_one_to_one(std::uint64_t& state)
{
  return to_minus_one_to_one(splitmix64_mix(state += splitmix64_increment));
}

} // namespace dgatd
