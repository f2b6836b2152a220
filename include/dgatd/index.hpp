#pragma once
// The index type of mesh entities and unknowns, on the host and on the device. Its own header, free
// of Kokkos, so the mesh headers can spell it; types.hpp brings it in with the Kokkos aliases.

#include <cstdint>

namespace dgatd {

// 32-bit indices: meshes up to two billion entities, half the index traffic of 64-bit ones.
using Index = std::int32_t;

} // namespace dgatd
