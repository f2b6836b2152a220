#pragma once
// Errors at the boundary (input files, meshes, configuration): what, where and how to fix it.
// They are caught once in main and printed as one line.

#include <cstdio>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace dgatd {

class Error : public std::runtime_error {
public:
  // where: the file (and line or item) at fault; what: the problem; fix: what the user should do.
  Error(std::string const& where, std::string const& what, std::string const& fix)
      : std::runtime_error(printable(where + ": " + what + (fix.empty() ? "" : " (fix: " + fix + ")")))
  {
  }

private:
  // Messages quote what the user wrote (keys, names, values, the offending source line), and a file
  // may hold any byte there: control characters other than a tab are written as escapes (\n, \r,
  // \x1b), so the message stays one line and cannot move the terminal's cursor.
  static std::string printable(std::string const& text)
  {
    std::string result;
    result.reserve(text.size());
    for (char const c : text) {
      auto const byte = static_cast<unsigned char>(c);
      if ((byte >= 0x20 && byte != 0x7f) || c == '\t') {
        result += c;
      } else if (c == '\n') {
        result += "\\n";
      } else if (c == '\r') {
        result += "\\r";
      } else {
        char escape[5];
        std::snprintf(escape, sizeof escape, "\\x%02x", static_cast<unsigned>(byte));
        result += escape;
      }
    }
    return result;
  }
};

// A number in a message as the user would write it: up to 15 significant digits, so the value a
// user typed reads back unchanged.
inline std::string format_number(double value)
{
  std::ostringstream out;
  out.precision(15);
  out << value;
  return out.str();
}

// The kind of model item a ModelError is about.
enum class ModelSubject { matched_layer, matched_port, time_step, plane_wave, far_field };

// A quantity behind a ModelError, named in the method's words (SI units, or a count).
struct ModelFact {
  std::string name;
  double value = 0;
};

// A model (mesh, materials, layers, ports, time step) the method cannot use, reported by physics
// code in the method's words and without knowing how the user wrote the model down: the subject
// and its name, what is wrong with it (said of the subject: "touches no other region"), what would
// clear it, and the quantities involved. The configuration layer (simulation::config_error) catches
// it and rewords it as a dgatd::Error at the configuration line that asked for the item, turning the
// facts into advice in the configuration's keys. Uncaught, it still reads as one line.
class ModelError : public std::runtime_error {
public:
  ModelError(ModelSubject subject, std::string name, std::string const& problem, std::string remedy,
             std::vector<ModelFact> facts = {})
      : std::runtime_error(subject_words(subject) + (name.empty() ? "" : " '" + name + "'") + " " + problem +
                           (remedy.empty() ? "" : " (fix: " + remedy + ")")),
        subject_(subject), name_(std::move(name)), problem_(problem), remedy_(std::move(remedy)),
        facts_(std::move(facts))
  {
  }
  ModelSubject subject() const { return subject_; }
  std::string const& name() const { return name_; }
  std::string const& problem() const { return problem_; }
  std::string const& remedy() const { return remedy_; }
  std::vector<ModelFact> const& facts() const { return facts_; }
  // The value of the fact called name, if the error carries one.
  std::optional<double> fact(std::string const& name) const
  {
    for (auto const& f : facts_)
      if (f.name == name) return f.value;
    return std::nullopt;
  }

private:
  static std::string subject_words(ModelSubject subject)
  {
    switch (subject) {
    case ModelSubject::matched_layer:
      return "matched layer";
    case ModelSubject::matched_port:
      return "matched port";
    case ModelSubject::time_step:
      return "the time step";
    case ModelSubject::plane_wave:
      return "plane wave into region";
    case ModelSubject::far_field:
      return "far-field surface";
    }
    return "the model";
  }

  ModelSubject subject_;
  std::string name_;
  std::string problem_;
  std::string remedy_;
  std::vector<ModelFact> facts_;
};

} // namespace dgatd
