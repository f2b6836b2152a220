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
#include <stdexcept>
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
      : communicator_(std::move(communicator)), overlap_(overlap), plan_(plan), buffers_(buffers_for(*communicator_))
  {
    row_sets_.push_back(make_rows(plan.neighbours, plan.send_dofs, plan.receive_dofs));
    set_runs(plan, num_tets);
  }

  // u's halo unknowns from their owners, now (of the rows of set_shared_subsets' subset, 0 all);
  // collective.
  void exchange(ExecutionSpace const& space, Vector const& u, std::size_t subset = 0)
  {
    start(space, u, subset);
    finish(space, u);
  }
  // Posts the messages of u's owned values the neighbours hold; collective.
  void start(ExecutionSpace const& space, Vector const& u, std::size_t subset = 0)
  {
    if (pending_) throw std::logic_error("a halo exchange starts while another is in flight");
    Kokkos::Timer timer;
    auto const& rows = row_sets_.at(subset);
    kernels::for_each("dgatd::halo_pack", space, rows.send.extent(0),
                      kernels::GatherRows<memory_space>{rows.send_dofs, u, rows.send, false});
    if (staged()) Kokkos::deep_copy(space, rows.send_staged, rows.send);
    space.fence();
    if (staged())
      communicator_->start_exchange(rows.neighbours, rows.send_staged.data(), rows.receive_staged.data());
    else
      communicator_->start_exchange(rows.neighbours, rows.send.data(), rows.receive.data());
    pending_ = &rows;
    seconds_ += timer.seconds();
  }
  // Waits for the messages started and writes the halo unknowns of u; nothing when none are pending.
  void finish(ExecutionSpace const& space, Vector const& u)
  {
    if (!pending_) return;
    Kokkos::Timer timer;
    communicator_->finish_exchange();
    auto const& rows = *pending_;
    pending_ = nullptr;
    if (staged()) Kokkos::deep_copy(space, rows.receive, rows.receive_staged);
    kernels::for_each("dgatd::halo_unpack", space, rows.receive.extent(0),
                      kernels::ScatterSet<memory_space>{rows.receive_dofs, rows.receive, u, 1.0});
    space.fence();
    seconds_ += timer.seconds();
  }
  bool pending() const { return pending_ != nullptr; }
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
    auto const values = static_cast<std::int64_t>(values_sent() + row_sets_[0].receive.extent(0));
    return values * static_cast<std::int64_t>(sizeof(Index) + 3 * sizeof(Real));
  }
  // Of the whole halo, and of subset s of set_shared_subsets.
  std::size_t values_sent(std::size_t subset = 0) const { return row_sets_.at(subset).send.extent(0); }
  std::size_t subsets() const { return row_sets_.size() - 1; }
  // Wall time this rank spent in exchanges so far, outside the work they overlap: packing, copies,
  // posting, and the wait for the messages (which holds what a slower neighbour takes longer).
  double seconds() const { return seconds_; }

  void reset(Context const& c) override { exchange(c.space, c.fields.u); }
  void settle(Context const& c) override { finish(c.space, c.fields.u); }
  FaradayPasses<memory_space> faraday_passes() const override { return {interior_runs_, rim_runs_, pending()}; }
  void share_unknowns(ExecutionSpace const& space, Vector const& u, std::size_t subset) override
  {
    exchange(space, u, subset);
  }
  // Each subset keeps, per neighbour and in their order, the unknowns that the sending or the
  // receiving side flags. The two sides' flags of an unknown can differ (2 of the 2,538 unknowns a
  // part of the graded sphere over 3 ranks receives, at every level), so each side sends the other
  // its flags once, and both keep what either flags: the counts match, and the rows a level moves on
  // either side are exchanged as the whole halo exchanges them. Collective.
  void set_shared_subsets(std::vector<std::vector<char>> const& subsets) override
  {
    if (pending_) throw std::logic_error("the halo's subsets change while an exchange is in flight");
    auto reversed = plan_.neighbours;
    for (auto& n : reversed) {
      std::swap(n.send_offset, n.receive_offset);
      std::swap(n.send_count, n.receive_count);
    }
    row_sets_.resize(1);
    for (auto const& flags : subsets) {
      // sent[i], received[i]: whether either side flags send_dofs[i], receive_dofs[i].
      std::vector<double> sent(plan_.send_dofs.size()), received(plan_.receive_dofs.size());
      std::vector<double> senders(received.size()), receivers(sent.size());
      for (std::size_t i = 0; i < sent.size(); ++i) sent[i] = flags.at(plan_.send_dofs[i]);
      for (std::size_t i = 0; i < received.size(); ++i) received[i] = flags.at(plan_.receive_dofs[i]);
      communicator_->start_exchange(plan_.neighbours, sent.data(), senders.data());
      communicator_->finish_exchange();
      communicator_->start_exchange(reversed, received.data(), receivers.data());
      communicator_->finish_exchange();
      std::vector<parallel::NeighbourExchange> neighbours;
      std::vector<Index> send, receive;
      for (auto const& whole : plan_.neighbours) {
        parallel::NeighbourExchange kept{whole.rank, send.size(), 0, receive.size(), 0};
        for (std::size_t i = whole.send_offset; i < whole.send_offset + whole.send_count; ++i)
          if (sent[i] != 0 || receivers[i] != 0) send.push_back(plan_.send_dofs[i]);
        for (std::size_t i = whole.receive_offset; i < whole.receive_offset + whole.receive_count; ++i)
          if (received[i] != 0 || senders[i] != 0) receive.push_back(plan_.receive_dofs[i]);
        kept.send_count = send.size() - kept.send_offset;
        kept.receive_count = receive.size() - kept.receive_offset;
        neighbours.push_back(kept);
      }
      row_sets_.push_back(make_rows(neighbours, send, receive));
    }
  }
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
  // The unknowns an exchange sends and receives, per neighbour, with their buffers.
  struct Rows {
    std::vector<parallel::NeighbourExchange> neighbours;
    Kokkos::View<Index*, memory_space> send_dofs, receive_dofs;
    Vector send, receive;
    StagingVector send_staged, receive_staged;
  };
  Rows make_rows(std::vector<parallel::NeighbourExchange> const& neighbours, std::vector<Index> const& send_dofs,
                 std::vector<Index> const& receive_dofs) const
  {
    using Dofs = Kokkos::View<Index*, memory_space>;
    Rows rows{neighbours,
              kernels::upload_flat<Dofs>("dgatd::halo_send_dofs", send_dofs),
              kernels::upload_flat<Dofs>("dgatd::halo_receive_dofs", receive_dofs),
              Vector("dgatd::halo_send", send_dofs.size()),
              Vector("dgatd::halo_receive", receive_dofs.size()),
              {},
              {}};
    if (staged()) {
      rows.send_staged = StagingVector("dgatd::halo_send_staged", send_dofs.size());
      rows.receive_staged = StagingVector("dgatd::halo_receive_staged", receive_dofs.size());
    }
    return rows;
  }

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
  bool overlap_;
  parallel::HaloPlan plan_;
  HaloBuffers buffers_;
  std::vector<Rows> row_sets_; // [0] the whole halo, then set_shared_subsets' subsets
  Rows const* pending_ = nullptr;
  TetList interior_runs_, rim_runs_;
  double seconds_ = 0;
};

} // namespace dgatd::solver
