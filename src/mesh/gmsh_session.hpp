#pragma once
// Shared plumbing of the Gmsh readers, writers and generators. Gmsh keeps its state in process-wide
// globals, so every use goes through a GmshSession (nested sessions share the outermost one) and
// works in its own GmshModel, leaving whatever model an enclosing user had current untouched.

#include "dgatd/mesh/mesh.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace dgatd::mesh::detail {

// Initialises Gmsh quietly (no terminal output, no user configuration files, messages kept in
// Gmsh's logger) on first entry and finalises it when the outermost session ends.
class GmshSession {
public:
  GmshSession();
  ~GmshSession();
  GmshSession(GmshSession const&) = delete;
  GmshSession& operator=(GmshSession const&) = delete;
};

// A fresh current model for the lifetime of the object; the previous current model comes back.
class GmshModel {
public:
  explicit GmshModel(std::string const& purpose);
  ~GmshModel();
  GmshModel(GmshModel const&) = delete;
  GmshModel& operator=(GmshModel const&) = delete;

private:
  std::string previous_;
};

// Runs a Gmsh call, turning Gmsh's own exceptions into a one-line dgatd::Error(where, what: <Gmsh's
// message>, fix).
void call_gmsh(std::string const& where, std::string const& what, std::string const& fix,
               std::function<void()> const& call);

// The mesh of the current model, as read_mesh describes it, coordinates multiplied by scale.
// element_tags receives the Gmsh tag of every tet, for messages about individual elements.
Mesh mesh_from_current_model(std::string const& source, double scale, std::vector<std::size_t>& element_tags);

// validate_and_orient, naming tets by element_tags (Gmsh element tags) when given.
void validate_and_orient(Mesh& mesh, std::vector<std::size_t> const* element_tags);

} // namespace dgatd::mesh::detail
