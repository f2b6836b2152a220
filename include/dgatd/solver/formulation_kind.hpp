#pragma once
// The two formulations of the method (solver/formulation.hpp): the fractioned DGATD and the
// assembled baseline. The configuration names one; the solver builds it.

namespace dgatd::solver {

enum class FormulationKind { fractioned, assembled };

inline char const* to_string(FormulationKind kind)
{
  return kind == FormulationKind::assembled ? "assembled" : "fractioned";
}

} // namespace dgatd::solver
