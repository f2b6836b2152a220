#include "dgatd/kokkos_compat.hpp"

namespace dgatd::compat {

std::string enabled_execution_spaces()
{
  std::string names = Kokkos::DefaultExecutionSpace::name();
  auto add = [&names](char const* name) {
    if (names.find(name) == std::string::npos) names += std::string(", ") + name;
  };
#if defined(KOKKOS_ENABLE_CUDA)
  add("Cuda");
#endif
#if defined(KOKKOS_ENABLE_OPENMP)
  add("OpenMP");
#endif
#if defined(KOKKOS_ENABLE_SERIAL)
  add("Serial");
#endif
  return names;
}

std::string device_id_argument(int id)
{
#if KOKKOS_VERSION < 30700
  return "--kokkos-device=" + std::to_string(id);
#else
  return "--kokkos-device-id=" + std::to_string(id);
#endif
}

std::string translate_kokkos_argument(std::string const& argument)
{
#if KOKKOS_VERSION < 30700
  std::string const modern = "--kokkos-num-threads";
  if (argument.rfind(modern, 0) == 0) return "--kokkos-threads" + argument.substr(modern.size());
#endif
  return argument;
}

} // namespace dgatd::compat
