#pragma once
// What a run over several ranks needs from its message layer, as an interface without MPI types, so
// that the library builds and runs without MPI (SingleProcess) and the MPI build supplies its own
// (src/parallel/mpi_communicator.hpp). Every member is collective: all ranks call it, in the same
// order, with matching arguments.

#include "dgatd/vec3.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

namespace dgatd::parallel {

// One neighbour of a halo exchange: send_count values from send_offset of the send buffer go to
// rank, and receive_count values from it land at receive_offset of the receive buffer.
struct NeighbourExchange {
  int rank = 0;
  std::size_t send_offset = 0, send_count = 0;
  std::size_t receive_offset = 0, receive_count = 0;
};

class Communicator {
public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  // values[i] becomes the sum of values[i] over the ranks, on every rank.
  virtual void sum(double* values, std::size_t count) const = 0;
  virtual std::int64_t max(std::int64_t value) const = 0;
  // bytes of rank root, on every rank.
  virtual void broadcast(std::vector<char>& bytes, int root) const = 0;
  // sends[r] goes to rank r; returns what each rank sent to this one.
  virtual std::vector<std::vector<std::int64_t>>
  all_to_all(std::vector<std::vector<std::int64_t>> const& sends) const = 0;
  // A non-blocking exchange with the neighbours: start posts the receives and sends, finish waits
  // for them. The buffers must stay alive and untouched in between.
  virtual void start_exchange(std::vector<NeighbourExchange> const& neighbours, double const* send,
                              double* receive) = 0;
  virtual void finish_exchange() = 0;
  // Whether start_exchange may be given GPU memory (a GPU-aware MPI library); else a GPU run stages
  // its halo through host memory.
  virtual bool takes_device_buffers() const { return false; }
};

// A run of one process: every collective is the identity.
class SingleProcess final : public Communicator {
public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void sum(double*, std::size_t) const override {}
  std::int64_t max(std::int64_t value) const override { return value; }
  void broadcast(std::vector<char>&, int) const override {}
  std::vector<std::vector<std::int64_t>> all_to_all(std::vector<std::vector<std::int64_t>> const& sends) const override
  {
    return sends;
  }
  void start_exchange(std::vector<NeighbourExchange> const& neighbours, double const*, double*) override
  {
    if (!neighbours.empty()) throw std::logic_error("a single process has no neighbours to exchange with");
  }
  void finish_exchange() override {}
};

// An error every rank of a run throws together (through together), so each can stop cleanly where an
// error on one rank alone would leave the others waiting in a collective.
class CollectiveError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Every rank's rows, concatenated in rank order, on every rank. Collective.
inline std::vector<std::int64_t> all_gathered(Communicator const& communicator, std::vector<std::int64_t> const& mine)
{
  auto const received = communicator.all_to_all(std::vector<std::vector<std::int64_t>>(communicator.size(), mine));
  std::vector<std::int64_t> all;
  for (auto const& rows : received) all.insert(all.end(), rows.begin(), rows.end());
  return all;
}

// Numbers among the whole numbers of a gather's rows: their bits, and back.
inline void append_number(std::vector<std::int64_t>& rows, double x)
{
  std::int64_t bits = 0;
  std::memcpy(&bits, &x, sizeof bits);
  rows.push_back(bits);
}
inline double number_at(std::int64_t bits)
{
  double x = 0;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
inline void append_point(std::vector<std::int64_t>& rows, Vec3 const& x)
{
  for (double c : x) append_number(rows, c);
}
inline Vec3 point_at(std::int64_t const* bits) { return {number_at(bits[0]), number_at(bits[1]), number_at(bits[2])}; }

// Every rank's numbers, concatenated in rank order, on every rank. Collective.
inline std::vector<double> all_gathered(Communicator const& communicator, std::vector<double> const& mine)
{
  std::vector<std::int64_t> rows;
  for (double x : mine) append_number(rows, x);
  std::vector<double> all;
  for (auto bits : all_gathered(communicator, rows)) all.push_back(number_at(bits));
  return all;
}

// Rank root's numbers on every rank (the others' numbers are replaced). Collective.
inline void broadcast_numbers(Communicator const& communicator, std::vector<double>& numbers, int root)
{
  std::vector<char> bytes(numbers.size() * sizeof(double));
  if (!bytes.empty()) std::memcpy(bytes.data(), numbers.data(), bytes.size());
  communicator.broadcast(bytes, root);
  numbers.resize(bytes.size() / sizeof(double));
  if (!bytes.empty()) std::memcpy(numbers.data(), bytes.data(), bytes.size());
}

// Runs step on every rank; when it throws on some, every rank throws CollectiveError with the
// message of the highest of them. With one rank, step's own exception passes unchanged.
template <class Step>
void together(Communicator const& communicator, Step&& step)
{
  if (communicator.size() == 1) {
    step();
    return;
  }
  std::string message;
  bool failed = false;
  try {
    step();
  } catch (std::exception const& e) {
    message = e.what();
    failed = true;
  }
  auto const failing = communicator.max(failed ? communicator.rank() : -1);
  if (failing < 0) return;
  std::vector<char> bytes(message.begin(), message.end());
  communicator.broadcast(bytes, static_cast<int>(failing));
  throw CollectiveError(std::string(bytes.begin(), bytes.end()));
}

} // namespace dgatd::parallel
