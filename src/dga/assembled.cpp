#include "dgatd/dga/assembled.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

namespace dgatd::dga {
namespace {

std::vector<Index> edge_of_unknown(mesh::Topology const& topology, DofLayout const& layout)
{
  std::vector<Index> edge(layout.size(), -1);
  for (Index h = 0; h < topology.num_half_edges(); ++h) {
    Index const dof = layout.dof_of_half_edge[h];
    if (dof != layout.zero_slot) edge[dof] = topology.v2e[h];
  }
  return edge;
}

// Row j of K_t = (Mmu_t)^-1 C_t (eq. 5), 6 columns: the fractioned operators keep (Mmu_t)^-1 as its
// packed upper triangle, row by row.
std::array<double, 6> faraday_row_of_tet(mesh::Topology const& topology, HostOperators const& ops, Index t, int j)
{
  std::array<double, 6> row{};
  for (int n = 0; n < 4; ++n) {
    int const low = std::min(j, n), high = std::max(j, n);
    double const inverse = ops.mu_inverse[t][low * 4 - low * (low - 1) / 2 + (high - low)];
    for (int k = 0; k < 6; ++k) row[k] += inverse * topology.tet_curl[t][n][k];
  }
  return row;
}

// Row-by-row accumulation into a CSR matrix with a dense scatter array and a touched list.
class RowAccumulator {
public:
  explicit RowAccumulator(Index columns) : value_(columns, 0.0), seen_(columns, 0) {}
  void add(Index column, double v)
  {
    if (!seen_[column]) {
      seen_[column] = 1;
      touched_.push_back(column);
    }
    value_[column] += v;
  }
  void flush_into(HostCsr& m)
  {
    std::sort(touched_.begin(), touched_.end());
    for (Index c : touched_) {
      m.column_indices.push_back(c);
      m.values.push_back(value_[c]);
      value_[c] = 0;
      seen_[c] = 0;
    }
    touched_.clear();
    m.row_offsets.push_back(static_cast<Index>(m.column_indices.size()));
  }

private:
  std::vector<double> value_;
  std::vector<char> seen_;
  std::vector<Index> touched_;
};

} // namespace

AssembledOperators assemble_global(mesh::Topology const& topology, HostOperators const& ops)
{
  AssembledOperators out;
  auto const& layout = ops.layout;
  Index const num_edges = topology.num_edges();
  Index const num_faces = topology.num_faces();

  // Faraday rows: face f collects row j_f of K_t from each of its one or two tets.
  out.faraday.rows = num_faces;
  out.faraday.columns = num_edges;
  out.faraday.row_offsets.push_back(0);
  RowAccumulator faraday_row(num_edges);
  for (Index f = 0; f < num_faces; ++f) {
    for (Index t : topology.face_tets[f]) {
      if (t < 0) continue;
      int const j = static_cast<int>(std::find(topology.tet_faces[t].begin(), topology.tet_faces[t].end(), f) -
                                     topology.tet_faces[t].begin());
      auto const row = faraday_row_of_tet(topology, ops, t, j);
      for (int k = 0; k < 6; ++k) faraday_row.add(topology.tet_edges[t][k], row[k]);
    }
    faraday_row.flush_into(out.faraday);
  }

  // Row c of Cg^T: the faces around the edge of unknown c with their incidence. The fractioned
  // gather list names each interior face twice (once per tet, summing to F_f); keep it once.
  std::vector<Index> face_offsets{0};
  std::vector<std::pair<Index, double>> faces_of_row;
  for (Index c = 0; c < layout.num_free; ++c) {
    std::size_t const begin = faces_of_row.size();
    Index const curled = ops.row_curl[c];
    for (Index i = ops.edge_curl_offsets[curled]; i < ops.edge_curl_offsets[curled + 1]; ++i) {
      auto const [t, k] = decode_curl_piece(ops.edge_curl_entries[i]);
      for (int j = 0; j < 4; ++j)
        if (int const sign = topology.tet_curl[t][j][k]; sign != 0)
          faces_of_row.emplace_back(topology.tet_faces[t][j], static_cast<double>(sign));
    }
    std::sort(faces_of_row.begin() + begin, faces_of_row.end());
    faces_of_row.erase(std::unique(faces_of_row.begin() + begin, faces_of_row.end()), faces_of_row.end());
    face_offsets.push_back(static_cast<Index>(faces_of_row.size()));
  }

  // Ampere rows: edge e collects, from the block of each of its free halves, the block-inverse
  // row times the rows of Cg^T.
  out.ampere.rows = num_edges;
  out.ampere.columns = num_faces;
  out.ampere.row_offsets.push_back(0);
  RowAccumulator ampere_row(num_faces);
  for (Index e = 0; e < num_edges; ++e) {
    for (Index h : topology.edge_half_edges[e]) {
      Index const r = layout.dof_of_half_edge[h];
      if (r >= layout.num_free) continue;
      Index const b = layout.block_of(r);
      Index const first = layout.block_offset[b];
      Index const d = layout.block_size(b);
      double const* inverse = ops.eps_inverse.data() + layout.block_matrix_offset[b];
      for (Index c = 0; c < d; ++c) {
        double const m = inverse[(r - first) * d + c];
        for (Index i = face_offsets[first + c]; i < face_offsets[first + c + 1]; ++i)
          ampere_row.add(faces_of_row[i].first, m * faces_of_row[i].second);
      }
    }
    ampere_row.flush_into(out.ampere);
  }

  return out;
}

std::vector<double> sum_to_edges(mesh::Topology const& topology, DofLayout const& layout, std::vector<double> const& u)
{
  std::vector<double> edges(topology.num_edges(), 0.0);
  for (Index e = 0; e < topology.num_edges(); ++e)
    for (Index h : topology.edge_half_edges[e]) edges[e] += u[layout.dof_of_half_edge[h]];
  return edges;
}

std::vector<double> sum_to_faces(mesh::Topology const& topology, std::vector<double> const& f_per_tet_row_major)
{
  std::vector<double> faces(topology.num_faces(), 0.0);
  for (Index t = 0; t < topology.num_tets(); ++t)
    for (int j = 0; j < 4; ++j) faces[topology.tet_faces[t][j]] += f_per_tet_row_major[4 * t + j];
  return faces;
}

std::vector<double> half_edge_rows_to_edges(mesh::Topology const& topology, DofLayout const& layout,
                                            std::vector<Index> const& rows, std::vector<double> const& values)
{
  std::vector<Index> const edge = edge_of_unknown(topology, layout);
  std::vector<double> edges(topology.num_edges(), 0.0);
  for (std::size_t i = 0; i < rows.size(); ++i) edges[edge[rows[i]]] += values[i];
  return edges;
}

} // namespace dgatd::dga
