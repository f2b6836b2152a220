#pragma once
// How a capability's term reaches a formulation (Formulation::add_term) without the formulation
// knowing it: the capability gives a generic maker, maker(space) -> std::unique_ptr to its term on
// that execution space, and the recipe keeps it for every space the library is built for
// (dgatd/instances.hpp); the formulation makes the term on the space the run picked.

#include "dgatd/instances.hpp"
#include "dgatd/solver/term.hpp"

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace dgatd::solver {

// The terms of a fractioned formulation in double precision on Space.
template <class Space>
using FractionedTerm = Term<Space, kernels::DefaultTetLayout<Space>, Real>;

namespace detail {
template <class Space>
struct TermMakerOn {
  std::function<std::unique_ptr<FractionedTerm<Space>>(Space const&)> make;
};
struct NoTermMaker {};
#define DGATD_TERM_MAKER_BASE(PREFIX, SPACE) , TermMakerOn<SPACE>
// clang-format off
struct TermMakers : NoTermMaker DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_TERM_MAKER_BASE, ) {};
// clang-format on
#undef DGATD_TERM_MAKER_BASE
} // namespace detail

class TermRecipe {
public:
  // name: what the capability is called where a formulation refuses it.
  template <class Maker>
  TermRecipe(std::string name, Maker maker) : name_(std::move(name))
  {
#define DGATD_TERM_MAKER_SET(PREFIX, SPACE) set<SPACE>(maker);
    DGATD_FOR_EACH_INSTANCE_SPACE(DGATD_TERM_MAKER_SET, );
#undef DGATD_TERM_MAKER_SET
  }
  std::string const& name() const { return name_; }
  template <class Space>
  std::unique_ptr<FractionedTerm<Space>> make(Space const& space) const
  {
    return static_cast<detail::TermMakerOn<Space> const&>(makers_).make(space);
  }

private:
  template <class Space, class Maker>
  void set(Maker const& maker)
  {
    static_cast<detail::TermMakerOn<Space>&>(makers_).make =
        [maker](Space const& space) -> std::unique_ptr<FractionedTerm<Space>> { return maker(space); };
  }

  std::string name_;
  detail::TermMakers makers_;
};

} // namespace dgatd::solver
