#include "partition/mpi_communicator.hpp"

#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>
#endif

#include <cstdlib>
#include <cstring>
#include <limits>
#include <stdexcept>

namespace dgatd::parallel {
namespace {

// MPI counts are ints; a halo or a mesh beyond 2^31 values would need MPI 4's large counts.
int count_of(std::size_t n)
{
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("an MPI message of more than 2^31 values");
  return static_cast<int>(n);
}

bool library_takes_device_buffers()
{
  if (char const* forced = std::getenv("DGATD_GPU_AWARE_MPI"); forced && *forced) return std::strcmp(forced, "0") != 0;
#if defined(OMPI_HAVE_MPI_EXT_CUDA) && OMPI_HAVE_MPI_EXT_CUDA
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

} // namespace

MpiCommunicator::MpiCommunicator(MPI_Comm communicator)
    : communicator_(communicator), takes_device_buffers_(library_takes_device_buffers())
{
}

int MpiCommunicator::rank() const
{
  int rank = 0;
  MPI_Comm_rank(communicator_, &rank);
  return rank;
}

int MpiCommunicator::size() const
{
  int size = 1;
  MPI_Comm_size(communicator_, &size);
  return size;
}

void MpiCommunicator::sum(double* values, std::size_t count) const
{
  MPI_Allreduce(MPI_IN_PLACE, values, count_of(count), MPI_DOUBLE, MPI_SUM, communicator_);
}

std::int64_t MpiCommunicator::max(std::int64_t value) const
{
  MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT64_T, MPI_MAX, communicator_);
  return value;
}

void MpiCommunicator::broadcast(std::vector<char>& bytes, int root) const
{
  auto size = static_cast<std::int64_t>(bytes.size());
  MPI_Bcast(&size, 1, MPI_INT64_T, root, communicator_);
  bytes.resize(static_cast<std::size_t>(size));
  MPI_Bcast(bytes.data(), count_of(bytes.size()), MPI_CHAR, root, communicator_);
}

std::vector<std::vector<std::int64_t>>
MpiCommunicator::all_to_all(std::vector<std::vector<std::int64_t>> const& sends) const
{
  int const ranks = size();
  std::vector<int> send_counts(ranks), receive_counts(ranks), send_offsets(ranks + 1, 0), receive_offsets(ranks + 1, 0);
  for (int r = 0; r < ranks; ++r) send_counts[r] = count_of(sends[r].size());
  MPI_Alltoall(send_counts.data(), 1, MPI_INT, receive_counts.data(), 1, MPI_INT, communicator_);
  std::vector<std::int64_t> send;
  for (int r = 0; r < ranks; ++r) {
    send_offsets[r + 1] = send_offsets[r] + send_counts[r];
    receive_offsets[r + 1] = receive_offsets[r] + receive_counts[r];
    send.insert(send.end(), sends[r].begin(), sends[r].end());
  }
  std::vector<std::int64_t> received(static_cast<std::size_t>(receive_offsets[ranks]));
  MPI_Alltoallv(send.data(), send_counts.data(), send_offsets.data(), MPI_INT64_T, received.data(),
                receive_counts.data(), receive_offsets.data(), MPI_INT64_T, communicator_);
  std::vector<std::vector<std::int64_t>> by_rank(ranks);
  for (int r = 0; r < ranks; ++r)
    by_rank[r].assign(received.begin() + receive_offsets[r], received.begin() + receive_offsets[r + 1]);
  return by_rank;
}

void MpiCommunicator::start_exchange(std::vector<NeighbourExchange> const& neighbours, double const* send,
                                     double* receive)
{
  requests_.assign(2 * neighbours.size(), MPI_REQUEST_NULL);
  int constexpr tag = 21;
  for (std::size_t n = 0; n < neighbours.size(); ++n)
    MPI_Irecv(receive + neighbours[n].receive_offset, count_of(neighbours[n].receive_count), MPI_DOUBLE,
              neighbours[n].rank, tag, communicator_, &requests_[n]);
  for (std::size_t n = 0; n < neighbours.size(); ++n)
    MPI_Isend(send + neighbours[n].send_offset, count_of(neighbours[n].send_count), MPI_DOUBLE, neighbours[n].rank, tag,
              communicator_, &requests_[neighbours.size() + n]);
}

void MpiCommunicator::finish_exchange()
{
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  requests_.clear();
}

} // namespace dgatd::parallel
