#include "msh_check.hpp"

// One class, the grammar of a .msh file (2.2 and 4.1, ASCII and binary) checked line by line before
// Gmsh reads it: its reading primitives and its sections share the position, the line and the
// format, so the file stays whole at some 680 lines rather than split along no real seam.

#include "dgatd/error.hpp"
#include "tag_index.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

namespace dgatd::mesh::detail {
namespace {

std::string const kReexport =
    "re-export the mesh from Gmsh as .msh 4.1 or 2.2, e.g. gmsh -3 -order 1 -format msh41 model.geo";

// Gmsh reads the header, count, name and comment lines of MSH 2 into 256-byte buffers, and the
// node tags of an MSH 4 element into 10000 bytes: a longer line would be read as two.
constexpr std::size_t kShortLine = 250;
constexpr std::size_t kElementLine = 9990;

struct ElementType {
  int code;
  int dim;
  int nodes;
};

// Gmsh's element types of first- and second-order meshes, MSH_LIN_2 (1) to MSH_PYR_13 (19).
// dgatd keeps first-order tetrahedra and triangles and names the others when it refuses them.
constexpr std::array<ElementType, 19> kElementTypes{{{1, 1, 2},
                                                     {2, 2, 3},
                                                     {3, 2, 4},
                                                     {4, 3, 4},
                                                     {5, 3, 8},
                                                     {6, 3, 6},
                                                     {7, 3, 5},
                                                     {8, 1, 3},
                                                     {9, 2, 6},
                                                     {10, 2, 9},
                                                     {11, 3, 10},
                                                     {12, 3, 27},
                                                     {13, 3, 18},
                                                     {14, 3, 14},
                                                     {15, 0, 1},
                                                     {16, 2, 8},
                                                     {17, 3, 20},
                                                     {18, 3, 15},
                                                     {19, 3, 13}}};

// Section names Gmsh 4.8 gives a meaning to, matched by prefix as Gmsh does ($NO... and $ELM...
// are the old spellings of nodes and elements). Any other name is a comment section.
constexpr std::array<std::string_view, 16> kGmshSections{"MeshFormat",
                                                         "PhysicalNames",
                                                         "Entities",
                                                         "PartitionedEntities",
                                                         "Nodes",
                                                         "Elements",
                                                         "Periodic",
                                                         "GhostElements",
                                                         "Parametrizations",
                                                         "NodeData",
                                                         "ElementData",
                                                         "ElementNodeData",
                                                         "NO",
                                                         "ELM",
                                                         "ParametricNodes",
                                                         "InterpolationScheme"};

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

template <class Number>
bool parse_whole(std::string_view token, Number& value)
{
  auto const [end, error] = std::from_chars(token.data(), token.data() + token.size(), value);
  return error == std::errc() && end == token.data() + token.size() && !token.empty();
}

class MshCheck {
public:
  explicit MshCheck(std::string const& path) : path_(path), in_(path, std::ios::binary)
  {
    in_.seekg(0, std::ios::end);
    size_ = static_cast<std::uint64_t>(std::max<std::streamoff>(in_.tellg(), 0));
    in_.seekg(0);
    if (!in_) throw Error(path_, "the file cannot be opened", "check that it is readable");
  }

  void run()
  {
    mesh_format();
    std::set<std::string> seen;
    while (next_line()) {
      if (line_.find_first_not_of(' ') == std::string::npos) continue;
      if (line_[0] != '$') fail("text outside a section");
      std::string const name = line_.substr(1);
      bool const cr = line_cr_;
      bool const valid_name = !name.empty() && std::all_of(name.begin(), name.end(), [](char c) {
        return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
      });
      if (!valid_name) fail("'" + line_ + "' is not a section header");
      if (starts_with(name, "End")) fail("$" + name + " without its section");
      if (name == "PhysicalNames" || name == "Nodes" || name == "Elements" || (version4_ && name == "Entities")) {
        if (!seen.insert(name).second) fail("a second $" + name + " section");
        if (name == "PhysicalNames") physical_names();
        if (name == "Entities") entities();
        if (name == "Nodes") nodes();
        if (name == "Elements") elements();
        end_of_section(name, cr);
        continue;
      }
      for (auto const prefix : kGmshSections)
        if (starts_with(name, prefix))
          fail("dgatd does not read $" + name + " sections",
               "delete the $" + name + " ... $End" + name +
                   " block, or save only the mesh (no partitions, periodicity or post-processing data)");
      comment(name, cr);
    }
  }

private:
  // ---- reading -------------------------------------------------------------------------------

