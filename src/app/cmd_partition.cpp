// dgatd partition: how a mesh splits over N ranks (issue 21): METIS's parts, their balance, and what
// each part would receive per step in the two halo schemes the run can use (partition/partition.hpp),
// so that the choice between them rests on real meshes; with -o DIR, the parts themselves, one file
// per rank, for a run whose ranks together hold a mesh no one of them could (simulation/part_files.hpp).
#include "commands.hpp"

#include "dgatd/error.hpp"
#include "dgatd/mesh/gmsh_io.hpp"
#include "dgatd/mesh/ordering.hpp"
#include "dgatd/mesh/topology.hpp"
#include "partition/partition.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace dgatd::app {
namespace {

struct PartitionOptions {
  std::string file;
  double scale = 1.0;
  int parts = 2;
  std::vector<std::string> weights; // VOLUME=W
  std::string ordering = "hilbert";
  std::string output; // the folder of the parts, empty for the table only
};

// Each tet's weight: W for the tets of each physical volume named in --weight VOLUME=W, else 1.
std::vector<int> tet_weights(mesh::Mesh const& m, std::vector<std::string> const& weights)
{
  std::vector<int> weight;
  if (weights.empty()) return weight;
  weight.assign(m.tets.size(), 1);
  for (auto const& item : weights) {
    auto const equals = item.find('=');
    int value = 0;
    try {
      std::size_t used = 0;
      if (equals != std::string::npos) value = std::stoi(item.substr(equals + 1), &used);
      if (used != item.size() - equals - 1) value = 0;
    } catch (std::exception const&) {
      value = 0;
    }
    if (equals == std::string::npos || value < 1)
      throw Error("--weight " + item, "is not VOLUME=W with a whole W of at least 1",
                  "e.g. --weight pml=4 for a matched layer's tets, which move about four times a plain tet's bytes");
    int const tag = m.group_tag(3, item.substr(0, equals));
    for (std::size_t t = 0; t < m.tets.size(); ++t)
      if (m.tet_region[t] == tag) weight[t] = value;
  }
  return weight;
}

int run_partition(PartitionOptions const& options)
{
  if (!options.output.empty() && options.parts < 2)
    throw Error("-n " + std::to_string(options.parts), "is below 2: one process reads the mesh itself",
                "give -n 2 or more for a folder of parts");
  mesh::Mesh m = mesh::read_mesh(options.file, options.scale);
  // The numbering a run steps in, so that METIS sees the graph a run would split.
  mesh::order_for_locality(m, *mesh::ordering_named(options.ordering));
  mesh::Topology const topology = mesh::build_topology(m);
  auto const weight = tet_weights(m, options.weights);
  auto const tet_part = partition::partition_tets(m, topology, options.parts, weight);
  auto const halos = partition::part_halos(topology, tet_part, options.parts);
  std::vector<long long> part_weight(options.parts, 0);
  for (std::size_t t = 0; t < tet_part.size(); ++t) part_weight[tet_part[t]] += weight.empty() ? 1 : weight[t];

  // Unknowns: a u per half-edge and an f per tet face (4 per tet); values move as doubles.
  constexpr double bytes = 8;
  Index const unknowns = topology.num_half_edges() + 4 * topology.num_tets();
  std::printf("mesh %s: %lld tets, %lld vertices, %lld unknowns; %d parts (METIS k-way on the tets' face graph)\n",
              m.source.c_str(), static_cast<long long>(topology.num_tets()),
              static_cast<long long>(topology.num_vertices), static_cast<long long>(unknowns), options.parts);
  std::printf("%5s %9s %9s %5s | %10s %10s %9s | %10s %10s %9s\n", "part", "tets", "blocks", "nbrs", "u in",
              "pieces in", "KB/step", "ghost tets", "u in", "KB/step");
  Index two_exchanges = 0, one_exchange = 0, ghost_tets = 0;
  Index worst_two = 0, worst_one = 0;
  for (int p = 0; p < options.parts; ++p) {
    auto const& h = halos[p];
    Index const two = h.halo_unknowns + h.halo_pieces, one = h.ghost_halo_unknowns;
    std::printf("%5d %9lld %9lld %5d | %10lld %10lld %9.1f | %10lld %10lld %9.1f\n", p, static_cast<long long>(h.tets),
                static_cast<long long>(h.blocks), h.neighbours, static_cast<long long>(h.halo_unknowns),
                static_cast<long long>(h.halo_pieces), two * bytes / 1e3, static_cast<long long>(h.ghost_tets),
                static_cast<long long>(one), one * bytes / 1e3);
    two_exchanges += two;
    one_exchange += one;
    ghost_tets += h.ghost_tets;
    worst_two = std::max(worst_two, two);
    worst_one = std::max(worst_one, one);
  }
  long long total = 0, largest = 0;
  for (auto w : part_weight) {
    total += w;
    largest = std::max(largest, w);
  }
  std::printf("balance: the heaviest part %.1f %% above the mean%s\n",
              100 * (largest * options.parts / static_cast<double>(total) - 1),
              weight.empty() ? " (tets)" : " (tets by their --weight)");
  std::printf("two exchanges per step (u before Faraday, pieces before Ampere): %.1f KB in all, %.1f KB into the "
              "busiest part\n",
              two_exchanges * bytes / 1e3, worst_two * bytes / 1e3);
  std::printf("one exchange per step (ghost tets step Faraday twice, only u crosses): %.1f KB in all, %.1f KB into "
              "the busiest part, %.1f %% more Faraday work\n",
              one_exchange * bytes / 1e3, worst_one * bytes / 1e3, 100.0 * ghost_tets / topology.num_tets());
  if (options.output.empty()) return 0;
  partition::write_mesh_parts(options.file, options.scale, *mesh::ordering_named(options.ordering), m, topology,
                              tet_part, options.parts, options.output);
  std::printf("wrote %s: manifest.h5 and part_0.h5 to part_%d.h5; run them under mpirun -n %d with [mesh] file = "
              "\"%s\", scale = %g, ordering = \"%s\" and parts = \"%s\"\n",
              options.output.c_str(), options.parts - 1, options.parts, options.file.c_str(), options.scale,
              options.ordering.c_str(), options.output.c_str());
  return 0;
}

} // namespace

void add_partition_command(CLI::App& app, Action* action)
{
  auto options = std::make_shared<PartitionOptions>();
  auto* command = app.add_subcommand("partition", "Split a Gmsh .msh mesh into parts for N ranks (METIS) and print "
                                                  "each part's size and halo per step");
  command->add_option("file", options->file, "Gmsh mesh (.msh 2.2 or 4.1, ASCII or binary)")->required();
  command->add_option("-n,--parts", options->parts, "Number of parts (ranks)")->capture_default_str();
  command->add_option("--weight", options->weights,
                      "VOLUME=W: the tets of a physical volume weigh W (whole, >= 1) instead of 1 (e.g. pml=4: a "
                      "matched layer's tet moves about four times a plain tet's bytes); repeatable");
  command->add_option("--scale", options->scale, "Metres per mesh unit (e.g. 1e-3 for a mesh in mm)")
      ->capture_default_str();
  command->add_option("--ordering", options->ordering, "The vertex ordering of the run ([mesh] ordering)")
      ->check(CLI::IsMember(mesh::ordering_names()))
      ->capture_default_str();
  command->add_option("-o,--output", options->output,
                      "Write the parts into this folder (manifest.h5, part_R.h5 per rank) for a run with [mesh] "
                      "parts = \"DIR\": each rank then reads only its own part");
  command->callback([options, action] { *action = [options] { return run_partition(*options); }; });
}

} // namespace dgatd::app
