#pragma once
// The terms of a fractioned leapfrog (solver/leapfrog.hpp) in the order they run, and what the core
// asks of them all together: each point of a step, the hooks of solver/term.hpp, their records and
// their state for checkpoints.

#include "dgatd/solver/term.hpp"

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dgatd::solver {

template <class ExecutionSpace, class TetLayout, class FieldScalar>
class Terms {
public:
  using TermType = Term<ExecutionSpace, TetLayout, FieldScalar>;
  using Context = typename TermType::Context;
  using memory_space = typename ExecutionSpace::memory_space;

  // Adds a term after those already there, but before one that runs last (Term::runs_last). It
  // starts from the current field and, once dt is set (c.dt > 0), from the current dt.
  template <class SomeTerm>
  SomeTerm& add(std::unique_ptr<SomeTerm> term, Context const& c)
  {
    SomeTerm& added = *term;
    bool const before_last = !terms_.empty() && terms_.back()->runs_last();
    terms_.insert(before_last ? terms_.end() - 1 : terms_.end(), std::move(term));
    if (c.dt > 0) added.set_dt(c);
    added.reset(c);
    return added;
  }

  std::size_t size() const { return terms_.size(); }
  TermType const& operator[](std::size_t i) const { return *terms_[i]; }
  TermType& operator[](std::size_t i) { return *terms_[i]; }

  // A point of the step (&TermType::before_faraday, ...) on every term, in order.
  template <class Point>
  void at(Point point, Context const& c)
  {
    for (auto& term : terms_) ((*term).*point)(c);
  }
  // Every point of one step on term i alone (the roofline lab times each term so).
  void run_points(std::size_t i, Context const& c)
  {
    TermType& term = *terms_[i];
    term.before_faraday(c);
    term.after_faraday(c);
    term.after_ampere(c);
    term.correct(c);
    term.end_step(c);
  }
  // The term that runs last (the halo exchange) settles first: the others may wait for its values.
  void settle(Context const& c) const
  {
    if (!terms_.empty() && terms_.back()->runs_last()) terms_.back()->settle(c);
    for (auto const& term : terms_)
      if (!term->runs_last()) term->settle(c);
  }
  FaradayPasses<memory_space> faraday_passes() const
  {
    FaradayPasses<memory_space> passes;
    for (auto const& term : terms_)
      if (auto const asked = term->faraday_passes(); asked.split) passes = asked;
    return passes;
  }
  void share_unknowns(ExecutionSpace const& space, Kokkos::View<Real*, memory_space> const& u, std::size_t subset = 0)
  {
    for (auto& term : terms_) term->share_unknowns(space, u, subset);
  }
  void set_shared_subsets(std::vector<std::vector<char>> const& subsets)
  {
    for (auto& term : terms_) term->set_shared_subsets(subsets);
  }
  // The stability bound must not see what a term wrote into the operators with dt.
  void check_operators_untouched(double dt) const
  {
    for (auto const& term : terms_)
      if (dt > 0 && term->writes_operators_on_set_dt())
        throw std::logic_error("the stability bound estimated after set_dt with the term " + term->name() +
                               ", which wrote into the operators: estimate the bound first");
  }
  TermRecords records() const
  {
    TermRecords records;
    for (auto const& term : terms_) term->add_records(records);
    return records;
  }
  TermSnapshots snapshots() const
  {
    TermSnapshots snapshots;
    for (auto const& term : terms_) term->add_snapshot(snapshots);
    return snapshots;
  }

  // The terms' state after `steps` steps (the matched layers' auxiliary unknowns, the ports'
  // voltage histories), in the order the terms run.
  std::size_t state_size(std::int64_t steps) const
  {
    std::size_t size = 0;
    for (auto const& term : terms_) size += term->state_size(steps);
    return size;
  }
  // Each term's share of that state after `steps` steps: its size and its rows over tets
  // (Term::state_rows), in the order of save.
  std::vector<parallel::TermStateLayout> states(std::int64_t steps) const
  {
    std::vector<parallel::TermStateLayout> states;
    for (auto const& term : terms_) states.push_back({term->state_size(steps), term->state_rows()});
    return states;
  }
  std::vector<double> save() const
  {
    std::vector<double> state;
    for (auto const& term : terms_) term->save(state);
    return state;
  }
  // state as save wrote it after c.step steps.
  void restore(Context const& c, std::vector<double> const& state)
  {
    if (state.size() != state_size(c.step))
      throw std::invalid_argument("the terms' state does not fit this leapfrog at this step");
    double const* next = state.data();
    for (auto& term : terms_) {
      term->restore(c, next);
      next += term->state_size(c.step);
    }
  }

private:
  std::vector<std::unique_ptr<TermType>> terms_;
};

} // namespace dgatd::solver