  // The next line into line_, without its "\n" or "\r\n"; false at the end of the file.
  bool next_line()
  {
    item_offset_ = offset_;
    if (!std::getline(in_, line_)) return false;
    offset_ += line_.size() + (in_.eof() ? 0 : 1);
    ++line_number_;
    line_cr_ = !line_.empty() && line_.back() == '\r';
    if (line_cr_) line_.pop_back();
    return true;
  }

  void require_line(std::string const& section)
  {
    if (!next_line()) fail("the file ends inside $" + section);
  }

  void check_length(std::size_t max_length) const
  {
    if (line_.size() > max_length)
      fail("the line is longer than the " + std::to_string(max_length) + " characters Gmsh reads");
  }

  // text into tokens_, separated by spaces (Gmsh's readers stop at other blanks).
  void split(std::string_view text)
  {
    tokens_.clear();
    while (true) {
      auto const start = text.find_first_not_of(' ');
      if (start == std::string_view::npos) break;
      text.remove_prefix(start);
      auto const end = std::min(text.find(' '), text.size());
      tokens_.push_back(text.substr(0, end));
      text.remove_prefix(end);
    }
  }

  // A line of exactly count tokens.
  void line_of(std::size_t count, std::string const& section, std::string const& what,
               std::size_t max_length = kShortLine)
  {
    require_line(section);
    check_length(max_length);
    split(line_);
    if (tokens_.size() != count)
      fail(what + " needs " + std::to_string(count) + " numbers on one line, not " + std::to_string(tokens_.size()));
  }

  std::uint64_t bytes_left() const { return size_ - offset_; }

  // count binary values of type Value, each handed to use in file order, read in chunks.
  template <class Value, class Use>
  void binary_values(std::uint64_t count, std::string const& what, Use const& use)
  {
    item_offset_ = offset_;
    if (count > bytes_left() / sizeof(Value)) fail("the file ends inside the " + what);
    constexpr std::uint64_t kChunk = 4096;
    buffer_.resize(kChunk * sizeof(Value));
    while (count > 0) {
      auto const n = static_cast<std::size_t>(std::min(count, kChunk));
      in_.read(buffer_.data(), static_cast<std::streamsize>(n * sizeof(Value)));
      for (std::size_t k = 0; k < n; ++k) {
        Value value;
        std::memcpy(&value, buffer_.data() + k * sizeof(Value), sizeof(Value));
        item_offset_ = offset_ + k * sizeof(Value);
        use(value);
      }
      offset_ += n * sizeof(Value);
      count -= n;
    }
  }

  template <class Value>
  Value binary_value(std::string const& what)
  {
    item_offset_ = offset_;
    if (bytes_left() < sizeof(Value)) fail("the file ends inside the " + what);
    Value value;
    in_.read(reinterpret_cast<char*>(&value), sizeof(Value));
    offset_ += sizeof(Value);
    return value;
  }

  void skip_binary(std::uint64_t bytes, std::string const& what)
  {
    item_offset_ = offset_;
    if (bytes > bytes_left()) fail("the file ends inside the " + what);
    in_.ignore(static_cast<std::streamsize>(bytes));
    offset_ += bytes;
  }

  // After binary data, Gmsh writes a line break before the section's end.
  void end_of_binary_data(std::string const& section)
  {
    require_line(section);
    if (!line_.empty()) fail("unexpected bytes after the binary data of $" + section);
  }

  void end_of_section(std::string const& name, bool cr)
  {
    require_line(name);
    // Gmsh 4 looks for "$End<name>" ended like the section's first line.
    if (line_ != "$End" + name || line_cr_ != cr) fail("expected $End" + name + " here");
  }

  // Worded like the errors Gmsh itself reports through read_mesh.
  [[noreturn]] void fail(std::string const& what, std::string const& fix = kReexport) const
  {
    // A line number means little once binary data has been read.
    std::string const where =
        binary_ ? path_ + ": byte " + std::to_string(item_offset_) : path_ + ":" + std::to_string(line_number_);
    throw Error(where, "cannot read the mesh: " + what, fix);
  }

