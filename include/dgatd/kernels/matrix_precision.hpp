#pragma once
// The precision the fractioned step's local matrices are stored in, and that of its fields. float32
// matrices with double fields (the configuration's precision = "mixed") halve the matrices' bytes,
// most of a step's traffic (perf/results/2026-11-26-precision.md): the core's inverses and the lossy terms' step
// matrices. float32 fields too ("single") halve the fields' bytes as well.

#include <cstddef>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

namespace dgatd::kernels {

enum class MatrixPrecision { float64, float32 };

// The precision of the fractioned step's fields: float32 (precision = "single") keeps the fields and
// the kernels' sums in float too, with float matrices; energies and bounds are still summed in double.
enum class FieldPrecision { float64, float32 };

// What a precision's name ([solver] precision, dgatd bench --precision) stores in float: "double"
// nothing, "mixed" the matrices, "single" the matrices and the fields.
struct StepPrecision {
  MatrixPrecision matrices = MatrixPrecision::float64;
  FieldPrecision fields = FieldPrecision::float64;
};

inline StepPrecision step_precision_named(std::string const& name)
{
  if (name == "double") return {};
  if (name == "mixed") return {MatrixPrecision::float32, FieldPrecision::float64};
  if (name == "single") return {MatrixPrecision::float32, FieldPrecision::float32};
  throw std::invalid_argument("unknown precision '" + name + "' (double, mixed or single)");
}

// The bytes of one matrix number in precision.
inline std::size_t matrix_scalar_size(MatrixPrecision precision)
{
  return precision == MatrixPrecision::float32 ? sizeof(float) : sizeof(double);
}

inline char const* matrix_precision_name(MatrixPrecision precision)
{
  return precision == MatrixPrecision::float32 ? "float" : "double";
}

// f(float{}) or f(double{}): a launch with its kernel's matrices in precision.
template <class Function>
decltype(auto) with_matrix_scalar(MatrixPrecision precision, Function&& f)
{
  if (precision == MatrixPrecision::float32) return f(float{});
  return f(double{});
}

// f(float{}) or f(double{}): a launch with its kernel's matrices in the precision a step with
// FieldScalar fields takes: float fields take float matrices alone (single precision).
template <class FieldScalar, class Function>
decltype(auto) with_step_matrix_scalar(MatrixPrecision precision, Function&& f)
{
  if constexpr (std::is_same_v<FieldScalar, float>)
    return f(float{});
  else
    return with_matrix_scalar(precision, std::forward<Function>(f));
}

// A host value rounded to what the matrices of precision hold, so that host arithmetic which must
// agree with a kernel (a term's implicit step built from numbers a kernel reads) uses the same one.
inline double round_to(MatrixPrecision precision, double value)
{
  return precision == MatrixPrecision::float32 ? static_cast<double>(static_cast<float>(value)) : value;
}

} // namespace dgatd::kernels
