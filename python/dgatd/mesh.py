"""Meshes for dgatd.Simulation(mesh=...): the [mesh] table of a mesh file or of a mesh Gmsh
generates at set-up. Each function returns that table as a dict (keys as in the configuration
reference, lengths in mesh units); None leaves a key at its default.

    sim = dgatd.Simulation(mesh=dgatd.mesh.cylinder(radius=1, height=0.5, h=0.055), time={"steps": 100})
"""


def _table(**keys):
    return {k: v for k, v in keys.items() if v is not None}


def _list(values):
    return None if values is None else [float(v) for v in values]


def file(path, *, scale=None, ordering=None, parts=None):
    """A Gmsh .msh (2.2 or 4.1) or .geo file; relative paths from the simulation's base_dir."""
    return _table(file=str(path), scale=scale, ordering=ordering, parts=parts)


def _generated(shape, h, pml, inner, reproducible, output, ordering, scale, **keys):
    return _table(generate=shape, h=h, pml=pml, inner=inner, reproducible=reproducible,
                  output=None if output is None else str(output), ordering=ordering, scale=scale, **keys)


def box(size, h, *, pml=None, inner=None, reproducible=None, output=None, ordering=None, scale=None):
    """A box [0, a] x [0, b] x [0, d]: volume "domain", surface "boundary" (and "pml" with pml)."""
    return _generated("box", h, pml, inner, reproducible, output, ordering, scale, size=_list(size))


def cylinder(radius, height, h, *, inner=None, reproducible=None, output=None, ordering=None, scale=None):
    """A cylinder of axis z from z = 0: volume "domain", surface "boundary"."""
    return _generated("cylinder", h, None, inner, reproducible, output, ordering, scale, radius=radius, height=height)


def waveguide(size, h, *, pml=None, inner=None, reproducible=None, output=None, ordering=None, scale=None):
    """A rectangular guide along z: surfaces "walls", "port_in" (z = 0), "port_out" (z = L)."""
    return _generated("waveguide", h, pml, inner, reproducible, output, ordering, scale, size=_list(size))


def cell(size, h, cuts, *, pml=None, reproducible=None, output=None, ordering=None, scale=None):
    """A unit cell of layers along z cut at the planes z = cuts: volumes "layer_0" ... "layer_N"."""
    return _generated("cell", h, pml, None, reproducible, output, ordering, scale, size=_list(size), cuts=_list(cuts))


def sphere(radius, tfsf, size, h, *, h_sphere=None, grading=None, dielectric=None, pml=None, reproducible=None,
           output=None, ordering=None, scale=None):
    """A sphere centred in the box [0, size]^3 inside a total-field cube of side tfsf; h_sphere grades
    the elements from that size on the sphere to h at the cube's inscribed sphere, or at the distance
    grading from the sphere."""
    return _generated("sphere", h, pml, None, reproducible, output, ordering, scale, radius=radius, tfsf=tfsf,
                      size=float(size), h_sphere=h_sphere, grading=grading, dielectric=dielectric)
