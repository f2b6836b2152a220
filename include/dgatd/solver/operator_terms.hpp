#pragma once
// The terms the operators themselves call for: the losses where they hold lossy blocks
// (conductivity, absorbing surfaces, the matched layers' electric side) and the layers' magnetic
// side where they hold stretched tets. Every fractioned leapfrog starts with them.

#include "dgatd/dga/operators.hpp"
#include "dgatd/solver/formulation.hpp"
#include "dgatd/solver/losses.hpp"
#include "dgatd/solver/magnetic_stretch.hpp"
#include "dgatd/solver/term.hpp"

#include <memory>
#include <stdexcept>
#include <type_traits>
#include <vector>

namespace dgatd::solver {

// held: the terms to make even where host's part of a problem over ranks needs none, because
// another part's does (every rank holds the same terms in the same order).
template <class ExecutionSpace, class TetLayout, class FieldScalar>
std::vector<std::unique_ptr<Term<ExecutionSpace, TetLayout, FieldScalar>>>
operator_terms(dga::HostOperators const& host, kernels::MatrixPrecision matrix_precision,
               OperatorTermsHeld const& held = {})
{
  std::vector<std::unique_ptr<Term<ExecutionSpace, TetLayout, FieldScalar>>> terms;
  bool const losses = held.losses || !host.lossy_blocks.empty();
  bool const stretch = held.magnetic_stretch || !host.stretched_tets.empty();
  if constexpr (std::is_same_v<FieldScalar, Real>) {
    if (losses) terms.push_back(std::make_unique<Losses<ExecutionSpace, TetLayout>>(host, matrix_precision));
    if (stretch) terms.push_back(std::make_unique<MagneticStretch<ExecutionSpace, TetLayout>>(host, matrix_precision));
  } else if (losses || stretch) {
    throw std::invalid_argument("single precision steps lossless problems: the operators hold lossy blocks or "
                                "stretched tets");
  }
  return terms;
}

} // namespace dgatd::solver
