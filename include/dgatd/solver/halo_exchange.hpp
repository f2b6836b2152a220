#pragma once
// The halo exchange of a run over several ranks as a term of the leapfrog (docs/method/parallel.md): at the
// end of every step, after every other term has set u^(n+1), each halo block's unknowns take the
// values of the rank that owns the block, so the next Faraday reads on every tet of the part what
// the one-process run reads. Packed and unpacked on the device.
//
// With overlap, the end of a step only starts the exchange; the next step's Faraday runs first on
// the runs of tets that read no halo unknown (kernels::TetRuns), then the leapfrog finishes the
// exchange (Term::settle) and steps the runs that hold a rim tet (Term::faraday_passes). Anything
// else that reads the fields between two steps (probes on this rank, snapshots, the state) settles
// the terms first (FractionedLeapfrog::settle_terms).
//
// Where the messages go from (docs/method/parallel.md, "Halo buffers"): on a host backend, the packed
// buffers themselves; on a GPU, the device buffers when the MPI library takes device memory
// (Communicator::takes_device_buffers), else host buffers in pinned memory, which the copies fill at
// the link's speed without a bounce through pageable memory.

#include "dgatd/kernels/faraday.hpp"
#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/parallel/communicator.hpp"
#include "dgatd/parallel/decomposition.hpp"
#include "dgatd/solver/term.hpp"

#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace dgatd::solver {

// The host memory a GPU's halo goes through: page-locked where the backend has it.
template <class MemorySpace>
struct HaloStagingSpace {
  using type = Kokkos::HostSpace;
};
#ifdef KOKKOS_ENABLE_CUDA
template <>
struct HaloStagingSpace<Kokkos::CudaSpace> {
  using type = Kokkos::CudaHostPinnedSpace;
};
#endif

// How a rank's halo messages travel.
enum class HaloBuffers { host, device, pinned_host_staging, host_staging };

inline char const* to_string(HaloBuffers buffers)
{
  switch (buffers) {
  case HaloBuffers::host:
    return "host buffers";
  case HaloBuffers::device:
    return "device buffers (GPU-aware MPI)";
  case HaloBuffers::pinned_host_staging:
    return "device buffers staged through pinned host buffers";
  case HaloBuffers::host_staging:
    return "device buffers staged through host buffers";
  }
  return "?";
}

template <class ExecutionSpace, class TetLayout = kernels::DefaultTetLayout<ExecutionSpace>>
class HaloExchange final : public Term<ExecutionSpace, TetLayout> {
public:
  using memory_space = typename ExecutionSpace::memory_space;
  using Context = typename Term<ExecutionSpace, TetLayout>::Context;
  using Vector = Kokkos::View<Real*, memory_space>;
  using TetList = Kokkos::View<Index const*, memory_space>;
  using StagingSpace = typename HaloStagingSpace<memory_space>::type;
  using StagingVector = Kokkos::View<Real*, StagingSpace>;

