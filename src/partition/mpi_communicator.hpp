#pragma once
// parallel::Communicator over MPI (the MPI build: DGATD_ENABLE_MPI). It takes device buffers where
// the library says at run time that it is CUDA-aware (Open MPI's MPIX_Query_cuda_support), or where
// DGATD_GPU_AWARE_MPI=1 says so for a library that cannot be asked; DGATD_GPU_AWARE_MPI=0 refuses
// them. Else a GPU run stages its halo through pinned host memory (solver/halo_exchange.hpp).

#include "dgatd/parallel/communicator.hpp"

#include <mpi.h>

#include <vector>

namespace dgatd::parallel {

class MpiCommunicator final : public Communicator {
public:
  explicit MpiCommunicator(MPI_Comm communicator);
  int rank() const override;
  int size() const override;
  void sum(double* values, std::size_t count) const override;
  std::int64_t max(std::int64_t value) const override;
  void broadcast(std::vector<char>& bytes, int root) const override;
  std::vector<std::vector<std::int64_t>> all_to_all(std::vector<std::vector<std::int64_t>> const& sends) const override;
  void start_exchange(std::vector<NeighbourExchange> const& neighbours, double const* send, double* receive) override;
  void finish_exchange() override;
  bool takes_device_buffers() const override { return takes_device_buffers_; }

private:
  MPI_Comm communicator_;
  bool takes_device_buffers_;
  std::vector<MPI_Request> requests_;
};

} // namespace dgatd::parallel
