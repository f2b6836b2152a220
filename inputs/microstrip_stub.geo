// A 50-ohm microstrip line with an open shunt stub: the notch filter of inputs/microstrip_stub.toml.
// Millimetres (the configuration's scale is 1e-3). FR-4-like substrate eps_r = 4.3, h = 1.6 mm, on
// the ground z = 0; the line (w = 3 mm, zero thickness, a PEC sheet "strip") runs along x from port to
// port, 40 mm; the stub (same width, 18 mm from the line's edge) leaves it halfway along +y. A
// shielding box around it all: side walls 11.2 mm (7 h) beyond the strips, a lid 24 mm (15 h) above
// the ground, which lower the line's eps_eff by 0.4 % against open microstrip (2D solves of the
// section in this box and in one 2.5 times larger) and keep the box's own guide modes above 3.3 GHz,
// out of the band. The ends x = 0 and x = 40 mm are the mode ports "port_in" and "port_out"; every
// other outer face is "walls" (the configuration lists it PEC with the strip).
// Mesh: 0.3 mm at the strips' edges (where the field is singular), growing to 3 mm 3.6 mm away;
// about 27,500 tets.
SetFactory("OpenCASCADE");
Geometry.OCCParallel = 0;
h = 1.6;                     // substrate
w = 3.0;                     // line and stub width
stub = 18;                   // stub length from the line's edge
len = 40;                    // line length, port to port
y_lo = -w / 2 - 7 * h;       // box side walls
y_hi = w / 2 + stub + 7 * h;
top = 15 * h;                // box lid
DefineConstant[ h_edge = 0.3 ];  // element size at the strips' edges
DefineConstant[ h_far = 3.0 ];   // element size far from them

Box(1) = {0, y_lo, 0, len, y_hi - y_lo, h};
Box(2) = {0, y_lo, h, len, y_hi - y_lo, top - h};
line = news; Rectangle(line) = {0, -w / 2, h, len, w};
arm = news; Rectangle(arm) = {len / 2 - w / 2, w / 2, h, w, stub};
BooleanFragments{ Volume{1, 2}; Delete; }{ Surface{line, arm}; Delete; }

e = 1e-5;
substrate[] = Volume In BoundingBox{-e, y_lo - e, -e, len + e, y_hi + e, h + e};
air[] = Volume In BoundingBox{-e, y_lo - e, h - e, len + e, y_hi + e, top + e};
Physical Volume("substrate") = {substrate[]};
Physical Volume("air") = {air[]};
strip[] = Surface In BoundingBox{-e, -w / 2 - e, h - e, len + e, w / 2 + stub + e, h + e};
Physical Surface("strip") = {strip[]};
port_in[] = Surface In BoundingBox{-e, y_lo - e, -e, e, y_hi + e, top + e};
port_out[] = Surface In BoundingBox{len - e, y_lo - e, -e, len + e, y_hi + e, top + e};
Physical Surface("port_in") = {port_in[]};
Physical Surface("port_out") = {port_out[]};
walls[] = CombinedBoundary{ Volume{substrate[], air[]}; };
walls[] -= port_in[];
walls[] -= port_out[];
Physical Surface("walls") = {walls[]};

// Sizes: h_edge within h_edge / 2 of the strips' edges, h_far beyond 12 h_edge.
Field[1] = Distance;
edges[] = Abs(Boundary{ Surface{strip[]}; });
Field[1].CurvesList = {edges[]};
Field[1].NNodesByEdge = 400;
Field[2] = Threshold;
Field[2].InField = 1;
Field[2].SizeMin = h_edge;
Field[2].SizeMax = h_far;
Field[2].DistMin = 0.5 * h_edge;
Field[2].DistMax = 12 * h_edge;
Background Field = 2;
Mesh.MeshSizeMax = h_far;
Mesh.MeshSizeExtendFromBoundary = 0;
Mesh.MeshSizeFromPoints = 0;
Mesh.MeshSizeFromCurvature = 0;
Mesh.Algorithm = 6;        // Frontal-Delaunay on the surfaces
Mesh.Algorithm3D = 1;      // Delaunay
Mesh.Optimize = 1;
Mesh.RandomFactor = 1e-9;
General.NumThreads = 1;    // the same mesh on every run