  // ---- numbers ---------------------------------------------------------------------------------
  // Gmsh reads tags and counts into C ints, and looks nodes up by int: every one must fit.

  std::int64_t in_range(std::int64_t value, std::string const& what, std::int64_t low, std::int64_t high) const
  {
    if (value < low || value > high)
      fail(what + " " + std::to_string(value) + " is outside " + std::to_string(low) + " to " + std::to_string(high));
    return value;
  }
  // The same for the 8-byte unsigned numbers of MSH 4 binary files (high is never negative).
  std::int64_t unsigned_in_range(std::uint64_t value, std::string const& what, std::int64_t low,
                                 std::int64_t high) const
  {
    if (value > static_cast<std::uint64_t>(high))
      fail(what + " " + std::to_string(value) + " is outside " + std::to_string(low) + " to " + std::to_string(high));
    return in_range(static_cast<std::int64_t>(value), what, low, high);
  }
  std::int64_t integer(std::string_view token, std::string const& what, std::int64_t low, std::int64_t high) const
  {
    std::int64_t value = 0;
    if (!parse_whole(token, value)) fail(what + " '" + std::string(token) + "' is not an integer");
    return in_range(value, what, low, high);
  }
  int tag(std::string_view token, std::string const& what) const
  {
    return static_cast<int>(integer(token, what, 1, INT_MAX));
  }
  std::uint64_t count(std::string_view token, std::string const& what) const
  {
    return static_cast<std::uint64_t>(integer(token, what, 0, INT_MAX));
  }
  void real(std::string_view token, std::string const& what) const
  {
    double value = 0;
    if (!parse_whole(token, value)) fail(what + " '" + std::string(token) + "' is not a number");
  }
  std::uint64_t binary_count(std::string const& what)
  {
    return static_cast<std::uint64_t>(unsigned_in_range(binary_value<std::uint64_t>(what), "the " + what, 0, INT_MAX));
  }
  int binary_tag(std::string const& what)
  {
    return static_cast<int>(in_range(binary_value<std::int32_t>(what), "the " + what, 1, INT_MAX));
  }

  // The messages name the element or block by calling describe, only when they are needed.
  template <class Describe>
  ElementType const& element_type(std::int64_t code, Describe const& describe) const
  {
    for (auto const& type : kElementTypes)
      if (type.code == code) return type;
    fail(describe() + " has Gmsh element type " + std::to_string(code) + ", which dgatd does not read",
         "remesh with first-order tetrahedra, e.g. gmsh -3 -order 1");
  }

  std::string current_element() const { return "element " + std::to_string(element_tags_.back()); }

  void node_must_exist(std::uint64_t node) const
  {
    if (nodes_(node) < 0)
      fail(current_element() + " uses node " + std::to_string(node) + ", which no $Nodes section before it defines");
  }

  // ---- sections --------------------------------------------------------------------------------

  void mesh_format()
  {
    if (!next_line() || line_ != "$MeshFormat")
      throw Error(path_, "not a Gmsh .msh file (it does not start with $MeshFormat)",
                  "export the mesh from Gmsh as .msh 2.2 or 4.1, e.g. gmsh -3 -order 1 -format msh41 model.geo");
    bool const cr = line_cr_;
    require_line("MeshFormat");
    check_length(kShortLine);
    split(line_);
    std::string const version = tokens_.empty() ? "" : std::string(tokens_[0]);
    if (version != "2.2" && version != "4.1")
      throw Error(path_, "unsupported .msh version '" + version + "'",
                  "convert it with gmsh " + path_ + " -save -format msh41");
    version4_ = version == "4.1";
    if (tokens_.size() != 3 || (tokens_[1] != "0" && tokens_[1] != "1") || tokens_[2] != "8")
      fail("the line after $MeshFormat must read '" + version + " 0 8' (ASCII) or '" + version + " 1 8' (binary)");
    if (tokens_[1] == "1") {
      binary_ = true;
      if (binary_value<std::int32_t>("byte-order mark") != 1)
        fail("the binary file was written with the other byte order",
             "save it as ASCII on the machine that wrote it (gmsh FILE -save -format msh41)");
      end_of_binary_data("MeshFormat");
    }
    end_of_section("MeshFormat", cr);
  }