  // num_tets: the part's tets, for the rim flags.
  HaloExchange(std::shared_ptr<parallel::Communicator> communicator, parallel::HaloPlan const& plan, bool overlap,
               Index num_tets)
      : communicator_(std::move(communicator)), neighbours_(plan.neighbours), overlap_(overlap),
        send_dofs_(kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::halo_send_dofs", plan.send_dofs)),
        receive_dofs_(
            kernels::upload_flat<Kokkos::View<Index*, memory_space>>("dgatd::halo_receive_dofs", plan.receive_dofs)),
        send_("dgatd::halo_send", plan.send_dofs.size()), receive_("dgatd::halo_receive", plan.receive_dofs.size()),
        buffers_(buffers_for(*communicator_))
  {
    if (staged()) {
      send_staged_ = StagingVector("dgatd::halo_send_staged", send_.extent(0));
      receive_staged_ = StagingVector("dgatd::halo_receive_staged", receive_.extent(0));
    }
    set_runs(plan, num_tets);
  }

  // u's halo unknowns from their owners, now; collective.
  void exchange(ExecutionSpace const& space, Vector const& u)
  {
    start(space, u);
    finish(space, u);
  }
  // Posts the messages of u's owned values the neighbours hold; collective.
  void start(ExecutionSpace const& space, Vector const& u)
  {
    Kokkos::Timer timer;
    kernels::for_each("dgatd::halo_pack", space, send_.extent(0),
                      kernels::GatherRows<memory_space>{send_dofs_, u, send_, false});
    if (staged()) Kokkos::deep_copy(space, send_staged_, send_);
    space.fence();
    if (staged())
      communicator_->start_exchange(neighbours_, send_staged_.data(), receive_staged_.data());
    else
      communicator_->start_exchange(neighbours_, send_.data(), receive_.data());
    pending_ = true;
    seconds_ += timer.seconds();
  }
  // Waits for the messages started and writes the halo unknowns of u; nothing when none are pending.
  void finish(ExecutionSpace const& space, Vector const& u)
  {
    if (!pending_) return;
    Kokkos::Timer timer;
    communicator_->finish_exchange();
    pending_ = false;
    if (staged()) Kokkos::deep_copy(space, receive_, receive_staged_);
    kernels::for_each("dgatd::halo_unpack", space, receive_.extent(0),
                      kernels::ScatterSet<memory_space>{receive_dofs_, receive_, u, 1.0});
    space.fence();
    seconds_ += timer.seconds();
  }
  bool pending() const { return pending_; }
  HaloBuffers buffers() const { return buffers_; }
  // The first tets of the runs of kernels::tets_per_run tets that hold no rim tet, and of those that do.
  TetList interior_runs() const { return interior_runs_; }
  TetList rim_runs() const { return rim_runs_; }
  // With overlap, the share of the runs Faraday steps once the messages are in; zero when waiting.
  double share_after_exchange() const
  {
    auto const runs = interior_runs_.extent(0) + rim_runs_.extent(0);
    return overlap_ && runs > 0 ? static_cast<double>(rim_runs_.extent(0)) / static_cast<double>(runs) : 0.0;
  }

  std::string name() const override { return "halo_exchange"; }
  // Per value sent: its index, u^ read, the buffer written and read; per value received: the same
  // and u^ written.
  std::int64_t bytes_per_step() const override
  {
    auto const values = static_cast<std::int64_t>(send_.extent(0) + receive_.extent(0));
    return values * static_cast<std::int64_t>(sizeof(Index) + 3 * sizeof(Real));
  }
  std::size_t values_sent() const { return send_.extent(0); }
  // Wall time this rank spent in exchanges so far, outside the work they overlap: packing, copies,
  // posting, and the wait for the messages (which holds what a slower neighbour takes longer).
  double seconds() const { return seconds_; }

  void reset(Context const& c) override { exchange(c.space, c.fields.u); }
  void settle(Context const& c) override { finish(c.space, c.fields.u); }
  FaradayPasses<memory_space> faraday_passes() const override { return {interior_runs_, rim_runs_, pending_}; }
  void share_unknowns(ExecutionSpace const& space, Vector const& u) override { exchange(space, u); }
  bool runs_last() const override { return true; }
  // With local steps the levels exchange their own unknowns (LocalStepsOverRanks); this term still
  // ends each coarse step.
  LocalStepSupport local_step_support() const override { return {true, {}}; }
  void end_step(Context const& c) override
  {
    start(c.space, c.fields.u);
    if (!overlap_) finish(c.space, c.fields.u);
  }

private:
  static HaloBuffers buffers_for(parallel::Communicator const& communicator)
  {
    if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible) return HaloBuffers::host;
    if (communicator.takes_device_buffers()) return HaloBuffers::device;
    return std::is_same<StagingSpace, Kokkos::HostSpace>::value ? HaloBuffers::host_staging
                                                                : HaloBuffers::pinned_host_staging;
  }
  bool staged() const { return buffers_ == HaloBuffers::pinned_host_staging || buffers_ == HaloBuffers::host_staging; }

  void set_runs(parallel::HaloPlan const& plan, Index num_tets)
  {
    std::vector<char> holds_rim(
        static_cast<std::size_t>((num_tets + kernels::tets_per_run - 1) / kernels::tets_per_run));
    for (Index t : plan.rim_tets) holds_rim[static_cast<std::size_t>(t / kernels::tets_per_run)] = 1;
    std::vector<Index> interior, rim_first;
    for (std::size_t run = 0; run < holds_rim.size(); ++run)
      (holds_rim[run] ? rim_first : interior).push_back(static_cast<Index>(run) * kernels::tets_per_run);
    using Runs = Kokkos::View<Index*, memory_space>;
    interior_runs_ = kernels::upload_flat<Runs>("dgatd::interior_runs", interior);
    rim_runs_ = kernels::upload_flat<Runs>("dgatd::rim_runs", rim_first);
  }

  std::shared_ptr<parallel::Communicator> communicator_;
  std::vector<parallel::NeighbourExchange> neighbours_;
  bool overlap_;
  bool pending_ = false;
  Kokkos::View<Index*, memory_space> send_dofs_, receive_dofs_;
  TetList interior_runs_, rim_runs_;
  Vector send_, receive_;
  HaloBuffers buffers_;
  StagingVector send_staged_, receive_staged_;
  double seconds_ = 0;
};

} // namespace dgatd::solver
