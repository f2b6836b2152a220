// Terms written outside the library and added to the leapfrog without editing it: they run at the
// points of the step that solver/term.hpp documents, equal the library's own terms where they do
// the same thing, and carry their state through a checkpoint.
#include "cavity_fixture.hpp"

#include "dgatd/kernels/small_kernels.hpp"
#include "dgatd/kernels/upload.hpp"
#include "dgatd/solver/current_source.hpp"
#include "dgatd/solver/leapfrog.hpp"
#include "dgatd/solver/stencils.hpp"
#include "dgatd/solver/term.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {

using TestSpace = DGATD_TEST_EXEC_SPACE;
using Leapfrog = dgatd::solver::FractionedLeapfrog<TestSpace>;
using Term = dgatd::solver::Term<TestSpace>;
using memory_space = TestSpace::memory_space;

dgatd::testing::Cavity const& cavity()
{
  static auto const box = dgatd::testing::pec_box(1.0, 0.8, 0.6, 6, 5, 4, 0.2);
  return box;
}

dgatd::solver::CurrentStencil const& dipole()
{
  static auto const stencil = dgatd::solver::dipole_stencil(cavity().view(), cavity().operators, "test dipole",
                                                            {0.41, 0.37, 0.29}, {0.3, 0.5, 0.81});
  return stencil;
}

// A constant impressed current through a dipole's dual faces, and the charge it has moved (its own
// state): u~ -= dt current (Meps^-1 I) after Ampere at every step, as a user would write a new source.
class ConstantCurrent final : public Term {
public:
  ConstantCurrent(dgatd::solver::CurrentStencil const& stencil, double current)
      : rows_(dgatd::kernels::upload_flat<Kokkos::View<dgatd::Index*, memory_space>>("test::rows", stencil.rows)),
        weights_(
            dgatd::kernels::upload_flat<Kokkos::View<dgatd::Real*, memory_space>>("test::weights", stencil.weights)),
        current_(current)
  {
  }
  double charge() const { return charge_; }
  std::string name() const override { return "constant_current"; }
  std::int64_t bytes_per_step() const override
  {
    return static_cast<std::int64_t>(rows_.extent(0)) * (sizeof(dgatd::Index) + 3 * sizeof(dgatd::Real));
  }

  void after_ampere(Context const& c) override
  {
    dgatd::kernels::for_each("test::constant_current", c.space, rows_.extent(0),
                             dgatd::kernels::ScatterAdd<memory_space>{rows_, weights_, c.fields.u, -c.dt * current_});
    charge_ += c.dt * current_;
  }
  void reset(Context const&) override { charge_ = 0; }
  std::size_t state_size(std::int64_t) const override { return 1; }
  void save(std::vector<double>& state) const override { state.push_back(charge_); }
  void restore(Context const&, double const* state) override { charge_ = *state; }

private:
  Kokkos::View<dgatd::Index*, memory_space> rows_;
  Kokkos::View<dgatd::Real*, memory_space> weights_;
  double current_;
  double charge_ = 0;
};

// Writes down every call it gets: which point, at which step.
class CallLog final : public Term {
public:
  explicit CallLog(std::vector<std::string>& log) : log_(log) {}
  std::string name() const override { return "call_log"; }
  std::int64_t bytes_per_step() const override { return 0; }
  void set_dt(Context const& c) override { note("set_dt", c); }
  void reset(Context const& c) override { note("reset", c); }
  void before_faraday(Context const& c) override { note("before_faraday", c); }
  void after_faraday(Context const& c) override { note("after_faraday", c); }
  void after_ampere(Context const& c) override { note("after_ampere", c); }
  void correct(Context const& c) override { note("correct", c); }
  void end_step(Context const& c) override { note("end_step", c); }

private:
  void note(char const* point, Context const& c) { log_.push_back(std::string(point) + " " + std::to_string(c.step)); }
  std::vector<std::string>& log_;
};

std::vector<double> unknowns(Leapfrog const& leapfrog)
{
  std::vector<double> u, f;
  leapfrog.state(u, f);
  u.insert(u.end(), f.begin(), f.end());
  return u;
}

TEST(Terms, CallsComeAtTheDocumentedPointsOfTheStep)
{
  Leapfrog leapfrog(TestSpace(), cavity().operators);
  std::vector<std::string> log;
  leapfrog.add_term(std::make_unique<CallLog>(log));
  leapfrog.set_dt(0.01);
  leapfrog.step();
  leapfrog.step_with_energy();
  std::vector<std::string> const expected = {
      "reset 0",    "set_dt 0",         "before_faraday 0", "after_faraday 0", "after_ampere 0", "correct 0",
      "end_step 0", "before_faraday 1", "after_faraday 1",  "after_ampere 1",  "correct 1",      "end_step 1"};
  EXPECT_EQ(log, expected);
}

// The same current as the library's source with a constant waveform: the same arithmetic at the
// same point of the step, so the fields agree bit for bit.
TEST(Terms, ATermFromOutsideEqualsTheLibrarysSource)
{
  double const current = 2.5;
  Leapfrog outside(TestSpace(), cavity().operators), library(TestSpace(), cavity().operators);
  double const dt = 0.9 * library.estimate_stability().dt_max;
  auto& added = outside.add_term(std::make_unique<ConstantCurrent>(dipole(), current));
  library.add_term(
      std::make_unique<dgatd::solver::CurrentSource<TestSpace>>(dipole(), 1.0, [current](double) { return current; }));
  for (auto* leapfrog : {&outside, &library}) {
    leapfrog->set_dt(dt);
    for (int n = 0; n < 300; ++n) leapfrog->step();
  }
  auto const moved = unknowns(outside);
  EXPECT_EQ(moved, unknowns(library));
  EXPECT_NEAR(added.charge(), 300 * dt * current, 1e-12 * added.charge());
  // The current did something: the field is no longer zero.
  double largest = 0;
  for (double v : moved) largest = std::max(largest, std::abs(v));
  EXPECT_GT(largest, 0.0);
}

// A term's state goes through the terms' save and restore: a leapfrog restored from another's state, terms
// included, continues bit for bit.
TEST(Terms, ATermsStateSurvivesACheckpoint)
{
  auto make = [] {
    auto leapfrog = std::make_unique<Leapfrog>(TestSpace(), cavity().operators);
    leapfrog->add_term(std::make_unique<ConstantCurrent>(dipole(), -1.5));
    return leapfrog;
  };
  auto whole = make(), restarted = make();
  double const dt = 0.9 * whole->estimate_stability().dt_max;
  whole->set_dt(dt);
  restarted->set_dt(dt);
  whole->set_random_initial_field(3);
  for (int n = 0; n < 200; ++n) whole->step();
  std::vector<double> u, f;
  whole->state(u, f);
  auto const auxiliary = whole->terms().save();
  ASSERT_EQ(auxiliary.size(), whole->terms().state_size(200));
  EXPECT_NEAR(auxiliary.front(), -1.5 * 200 * dt, 1e-12);
  restarted->set_state(u, f, whole->steps());
  restarted->restore_terms(auxiliary);
  for (int n = 0; n < 100; ++n) {
    whole->step();
    restarted->step();
  }
  EXPECT_EQ(unknowns(*restarted), unknowns(*whole));
  EXPECT_EQ(restarted->terms().save(), whole->terms().save());
  EXPECT_THROW(restarted->restore_terms({}), std::invalid_argument);
}

} // namespace
