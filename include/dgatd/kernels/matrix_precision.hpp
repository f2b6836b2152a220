#pragma once
// The precision the fractioned step's local matrices are stored in; the fields and every sum stay
// in double. float32 (the configuration's precision = "mixed") halves the matrices' bytes, most of
// a step's traffic (README, Precision).

namespace dgatd::kernels {

enum class MatrixPrecision { float64, float32 };

inline char const* matrix_precision_name(MatrixPrecision precision)
{
  return precision == MatrixPrecision::float32 ? "float" : "double";
}

} // namespace dgatd::kernels
