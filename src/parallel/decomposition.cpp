#include "dgatd/parallel/decomposition.hpp"

#include "dgatd/error.hpp"
#include "dgatd/mesh/point_location.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

namespace dgatd::parallel {

std::vector<int> vertex_owners(mesh::Topology const& topology, std::vector<int> const& tet_part, int parts)
{
  std::vector<int> owner(topology.num_vertices);
  std::vector<Index> count(parts, 0);
  for (Index v = 0; v < topology.num_vertices; ++v) {
    int best = -1;
    for (Index k = topology.v2t_offsets[v]; k < topology.v2t_offsets[v + 1]; ++k) {
      int const p = tet_part[topology.v2t[k]];
      ++count[p];
      if (best < 0 || count[p] > count[best] || (count[p] == count[best] && p < best)) best = p;
    }
    for (Index k = topology.v2t_offsets[v]; k < topology.v2t_offsets[v + 1]; ++k) count[tet_part[topology.v2t[k]]] = 0;
    owner[v] = std::max(best, 0);
  }
  return owner;
}

Index MeshPart::local_tet(Index global) const
{
  auto const it = std::lower_bound(global_tet.begin(), global_tet.end(), global);
  return it != global_tet.end() && *it == global ? static_cast<Index>(it - global_tet.begin()) : -1;
}

MeshPart make_mesh_part(mesh::Mesh const& global, std::vector<int> const& vertex_owner, int rank, int ranks,
                        std::vector<Index> const& extra_tets)
{
  MeshPart part;
  part.rank = rank;
  part.ranks = ranks;
  for (Index t = 0; t < global.num_tets(); ++t)
    for (Index v : global.tets[t])
      if (vertex_owner[v] == rank) {
        part.global_tet.push_back(t);
        break;
      }
  if (part.global_tet.empty())
    throw Error("mpirun",
                "rank " + std::to_string(rank) + " of " + std::to_string(ranks) + " got no vertex of " + global.source +
                    " (" + std::to_string(global.num_tets()) + " tets)",
                "run on fewer ranks");
  part.global_tet.insert(part.global_tet.end(), extra_tets.begin(), extra_tets.end());
  std::sort(part.global_tet.begin(), part.global_tet.end());
  part.global_tet.erase(std::unique(part.global_tet.begin(), part.global_tet.end()), part.global_tet.end());

  std::vector<Index> local_of(global.num_vertices(), -1);
  for (Index t : part.global_tet)
    for (Index v : global.tets[t]) local_of[v] = 0;
  for (Index v = 0; v < global.num_vertices(); ++v)
    if (local_of[v] == 0) {
      local_of[v] = static_cast<Index>(part.global_vertex.size());
      part.global_vertex.push_back(v);
    }

  auto& m = part.mesh;
  m.source = global.source;
  m.groups = global.groups;
  m.reoriented_tets = global.reoriented_tets;
  for (Index v : part.global_vertex) {
    m.points.push_back(global.points[v]);
    part.owns_vertex.push_back(vertex_owner[v] == rank);
    part.vertex_owner.push_back(vertex_owner[v]);
  }
  part.global_vertices = global.num_vertices();
  std::vector<std::array<Index, 3>> local_faces;
  for (Index t : part.global_tet) {
    auto const& g = global.tets[t];
    m.tets.push_back({local_of[g[0]], local_of[g[1]], local_of[g[2]], local_of[g[3]]});
    m.tet_region.push_back(global.tet_region[t]);
    part.owns_tet.push_back(tet_owner(global, vertex_owner, t) == rank);
    auto const& l = m.tets.back();
    for (int skip = 0; skip < 4; ++skip) {
      std::array<Index, 3> face{};
      for (int i = 0, k = 0; i < 4; ++i)
        if (i != skip) face[k++] = l[i];
      std::sort(face.begin(), face.end());
      local_faces.push_back(face);
    }
  }
  std::sort(local_faces.begin(), local_faces.end());
  // A surface triangle belongs to the part when it is a face of one of the part's tets.
  for (std::size_t i = 0; i < global.boundary_triangles.size(); ++i) {
    auto const& g = global.boundary_triangles[i];
    std::array<Index, 3> face{local_of[g[0]], local_of[g[1]], local_of[g[2]]};
    if (face[0] < 0 || face[1] < 0 || face[2] < 0) continue;
    std::array<Index, 3> key = face;
    std::sort(key.begin(), key.end());
    if (!std::binary_search(local_faces.begin(), local_faces.end(), key)) continue;
    m.boundary_triangles.push_back(face);
    m.boundary_triangle_tag.push_back(global.boundary_triangle_tag[i]);
    part.global_triangle.push_back(static_cast<Index>(i));
  }
  auto const local_edges = edge_pairs(m.tets);
  for (std::size_t i = 0; i < global.curve_segments.size(); ++i) {
    auto const& g = global.curve_segments[i];
    if (keeps_segment(local_edges, local_of[g[0]], local_of[g[1]], vertex_owner[g[0]] == rank)) {
      m.curve_segments.push_back({local_of[g[0]], local_of[g[1]]});
      m.curve_segment_tag.push_back(global.curve_segment_tag[i]);
    }
  }
  return part;
}

std::vector<std::array<Index, 2>> edge_pairs(std::vector<std::array<Index, 4>> const& tets)
{
  std::vector<std::array<Index, 2>> edges;
  for (auto const& tet : tets)
    for (int a = 0; a < 4; ++a)
      for (int b = a + 1; b < 4; ++b) edges.push_back({std::min(tet[a], tet[b]), std::max(tet[a], tet[b])});
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  return edges;
}

bool keeps_segment(std::vector<std::array<Index, 2>> const& edges, Index a, Index b, bool owns_a)
{
  if (a < 0 || b < 0) return false;
  return owns_a || std::binary_search(edges.begin(), edges.end(), std::array<Index, 2>{std::min(a, b), std::max(a, b)});
}

namespace {

template <std::size_t N>
std::vector<Index> global_entities(std::vector<Index> const& tet_of,
                                   std::vector<std::array<Index, N>> const& local_of_tet,
                                   std::vector<std::array<Index, N>> const& global_of_tet, Index num_local)
{
  std::vector<Index> global(num_local, -1);
  for (std::size_t t = 0; t < tet_of.size(); ++t)
    for (std::size_t k = 0; k < N; ++k) global[local_of_tet[t][k]] = global_of_tet[tet_of[t]][k];
  return global;
}

} // namespace

std::vector<Index> global_edges(mesh::Topology const& local, std::vector<Index> const& tet_of,
                                std::vector<std::array<Index, 6>> const& global_tet_edges)
{
  return global_entities(tet_of, local.tet_edges, global_tet_edges, local.num_edges());
}

std::vector<Index> global_faces(mesh::Topology const& local, std::vector<Index> const& tet_of,
                                std::vector<std::array<Index, 4>> const& global_tet_faces)
{
  return global_entities(tet_of, local.tet_faces, global_tet_faces, local.num_faces());
}

HaloPlan make_halo_plan(Communicator const& communicator, MeshPart const& part, mesh::Topology const& local,
                        std::vector<Index> const& dof_of_half_edge, Index num_free)
{
  int const ranks = communicator.size();
  auto const num_global_vertices = static_cast<std::int64_t>(part.global_vertices);
  // A half-edge by its global vertex and the global vertex at the edge's other end.
  auto key = [&](Index v, Index other) {
    return part.global_vertex[v] * num_global_vertices + part.global_vertex[other];
  };
  std::vector<std::vector<std::int64_t>> requests(ranks);
  std::vector<std::vector<Index>> receive(ranks);
  for (Index v = 0; v < local.num_vertices; ++v) {
    if (part.owns_vertex[v]) continue;
    int const owner = part.vertex_owner[v];
    for (Index h = local.v2e_offsets[v]; h < local.v2e_offsets[v + 1]; ++h) {
      Index const dof = dof_of_half_edge[h];
      if (dof >= num_free) continue;
      auto const& ends = local.edge_vertices[local.v2e[h]];
      requests[owner].push_back(key(v, ends[0] == v ? ends[1] : ends[0]));
      receive[owner].push_back(dof);
    }
  }
  auto const asked = communicator.all_to_all(requests);

  HaloPlan plan;
  for (int r = 0; r < ranks; ++r) {
    if (asked[r].empty() && receive[r].empty()) continue;
    NeighbourExchange n;
    n.rank = r;
    n.send_offset = plan.send_dofs.size();
    n.send_count = asked[r].size();
    n.receive_offset = plan.receive_dofs.size();
    n.receive_count = receive[r].size();
    for (std::int64_t k : asked[r]) {
      auto local_vertex = [&](std::int64_t global) {
        auto const it = std::lower_bound(part.global_vertex.begin(), part.global_vertex.end(), global);
        if (it == part.global_vertex.end() || *it != global)
          throw std::logic_error("a halo request names a vertex this rank does not hold");
        return static_cast<Index>(it - part.global_vertex.begin());
      };
      Index const v = local_vertex(k / num_global_vertices);
      Index const other = local_vertex(k % num_global_vertices);
      Index half_edge = -1;
      for (Index h = local.v2e_offsets[v]; h < local.v2e_offsets[v + 1] && half_edge < 0; ++h) {
        auto const& ends = local.edge_vertices[local.v2e[h]];
        if (ends[0] == other || ends[1] == other) half_edge = h;
      }
      if (half_edge < 0) throw std::logic_error("a halo request names an edge this rank does not hold");
      plan.send_dofs.push_back(dof_of_half_edge[half_edge]);
    }
    plan.receive_dofs.insert(plan.receive_dofs.end(), receive[r].begin(), receive[r].end());
    plan.neighbours.push_back(n);
  }
  for (Index t = 0; t < part.mesh.num_tets(); ++t) {
    auto const& v = part.mesh.tets[t];
    if (!(part.owns_vertex[v[0]] && part.owns_vertex[v[1]] && part.owns_vertex[v[2]] && part.owns_vertex[v[3]]))
      plan.rim_tets.push_back(t);
  }
  return plan;
}

namespace {

// Every rank's (value, id), on every rank.
std::vector<std::pair<double, Index>> share(Communicator const& communicator, double value, Index id)
{
  std::vector<double> all(2 * static_cast<std::size_t>(communicator.size()), 0.0);
  all[2 * communicator.rank()] = value;
  all[2 * communicator.rank() + 1] = static_cast<double>(id);
  communicator.sum(all.data(), all.size());
  std::vector<std::pair<double, Index>> pairs;
  for (std::size_t r = 0; r < all.size(); r += 2) pairs.emplace_back(all[r], static_cast<Index>(all[r + 1]));
  return pairs;
}

} // namespace

Index containing_tet_over_ranks(Communicator const& communicator, mesh::MeshView const& view,
                                std::vector<Index> const& global_tet, std::vector<char> const& owns_tet, Vec3 const& x)
{
  // The whole-mesh rule (mesh::ContainingTet) picks the first tet, in increasing id, with the largest
  // smallest barycentric coordinate: each rank's first among its own, then the largest over the ranks,
  // the lowest id on a tie.
  mesh::ContainingTet search(view, x);
  for (Index t = 0; t < view.mesh.num_tets(); ++t)
    if (owns_tet[t]) search.consider(t);
  Index const here = search.result();
  double smallest = -std::numeric_limits<double>::infinity();
  if (here >= 0) {
    auto const lambda = mesh::barycentric(view.mesh, here, x);
    smallest = *std::min_element(lambda.begin(), lambda.end());
  }
  Index best = -1;
  double best_smallest = -std::numeric_limits<double>::infinity();
  for (auto const& [value, id] : share(communicator, here >= 0 ? smallest : -1e300, here >= 0 ? global_tet[here] : -1))
    if (id >= 0 && (value > best_smallest || (value == best_smallest && id < best))) {
      best_smallest = value;
      best = id;
    }
  return best;
}

Index nearest_edge_over_ranks(Communicator const& communicator, mesh::MeshView const& view,
                              std::vector<Index> const& global_edge, Vec3 const& x)
{
  Index const here = mesh::nearest_edge(view, x);
  double const distance = here >= 0 ? squared_distance(x, view.geometry.edge_midpoint[here]) : 0.0;
  Index best = -1;
  double best_distance = std::numeric_limits<double>::infinity();
  for (auto const& [value, id] : share(communicator, distance, here >= 0 ? global_edge[here] : -1))
    if (id >= 0 && (value < best_distance || (value == best_distance && id < best))) {
      best_distance = value;
      best = id;
    }
  return best;
}

mesh::Mesh gather_mesh(Communicator const& communicator, MeshPart const& part, int root)
{
  // Rows of whole numbers: a vertex's id and position (its doubles' bits), a tet's id, global
  // vertices and region, a triangle's id, global vertices and tag, a curve segment's global vertices
  // and tag (from the owner of its first vertex, which every part keeping it agrees on).
  auto const& m = part.mesh;
  std::vector<std::vector<std::int64_t>> sends(communicator.size());
  auto& rows = sends[root];
  std::int64_t vertices = 0, tets = 0, triangles = 0, segments = 0;
  for (Index v = 0; v < m.num_vertices(); ++v) vertices += part.owns_vertex[v];
  for (Index t = 0; t < m.num_tets(); ++t) tets += part.owns_tet[t];
  auto const owns_triangle = [&](std::size_t i) {
    auto const& tri = m.boundary_triangles[i];
    return part.owns_vertex[*std::min_element(tri.begin(), tri.end())] != 0;
  };
  for (std::size_t i = 0; i < m.boundary_triangles.size(); ++i) triangles += owns_triangle(i);
  for (auto const& segment : m.curve_segments) segments += part.owns_vertex[segment[0]];
  rows = {vertices, tets, triangles, segments};
  for (Index v = 0; v < m.num_vertices(); ++v) {
    if (!part.owns_vertex[v]) continue;
    rows.push_back(part.global_vertex[v]);
    append_point(rows, m.points[v]);
  }
  for (Index t = 0; t < m.num_tets(); ++t) {
    if (!part.owns_tet[t]) continue;
    rows.push_back(part.global_tet[t]);
    for (Index v : m.tets[t]) rows.push_back(part.global_vertex[v]);
    rows.push_back(m.tet_region[t]);
  }
  for (std::size_t i = 0; i < m.boundary_triangles.size(); ++i) {
    if (!owns_triangle(i)) continue;
    rows.push_back(part.global_triangle[i]);
    for (Index v : m.boundary_triangles[i]) rows.push_back(part.global_vertex[v]);
    rows.push_back(m.boundary_triangle_tag[i]);
  }
  for (std::size_t i = 0; i < m.curve_segments.size(); ++i) {
    if (!part.owns_vertex[m.curve_segments[i][0]]) continue;
    for (Index v : m.curve_segments[i]) rows.push_back(part.global_vertex[v]);
    rows.push_back(m.curve_segment_tag[i]);
  }
  auto const received = communicator.all_to_all(sends);
  mesh::Mesh whole;
  if (communicator.rank() != root) return whole;
  std::size_t num_vertices = 0, num_tets = 0, num_triangles = 0;
  for (auto const& from : received) {
    num_vertices += static_cast<std::size_t>(from.at(0));
    num_tets += static_cast<std::size_t>(from.at(1));
    num_triangles += static_cast<std::size_t>(from.at(2));
  }
  whole.points.resize(num_vertices);
  whole.tets.resize(num_tets);
  whole.tet_region.resize(num_tets);
  whole.boundary_triangles.resize(num_triangles);
  whole.boundary_triangle_tag.resize(num_triangles);
  for (auto const& from : received) {
    std::size_t k = 4;
    for (std::int64_t i = 0; i < from[0]; ++i, k += 4) whole.points.at(from[k]) = point_at(&from[k + 1]);
    for (std::int64_t i = 0; i < from[1]; ++i, k += 6) {
      for (int c = 0; c < 4; ++c) whole.tets.at(from[k])[c] = static_cast<Index>(from[k + 1 + c]);
      whole.tet_region[from[k]] = static_cast<int>(from[k + 5]);
    }
    for (std::int64_t i = 0; i < from[2]; ++i, k += 5) {
      for (int c = 0; c < 3; ++c) whole.boundary_triangles.at(from[k])[c] = static_cast<Index>(from[k + 1 + c]);
      whole.boundary_triangle_tag[from[k]] = static_cast<int>(from[k + 4]);
    }
    for (std::int64_t i = 0; i < from[3]; ++i, k += 3) {
      whole.curve_segments.push_back({static_cast<Index>(from[k]), static_cast<Index>(from[k + 1])});
      whole.curve_segment_tag.push_back(static_cast<int>(from[k + 2]));
    }
  }
  return whole;
}

mesh::Mesh gather_surface(Communicator const& communicator, MeshPart const& part, mesh::Topology const& local, int tag)
{
  // The triangles at vertices this rank owns (the lowest of theirs), whose tets it holds, as rows of
  // whole numbers: the triangle's index and global vertices, then per tet beside it its id, global
  // vertices, region and the positions of its vertices (their doubles' bits).
  auto const& m = part.mesh;
  std::vector<std::int64_t> rows;
  for (std::size_t i = 0; i < m.boundary_triangles.size(); ++i) {
    auto const& tri = m.boundary_triangles[i];
    if (m.boundary_triangle_tag[i] != tag || !part.owns_vertex[*std::min_element(tri.begin(), tri.end())]) continue;
    rows.push_back(part.global_triangle[i]);
    for (Index v : tri) rows.push_back(part.global_vertex[v]);
    auto key = tri;
    std::sort(key.begin(), key.end());
    auto const face = std::lower_bound(local.face_vertices.begin(), local.face_vertices.end(), key);
    auto const& beside = local.face_tets[static_cast<std::size_t>(face - local.face_vertices.begin())];
    rows.push_back(beside[1] >= 0 ? 2 : 1);
    for (Index t : beside) {
      if (t < 0) continue;
      rows.push_back(part.global_tet[t]);
      for (Index v : m.tets[t]) rows.push_back(part.global_vertex[v]);
      rows.push_back(m.tet_region[t]);
      for (Index v : m.tets[t]) append_point(rows, m.points[v]);
    }
  }
  auto const from = all_gathered(communicator, rows);

  struct Tet {
    std::int64_t id;
    std::array<std::int64_t, 4> vertices;
    int region;
  };
  std::vector<std::pair<std::int64_t, std::array<std::int64_t, 3>>> triangles;
  std::vector<Tet> tets;
  std::vector<std::pair<std::int64_t, Vec3>> vertices;
  for (std::size_t k = 0; k < from.size();) {
    triangles.push_back({from[k], {from[k + 1], from[k + 2], from[k + 3]}});
    std::int64_t const beside = from[k + 4];
    k += 5;
    for (std::int64_t n = 0; n < beside; ++n, k += 18) {
      tets.push_back({from[k], {from[k + 1], from[k + 2], from[k + 3], from[k + 4]}, static_cast<int>(from[k + 5])});
      for (int i = 0; i < 4; ++i) vertices.push_back({from[k + 1 + i], point_at(&from[k + 6 + 3 * i])});
    }
  }
  auto const by_id = [](auto const& a, auto const& b) { return a.first < b.first; };
  std::sort(triangles.begin(), triangles.end(), by_id);
  std::sort(tets.begin(), tets.end(), [](Tet const& a, Tet const& b) { return a.id < b.id; });
  tets.erase(std::unique(tets.begin(), tets.end(), [](Tet const& a, Tet const& b) { return a.id == b.id; }),
             tets.end());
  std::sort(vertices.begin(), vertices.end(), by_id);
  vertices.erase(
      std::unique(vertices.begin(), vertices.end(), [](auto const& a, auto const& b) { return a.first == b.first; }),
      vertices.end());
  auto const local_vertex = [&](std::int64_t global) {
    return static_cast<Index>(
        std::lower_bound(vertices.begin(), vertices.end(), std::make_pair(global, Vec3{}), by_id) - vertices.begin());
  };
  mesh::Mesh surface;
  for (auto const& v : vertices) surface.points.push_back(v.second);
  for (auto const& t : tets) {
    surface.tets.push_back({local_vertex(t.vertices[0]), local_vertex(t.vertices[1]), local_vertex(t.vertices[2]),
                            local_vertex(t.vertices[3])});
    surface.tet_region.push_back(t.region);
  }
  for (auto const& tri : triangles) {
    surface.boundary_triangles.push_back(
        {local_vertex(tri.second[0]), local_vertex(tri.second[1]), local_vertex(tri.second[2])});
    surface.boundary_triangle_tag.push_back(tag);
  }
  return surface;
}

std::vector<double> sum_owned(Communicator const& communicator, std::vector<double> const& local,
                              std::vector<Index> const& global, std::vector<char> const& owned, std::size_t whole,
                              std::size_t width)
{
  std::vector<double> values(whole * width, 0.0);
  for (std::size_t i = 0; i < global.size(); ++i)
    if (global[i] >= 0 && (owned.empty() || owned[i]))
      std::copy_n(local.begin() + static_cast<std::ptrdiff_t>(i * width), width,
                  values.begin() + static_cast<std::ptrdiff_t>(global[i] * width));
  communicator.sum(values.data(), values.size());
  return values;
}

std::vector<double> gather_owned(Communicator const& communicator, std::vector<double> const& local,
                                 std::vector<Index> const& global, std::vector<char> const& owned, std::size_t whole,
                                 int root, std::size_t width)
{
  std::vector<std::vector<std::int64_t>> sends(static_cast<std::size_t>(communicator.size()));
  auto& rows = sends[static_cast<std::size_t>(root)];
  for (std::size_t i = 0; i < global.size(); ++i)
    if (global[i] >= 0 && (owned.empty() || owned[i])) {
      rows.push_back(global[i]);
      for (std::size_t k = 0; k < width; ++k) append_number(rows, local[i * width + k]);
    }
  auto const received = communicator.all_to_all(sends);
  if (communicator.rank() != root) return {};
  std::vector<double> values(whole * width, 0.0);
  for (auto const& from : received)
    for (std::size_t k = 0; k < from.size(); k += width + 1)
      for (std::size_t c = 0; c < width; ++c)
        values[static_cast<std::size_t>(from[k]) * width + c] = number_at(from[k + 1 + c]);
  return values;
}

std::vector<double> from_root(Communicator const& communicator, std::vector<double> const& whole,
                              std::vector<Index> const& global, int root, std::size_t width)
{
  auto const ranks = static_cast<std::size_t>(communicator.size());
  std::vector<std::vector<std::int64_t>> asks(ranks);
  for (Index g : global)
    if (g >= 0) asks[static_cast<std::size_t>(root)].push_back(g);
  auto const asked = communicator.all_to_all(asks);
  std::vector<std::vector<std::int64_t>> answers(ranks);
  if (communicator.rank() == root)
    for (std::size_t r = 0; r < ranks; ++r)
      for (std::int64_t g : asked[r])
        for (std::size_t c = 0; c < width; ++c)
          append_number(answers[r], whole.at(static_cast<std::size_t>(g) * width + c));
  auto const received = communicator.all_to_all(answers);
  auto const& answered = received[static_cast<std::size_t>(root)];
  std::vector<double> values(global.size() * width, 0.0);
  std::size_t next = 0;
  for (std::size_t i = 0; i < global.size(); ++i)
    if (global[i] >= 0)
      for (std::size_t c = 0; c < width; ++c) values[i * width + c] = number_at(answered[next++]);
  return values;
}

std::vector<char> from_owners(Communicator const& communicator, MeshPart const& part, std::vector<char> const& mine)
{
  std::vector<std::vector<std::int64_t>> asks(static_cast<std::size_t>(communicator.size()));
  for (std::size_t v = 0; v < mine.size(); ++v)
    if (!part.owns_vertex[v]) asks[part.vertex_owner[v]].push_back(part.global_vertex[v]);
  auto const asked = communicator.all_to_all(asks);
  std::vector<std::vector<std::int64_t>> answers(asked.size());
  for (std::size_t r = 0; r < asked.size(); ++r)
    for (auto global : asked[r]) {
      auto const it = std::lower_bound(part.global_vertex.begin(), part.global_vertex.end(), global);
      if (it == part.global_vertex.end() || *it != global)
        throw std::logic_error("a rank asked for a vertex this rank does not hold");
      answers[r].push_back(mine[static_cast<std::size_t>(it - part.global_vertex.begin())]);
    }
  auto const answered = communicator.all_to_all(answers);
  auto values = mine;
  std::vector<std::size_t> next(answered.size(), 0);
  for (std::size_t v = 0; v < values.size(); ++v)
    if (!part.owns_vertex[v]) {
      auto const owner = static_cast<std::size_t>(part.vertex_owner[v]);
      values[v] = static_cast<char>(answered[owner][next[owner]++]);
    }
  return values;
}

namespace {

class Packer {
public:
  template <class T>
  void put(std::vector<T> const& values)
  {
    static_assert(std::is_trivially_copyable<T>::value, "packed values are copied as bytes");
    put_size(values.size());
    auto const* first = reinterpret_cast<char const*>(values.data());
    bytes.insert(bytes.end(), first, first + values.size() * sizeof(T));
  }
  void put(std::string const& text) { put(std::vector<char>(text.begin(), text.end())); }
  void put_size(std::uint64_t n)
  {
    auto const* first = reinterpret_cast<char const*>(&n);
    bytes.insert(bytes.end(), first, first + sizeof n);
  }
  std::vector<char> bytes;
};

class Unpacker {
public:
  explicit Unpacker(std::vector<char> const& bytes) : bytes_(bytes) {}
  template <class T>
  void get(std::vector<T>& values)
  {
    values.resize(get_size());
    take(values.data(), values.size() * sizeof(T));
  }
  void get(std::string& text)
  {
    std::vector<char> chars;
    get(chars);
    text.assign(chars.begin(), chars.end());
  }
  std::uint64_t get_size()
  {
    std::uint64_t n = 0;
    take(&n, sizeof n);
    return n;
  }

private:
  void take(void* to, std::size_t n)
  {
    if (next_ + n > bytes_.size()) throw std::logic_error("a packed mesh ends early");
    if (n > 0) std::memcpy(to, bytes_.data() + next_, n);
    next_ += n;
  }
  std::vector<char> const& bytes_;
  std::size_t next_ = 0;
};

} // namespace

std::vector<char> pack_mesh(mesh::Mesh const& m)
{
  Packer p;
  p.put(m.source);
  p.put(m.points);
  p.put(m.tets);
  p.put(m.tet_region);
  p.put(m.boundary_triangles);
  p.put(m.boundary_triangle_tag);
  p.put(m.curve_segments);
  p.put(m.curve_segment_tag);
  p.put_size(m.groups.size());
  for (auto const& g : m.groups) {
    p.put(std::vector<int>{g.dim, g.tag});
    p.put(g.name);
  }
  p.put_size(static_cast<std::uint64_t>(m.reoriented_tets));
  return std::move(p.bytes);
}

mesh::Mesh unpack_mesh(std::vector<char> const& bytes)
{
  Unpacker u(bytes);
  mesh::Mesh m;
  u.get(m.source);
  u.get(m.points);
  u.get(m.tets);
  u.get(m.tet_region);
  u.get(m.boundary_triangles);
  u.get(m.boundary_triangle_tag);
  u.get(m.curve_segments);
  u.get(m.curve_segment_tag);
  m.groups.resize(u.get_size());
  for (auto& g : m.groups) {
    std::vector<int> dim_tag;
    u.get(dim_tag);
    g.dim = dim_tag.at(0);
    g.tag = dim_tag.at(1);
    u.get(g.name);
  }
  m.reoriented_tets = static_cast<Index>(u.get_size());
  return m;
}

} // namespace dgatd::parallel
