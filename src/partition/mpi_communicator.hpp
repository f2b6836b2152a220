#pragma once
// parallel::Communicator over MPI (the MPI build: DGATD_ENABLE_MPI). Host buffers only: a CUDA run
// stages its halo through pinned host memory (solver/halo_exchange.hpp).

#include "dgatd/parallel/communicator.hpp"

#include <mpi.h>

#include <vector>

namespace dgatd::parallel {

class MpiCommunicator final : public Communicator {
public:
  explicit MpiCommunicator(MPI_Comm communicator) : communicator_(communicator) {}
  int rank() const override;
  int size() const override;
  void sum(double* values, std::size_t count) const override;
  std::int64_t max(std::int64_t value) const override;
  void broadcast(std::vector<char>& bytes, int root) const override;
  std::vector<std::vector<std::int64_t>> all_to_all(std::vector<std::vector<std::int64_t>> const& sends) const override;
  void start_exchange(std::vector<NeighbourExchange> const& neighbours, double const* send, double* receive) override;
  void finish_exchange() override;

private:
  MPI_Comm communicator_;
  std::vector<MPI_Request> requests_;
};

} // namespace dgatd::parallel
