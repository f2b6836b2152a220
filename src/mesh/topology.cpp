#include "dgatd/mesh/topology.hpp"

#include "dgatd/error.hpp"
#include "dgatd/host_parallel.hpp"
#include "dgatd/mesh/reference_tet.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <utility>

namespace dgatd::mesh {
namespace {

std::array<Index, 2> sorted_pair(Index a, Index b)
{
  return a < b ? std::array<Index, 2>{a, b} : std::array<Index, 2>{b, a};
}

std::array<Index, 3> sorted_triple(Index a, Index b, Index c)
{
  std::array<Index, 3> t{a, b, c};
  std::sort(t.begin(), t.end());
  return t;
}

// Entities are numbered in lexicographic order of their sorted vertex ids, which makes the
// numbering a function of the mesh alone. Returns, for every (tet, local entity) slot, its id.
// Slots are bucketed by their lowest vertex (a counting sort), then each small bucket is sorted
// by the remaining ids packed into one 64-bit key: far less work than a comparison sort of all
// slots, and the buckets stay in cache. Buckets are sorted and counted in parallel; a prefix sum of
// their distinct counts gives each bucket its first id.
template <std::size_t N>
std::vector<Index> number_entities(Index num_vertices, std::vector<std::array<Index, N>> const& keys_by_slot,
                                   std::vector<std::array<Index, N>>& entities)
{
  static_assert(N == 2 || N == 3);
  auto packed_tail = [](std::array<Index, N> const& key) {
    if constexpr (N == 2)
      return static_cast<std::uint64_t>(key[1]);
    else
      return static_cast<std::uint64_t>(key[1]) << 32 | static_cast<std::uint32_t>(key[2]);
  };
  std::vector<std::size_t> bucket_offsets(static_cast<std::size_t>(num_vertices) + 1, 0);
  for (auto const& key : keys_by_slot) ++bucket_offsets[static_cast<std::size_t>(key[0]) + 1];
  std::partial_sum(bucket_offsets.begin(), bucket_offsets.end(), bucket_offsets.begin());
  std::vector<std::pair<std::uint64_t, Index>> bucketed(keys_by_slot.size());
  {
    std::vector<std::size_t> next(bucket_offsets.begin(), bucket_offsets.end() - 1);
    for (std::size_t slot = 0; slot < keys_by_slot.size(); ++slot) {
      auto const& key = keys_by_slot[slot];
      bucketed[next[key[0]]++] = {packed_tail(key), static_cast<Index>(slot)};
    }
  }
  std::vector<Index> first_id(static_cast<std::size_t>(num_vertices) + 1, 0);
  host_parallel_for("dgatd::topology::sort_buckets", num_vertices, [&](std::int64_t v) {
    auto const first = bucketed.begin() + static_cast<std::ptrdiff_t>(bucket_offsets[v]);
    auto const last = bucketed.begin() + static_cast<std::ptrdiff_t>(bucket_offsets[v + 1]);
    std::sort(first, last);
    Index distinct = 0;
    for (auto it = first; it != last; ++it) distinct += it == first || it->first != (it - 1)->first;
    first_id[v + 1] = distinct;
  });
  std::partial_sum(first_id.begin(), first_id.end(), first_id.begin());
  std::vector<Index> id_of_slot(keys_by_slot.size());
  entities.resize(static_cast<std::size_t>(first_id.back()));
  host_parallel_for("dgatd::topology::number_buckets", num_vertices, [&](std::int64_t v) {
    auto const first = bucketed.begin() + static_cast<std::ptrdiff_t>(bucket_offsets[v]);
    auto const last = bucketed.begin() + static_cast<std::ptrdiff_t>(bucket_offsets[v + 1]);
    Index id = first_id[v] - 1;
    for (auto it = first; it != last; ++it) {
      if (it == first || it->first != (it - 1)->first) entities[++id] = keys_by_slot[it->second];
      id_of_slot[it->second] = id;
    }
  });
  return id_of_slot;
}

// Incidence of face (a,b,c), a < b < c, on edge (x,y), x < y: d f = e(a,b) + e(b,c) - e(a,c).
signed char face_edge_incidence(std::array<Index, 3> const& f, std::array<Index, 2> const& e)
{
  if (e[0] == f[0] && e[1] == f[1]) return 1;
  if (e[0] == f[1] && e[1] == f[2]) return 1;
  if (e[0] == f[0] && e[1] == f[2]) return -1;
  return 0;
}

// Sign of the permutation taking (x,y,z) (distinct) to increasing order.
int permutation_parity(Index x, Index y, Index z)
{
  int inversions = (x > y) + (x > z) + (y > z);
  return inversions % 2 == 0 ? 1 : -1;
}

// Pairs (row, value) arrive with values increasing within each row, so a stable counting sort by
// row gives each row's values in increasing order without a comparison sort.
void build_csr(Index rows, std::vector<std::pair<Index, Index>> const& pairs, std::vector<Index>& offsets,
               std::vector<Index>& values)
{
  offsets.assign(static_cast<std::size_t>(rows) + 1, 0);
  for (auto const& p : pairs) ++offsets[static_cast<std::size_t>(p.first) + 1];
  std::partial_sum(offsets.begin(), offsets.end(), offsets.begin());
  values.resize(pairs.size());
  std::vector<Index> next(offsets.begin(), offsets.end() - 1);
  for (auto const& p : pairs) values[next[p.first]++] = p.second;
}

} // namespace

Topology build_topology(Mesh const& mesh)
{
  Topology topo;
  Index const num_tets = mesh.num_tets();
  topo.num_vertices = mesh.num_vertices();

  std::vector<std::array<Index, 2>> edge_slots(static_cast<std::size_t>(num_tets) * 6);
  std::vector<std::array<Index, 3>> face_slots(static_cast<std::size_t>(num_tets) * 4);
  host_parallel_for("dgatd::topology::slots", num_tets, [&](std::int64_t t) {
    auto const& v = mesh.tets[t];
    for (int k = 0; k < 6; ++k) edge_slots[6 * t + k] = sorted_pair(v[tet_edge_vertex(k, 0)], v[tet_edge_vertex(k, 1)]);
    for (int j = 0; j < 4; ++j)
      face_slots[4 * t + j] =
          sorted_triple(v[tet_face_vertex(j, 0)], v[tet_face_vertex(j, 1)], v[tet_face_vertex(j, 2)]);
  });
  auto const edge_of_slot = number_entities<2>(topo.num_vertices, edge_slots, topo.edge_vertices);
  edge_slots = {};
  auto const face_of_slot = number_entities<3>(topo.num_vertices, face_slots, topo.face_vertices);
  face_slots = {};

  topo.tet_edges.resize(num_tets);
  topo.tet_edge_sign.resize(num_tets);
  topo.tet_faces.resize(num_tets);
  topo.tet_face_sign.resize(num_tets);
  topo.tet_curl.resize(num_tets);
  host_parallel_for("dgatd::topology::tets", num_tets, [&](std::int64_t t) {
    auto const& v = mesh.tets[t];
    for (int k = 0; k < 6; ++k) {
      topo.tet_edges[t][k] = edge_of_slot[6 * t + k];
      topo.tet_edge_sign[t][k] = v[tet_edge_vertex(k, 0)] < v[tet_edge_vertex(k, 1)] ? 1 : -1;
    }
    for (int j = 0; j < 4; ++j) {
      Index const f = face_of_slot[4 * t + j];
      topo.tet_faces[t][j] = f;
      // In a positively oriented tet the local order tet_face_vertex(j, .) is outward for even j and
      // inward for odd j; the global order (increasing ids) flips that with the sorting parity.
      int const local_outward = (j % 2 == 0) ? 1 : -1;
      Index const a = v[tet_face_vertex(j, 0)], b = v[tet_face_vertex(j, 1)], c = v[tet_face_vertex(j, 2)];
      topo.tet_face_sign[t][j] = static_cast<signed char>(local_outward * permutation_parity(a, b, c));
      for (int k = 0; k < 6; ++k)
        topo.tet_curl[t][j][k] = face_edge_incidence(topo.face_vertices[f], topo.edge_vertices[topo.tet_edges[t][k]]);
    }
  });
  // The tets of each face, in increasing tet order (serial: a face's two slots must not race).
  topo.face_tets.assign(topo.face_vertices.size(), {-1, -1});
  for (Index t = 0; t < num_tets; ++t)
    for (int j = 0; j < 4; ++j) {
      Index const f = topo.tet_faces[t][j];
      auto& slots = topo.face_tets[f];
      if (slots[0] < 0)
        slots[0] = t;
      else if (slots[1] < 0)
        slots[1] = t;
      else
        throw Error(mesh.source,
                    "face (" + std::to_string(topo.face_vertices[f][0]) + ", " +
                        std::to_string(topo.face_vertices[f][1]) + ", " + std::to_string(topo.face_vertices[f][2]) +
                        ") is shared by more than two tetrahedra (tet " + std::to_string(t) + ")",
                    "the volume mesh must be conforming and manifold; remesh it");
    }

  Index const num_edges = topo.num_edges();
  std::vector<std::pair<Index, Index>> pairs;
  pairs.reserve(2 * static_cast<std::size_t>(num_edges));
  for (Index e = 0; e < num_edges; ++e) {
    pairs.emplace_back(topo.edge_vertices[e][0], e);
    pairs.emplace_back(topo.edge_vertices[e][1], e);
  }
  build_csr(topo.num_vertices, pairs, topo.v2e_offsets, topo.v2e);
  topo.edge_half_edges.assign(num_edges, {-1, -1});
  for (Index v = 0; v < topo.num_vertices; ++v)
    for (Index h = topo.v2e_offsets[v]; h < topo.v2e_offsets[v + 1]; ++h) {
      Index const e = topo.v2e[h];
      topo.edge_half_edges[e][topo.edge_vertices[e][0] == v ? 0 : 1] = h;
    }

  pairs.clear();
  pairs.reserve(4 * static_cast<std::size_t>(num_tets));
  for (Index t = 0; t < num_tets; ++t)
    for (int i = 0; i < 4; ++i) pairs.emplace_back(mesh.tets[t][i], t);
  build_csr(topo.num_vertices, pairs, topo.v2t_offsets, topo.v2t);

  topo.face_tag.assign(topo.face_vertices.size(), 0);
  topo.edge_on_boundary.assign(num_edges, 0);
  for (Index f = 0; f < topo.num_faces(); ++f)
    if (topo.face_tets[f][1] < 0) topo.boundary_faces.push_back(f);
  auto mark_edges_of_face = [&](Index f) {
    auto const& t = topo.face_tets[f][0];
    for (int j = 0; j < 4; ++j)
      if (topo.tet_faces[t][j] == f)
        for (int i = 0; i < 3; ++i) topo.edge_on_boundary[topo.tet_edges[t][tet_face_edge(j, i)]] = 1;
  };
  for (Index f : topo.boundary_faces) mark_edges_of_face(f);

  for (std::size_t i = 0; i < mesh.boundary_triangles.size(); ++i) {
    auto const& tri = mesh.boundary_triangles[i];
    auto const key = sorted_triple(tri[0], tri[1], tri[2]);
    auto it = std::lower_bound(topo.face_vertices.begin(), topo.face_vertices.end(), key);
    if (it == topo.face_vertices.end() || *it != key)
      throw Error(mesh.source,
                  "surface triangle " + std::to_string(i) + " (physical surface " +
                      std::to_string(mesh.boundary_triangle_tag[i]) + ") is not a face of any tetrahedron",
                  "the surface and volume meshes must be conforming; remesh the model as one geometry");
    topo.face_tag[static_cast<std::size_t>(it - topo.face_vertices.begin())] = mesh.boundary_triangle_tag[i];
  }
  return topo;
}

} // namespace dgatd::mesh