  void physical_names()
  {
    line_of(1, "PhysicalNames", "the number of physical names");
    auto const names = count(tokens_[0], "the number of physical names");
    for (std::uint64_t i = 0; i < names; ++i) {
      require_line("PhysicalNames");
      check_length(kShortLine);
      // dim tag "name": the name may hold spaces, not quotes or control characters.
      auto const first_quote = line_.find('"');
      if (first_quote == std::string::npos || line_.back() != '"' || first_quote + 1 >= line_.size() ||
          line_.find('"', first_quote + 1) != line_.size() - 1)
        fail("a physical name must read: dimension tag \"name\"");
      auto const name = std::string_view(line_).substr(first_quote + 1, line_.size() - first_quote - 2);
      if (std::any_of(name.begin(), name.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        fail("a physical name holds a control character");
      split(std::string_view(line_).substr(0, first_quote));
      if (tokens_.size() != 2) fail("a physical name must read: dimension tag \"name\"");
      integer(tokens_[0], "the dimension of a physical group", 0, 3);
      tag(tokens_[1], "a physical tag");
    }
  }

  void entities()
  {
    std::array<std::uint64_t, 4> counts{};
    if (binary_) {
      for (auto& c : counts) c = binary_count("number of entities");
    } else {
      line_of(4, "Entities", "the numbers of points, curves, surfaces and volumes");
      for (int d = 0; d < 4; ++d) counts[d] = count(tokens_[d], "the number of entities");
    }
    std::uint64_t const total = counts[0] + counts[1] + counts[2] + counts[3];
    // Gmsh sizes its line buffer as an int, 128 bytes per entity.
    if (total > INT_MAX / 128) fail("more than " + std::to_string(INT_MAX / 128) + " entities");
    std::size_t const line_buffer = std::max<std::size_t>(4096, 128 * total);
    for (int dim = 0; dim < 4; ++dim)
      for (std::uint64_t i = 0; i < counts[dim]; ++i) {
        int const corners = dim == 0 ? 3 : 6; // a point's position, else a bounding box
        int entity = 0;
        if (binary_) {
          entity = binary_tag("entity tag");
          skip_binary(corners * sizeof(double), "bounding box");
          auto const physicals = binary_count("number of physical tags");
          binary_values<std::int32_t>(physicals, "physical tags",
                                      [&](std::int32_t t) { in_range(t, "a physical tag", 1, INT_MAX); });
          if (dim > 0) {
            auto const bounding = binary_count("number of bounding entities");
            binary_values<std::int32_t>(bounding, "bounding entities", [&](std::int32_t t) {
              if (t == 0) fail("a bounding entity tag is 0");
              in_range(t, "a bounding entity tag", -INT_MAX, INT_MAX);
            });
          }
        } else {
          require_line("Entities");
          check_length(line_buffer - 3);
          split(line_);
          std::size_t k = 0;
          auto next = [&]() -> std::string_view {
            if (k >= tokens_.size()) fail("an entity line ends early");
            return tokens_[k++];
          };
          entity = tag(next(), "an entity tag");
          for (int c = 0; c < corners; ++c) real(next(), "a coordinate of the entity");
          auto const physicals = count(next(), "the number of physical tags");
          for (std::uint64_t p = 0; p < physicals; ++p) tag(next(), "a physical tag");
          if (dim > 0) {
            auto const bounding = count(next(), "the number of bounding entities");
            for (std::uint64_t b = 0; b < bounding; ++b) {
              auto const token = next();
              if (integer(token, "a bounding entity tag", -INT_MAX, INT_MAX) == 0) fail("a bounding entity tag is 0");
            }
          }
          if (k != tokens_.size()) fail("an entity line holds more numbers than it declares");
        }
        entities_.insert({dim, entity});
      }
    if (binary_) end_of_binary_data("Entities");
  }

  void nodes()
  {
    std::uint64_t blocks = 0, total = 0;
    if (!version4_) {
      line_of(1, "Nodes", "the number of nodes");
      total = count(tokens_[0], "the number of nodes");
      blocks = 1;
    } else if (binary_) {
      blocks = binary_count("number of node blocks");
      total = binary_count("number of nodes");
      skip_binary(2 * sizeof(std::uint64_t), "node tag range");
    } else {
      line_of(4, "Nodes", "the numbers of node blocks and nodes and the tag range");
      blocks = count(tokens_[0], "the number of node blocks");
      total = count(tokens_[1], "the number of nodes");
      count(tokens_[2], "the smallest node tag");
      count(tokens_[3], "the largest node tag");
    }
    node_tags_.clear();
    node_tags_.reserve(static_cast<std::size_t>(std::min(total, bytes_left() / 8)));
    for (std::uint64_t b = 0; b < blocks; ++b) {
      std::uint64_t n = total;
      int coordinates = 3;
      if (version4_) {
        int dim = 0, entity = 0, parametric = 0;
        if (binary_) {
          dim = static_cast<int>(in_range(binary_value<std::int32_t>("entity dimension"), "an entity dimension", 0, 3));
          entity = binary_tag("entity tag");
          parametric =
              static_cast<int>(in_range(binary_value<std::int32_t>("parametric flag"), "the parametric flag", 0, 1));
          n = binary_count("number of nodes in a block");
        } else {
          line_of(4, "Nodes", "a node block header");
          dim = static_cast<int>(integer(tokens_[0], "an entity dimension", 0, 3));
          entity = tag(tokens_[1], "an entity tag");
          parametric = static_cast<int>(integer(tokens_[2], "the parametric flag", 0, 1));
          n = count(tokens_[3], "the number of nodes in a block");
        }
        // Gmsh's node cache holds the section's total: a larger block would overrun it.
        if (n > total - node_tags_.size())
          fail("the node blocks hold more nodes than the " + std::to_string(total) + " the section declares");
        entities_.insert({dim, entity});
        coordinates += parametric ? dim : 0;
      }
      if (binary_ && version4_) {
        binary_values<std::uint64_t>(n, "node tags", [&](std::uint64_t t) {
          node_tags_.push_back(static_cast<std::uint64_t>(unsigned_in_range(t, "a node tag", 1, INT_MAX)));
        });
        skip_binary(n * coordinates * sizeof(double), "node coordinates");
      } else if (binary_) {
        for (std::uint64_t i = 0; i < n; ++i) {
          node_tags_.push_back(static_cast<std::uint64_t>(binary_tag("node tag")));
          skip_binary(3 * sizeof(double), "node coordinates");
        }
      } else if (version4_) {
        for (std::uint64_t i = 0; i < n; ++i) {
          line_of(1, "Nodes", "a node tag");
          node_tags_.push_back(static_cast<std::uint64_t>(tag(tokens_[0], "a node tag")));
        }
        for (std::uint64_t i = 0; i < n; ++i) {
          line_of(static_cast<std::size_t>(coordinates), "Nodes", "a node's coordinates", SIZE_MAX);
          for (auto const token : tokens_) real(token, "a node coordinate");
        }
      } else {
        for (std::uint64_t i = 0; i < n; ++i) {
          line_of(4, "Nodes", "a node (tag x y z)", SIZE_MAX);
          node_tags_.push_back(static_cast<std::uint64_t>(tag(tokens_[0], "a node tag")));
          for (int c = 1; c < 4; ++c) real(tokens_[c], "a node coordinate");
        }
      }
    }
    if (node_tags_.size() != total)
      fail("the node blocks hold " + std::to_string(node_tags_.size()) + " nodes, the section declares " +
           std::to_string(total));
    if (binary_) end_of_binary_data("Nodes");
    std::sort(node_tags_.begin(), node_tags_.end());
    auto const twice = std::adjacent_find(node_tags_.begin(), node_tags_.end());
    if (twice != node_tags_.end()) fail("node " + std::to_string(*twice) + " is defined twice");
    auto const count = node_tags_.size();
    nodes_ = TagIndex(std::move(node_tags_), count);
  }

  void elements()
  {
    element_tags_.clear();
    if (version4_)
      elements_v4();
    else
      elements_v2();
    if (binary_) end_of_binary_data("Elements");
    // Gmsh's MSH 2 reader keeps one element per tag and loses (leaks) the other.
    if (!std::is_sorted(element_tags_.begin(), element_tags_.end()))
      std::sort(element_tags_.begin(), element_tags_.end());
    auto const twice = std::adjacent_find(element_tags_.begin(), element_tags_.end());
    if (twice != element_tags_.end()) fail("element " + std::to_string(*twice) + " is defined twice");
  }

  void elements_v4()
  {
    std::uint64_t blocks = 0, total = 0, read = 0;
    if (binary_) {
      blocks = binary_count("number of element blocks");
      total = binary_count("number of elements");
      skip_binary(2 * sizeof(std::uint64_t), "element tag range");
    } else {
      line_of(4, "Elements", "the numbers of element blocks and elements and the tag range");
      blocks = count(tokens_[0], "the number of element blocks");
      total = count(tokens_[1], "the number of elements");
      count(tokens_[2], "the smallest element tag");
      count(tokens_[3], "the largest element tag");
    }
    for (std::uint64_t b = 0; b < blocks; ++b) {
      std::int64_t dim = 0, code = 0;
      int entity = 0;
      std::uint64_t n = 0;
      if (binary_) {
        dim = binary_value<std::int32_t>("entity dimension");
        entity = binary_tag("entity tag");
        code = binary_value<std::int32_t>("element type");
        n = binary_count("number of elements in a block");
      } else {
        line_of(4, "Elements", "an element block header");
        dim = integer(tokens_[0], "an entity dimension", 0, 3);
        entity = tag(tokens_[1], "an entity tag");
        code = integer(tokens_[2], "an element type", 0, INT_MAX);
        n = count(tokens_[3], "the number of elements in a block");
      }
      std::string const block = "an element block of entity " + std::to_string(entity);
      ElementType const& type = element_type(code, [&] { return block; });
      // Gmsh adds each element to its entity, which takes only elements of its own dimension.
      if (dim != type.dim)
        fail(block + " has dimension " + std::to_string(dim) + " but elements of dimension " +
             std::to_string(type.dim));
      if (!entities_.count({type.dim, entity}))
        fail(block + " (dimension " + std::to_string(dim) + ") has no $Entities or $Nodes entry before it");
      // Gmsh's element cache holds the section's total: a larger block would overrun it.
      if (n > total - read)
        fail("the element blocks hold more elements than the " + std::to_string(total) + " the section declares");
      read += n;
      auto const per_element = static_cast<std::uint64_t>(1 + type.nodes);
      if (binary_) {
        std::uint64_t k = 0;
        binary_values<std::uint64_t>(n * per_element, "elements", [&](std::uint64_t value) {
          auto const checked = unsigned_in_range(value, k == 0 ? "an element tag" : "a node tag", 1, INT_MAX);
          if (k == 0)
            element_tags_.push_back(static_cast<std::uint64_t>(checked));
          else
            node_must_exist(value);
          k = (k + 1) % per_element;
        });
      } else {
        for (std::uint64_t i = 0; i < n; ++i) {
          line_of(static_cast<std::size_t>(per_element), "Elements", "an element (tag and nodes)", kElementLine);
          element_tags_.push_back(static_cast<std::uint64_t>(tag(tokens_[0], "an element tag")));
          for (std::size_t k = 1; k < tokens_.size(); ++k)
            node_must_exist(static_cast<std::uint64_t>(tag(tokens_[k], "a node tag")));
        }
      }
    }
    if (read != total)
      fail("the element blocks hold " + std::to_string(read) + " elements, the section declares " +
           std::to_string(total));
  }

  // MSH 2 elements carry their tags: the physical group, the elementary entity and, for a
  // partitioned mesh, partitions (which Gmsh reads as parent elements), so a third tag must be 0.
  void element_tags(std::int64_t count, std::vector<std::int64_t> const& tags) const
  {
    if (count > 3)
      fail("an element has " + std::to_string(count) + " tags; dgatd reads MSH 2 meshes without partitions",
           "save the mesh unpartitioned, or as .msh 4.1");
    for (std::size_t t = 0; t < tags.size(); ++t) {
      if (t < 2) in_range(tags[t], t == 0 ? "a physical tag" : "an elementary tag", 0, INT_MAX);
      if (t == 2 && tags[t] != 0)
        fail("an element's third tag (its partitions) is not 0", "save the mesh unpartitioned, or as .msh 4.1");
    }
  }

  void elements_v2()
  {
    line_of(1, "Elements", "the number of elements");
    auto const total = count(tokens_[0], "the number of elements");
    std::vector<std::int64_t> tags;
    if (!binary_) {
      for (std::uint64_t i = 0; i < total; ++i) {
        require_line("Elements");
        check_length(kElementLine);
        split(line_);
        if (tokens_.size() < 3) fail("an element line needs its tag, type and number of tags");
        element_tags_.push_back(static_cast<std::uint64_t>(tag(tokens_[0], "an element tag")));
        ElementType const& type =
            element_type(integer(tokens_[1], "an element type", 0, INT_MAX), [&] { return current_element(); });
        auto const tag_count = integer(tokens_[2], "the number of tags", 0, INT_MAX);
        if (tokens_.size() != static_cast<std::size_t>(3 + tag_count + type.nodes))
          fail(current_element() + " needs " + std::to_string(tag_count) + " tags and " + std::to_string(type.nodes) +
               " nodes after its type");
        tags.clear();
        for (std::int64_t t = 0; t < tag_count; ++t)
          tags.push_back(integer(tokens_[static_cast<std::size_t>(3 + t)], "a tag", INT_MIN, INT_MAX));
        element_tags(tag_count, tags);
        for (std::size_t k = static_cast<std::size_t>(3 + tag_count); k < tokens_.size(); ++k)
          node_must_exist(static_cast<std::uint64_t>(tag(tokens_[k], "a node tag")));
      }
      return;
    }
    for (std::uint64_t read = 0; read < total;) {
      ElementType const& type =
          element_type(binary_value<std::int32_t>("element type"), [] { return std::string("an element block"); });
      auto const n = in_range(binary_value<std::int32_t>("number of elements in a block"),
                              "the number of elements in a block", 1, static_cast<std::int64_t>(total - read));
      auto const tag_count = in_range(binary_value<std::int32_t>("number of tags"), "the number of tags", 0, INT_MAX);
      element_tags(tag_count, {});
      auto const per_element = static_cast<std::uint64_t>(1 + tag_count + type.nodes);
      std::uint64_t k = 0;
      binary_values<std::int32_t>(static_cast<std::uint64_t>(n) * per_element, "elements", [&](std::int32_t value) {
        if (k == 0) {
          element_tags_.push_back(static_cast<std::uint64_t>(in_range(value, "an element tag", 1, INT_MAX)));
          tags.clear();
        } else if (k <= static_cast<std::uint64_t>(tag_count)) {
          tags.push_back(value);
          if (k == static_cast<std::uint64_t>(tag_count)) element_tags(tag_count, tags);
        } else {
          node_must_exist(static_cast<std::uint64_t>(in_range(value, "a node tag", 1, INT_MAX)));
        }
        k = (k + 1) % per_element;
      });
      read += static_cast<std::uint64_t>(n);
    }
  }

  // Text Gmsh skips; none of its lines may look like a section header to Gmsh.
  void comment(std::string const& name, bool cr)
  {
    while (true) {
      require_line(name);
      if (line_ == "$End" + name && line_cr_ == cr) return;
      if (!line_.empty() && line_[0] == '$') fail("a line starting with '$' inside $" + name);
      check_length(kShortLine);
    }
  }

  std::string path_;
  std::ifstream in_;
  std::uint64_t size_ = 0;        // bytes in the file
  std::uint64_t offset_ = 0;      // bytes read
  std::uint64_t item_offset_ = 0; // where the item being checked starts, for messages
  long line_number_ = 0;
  std::string line_;
  bool line_cr_ = false;
  std::vector<std::string_view> tokens_;
  std::vector<char> buffer_; // for binary data
  bool version4_ = false;
  bool binary_ = false;
  std::set<std::pair<int, int>> entities_; // (dimension, tag) from $Entities and $Nodes blocks
  std::vector<std::uint64_t> node_tags_;   // of the $Nodes section, as read
  TagIndex nodes_;                         // the same, once the section is checked
  std::vector<std::uint64_t> element_tags_;
};

} // namespace

void check_msh_file(std::string const& path) { MshCheck(path).run(); }

} // namespace dgatd::mesh::detail
