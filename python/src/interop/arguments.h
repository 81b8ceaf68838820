// Arguments of PAMS's objects built by hand (Market, OrderBook,
// Fundamentals, the runner's steps, ...): a Python value converted for the
// engine, or the exception that names the argument and says what it must
// be, raised before anything reaches the engine.
//
// nanobind answers an argument it cannot convert with its list of the
// function's signatures ("incompatible function arguments"), and the engine
// answers a value out of its range with a C++ error or worse; a binding
// that takes Arg<T> instead of T gets the Python object as it came and
// converts it with the functions below, whose messages read
// "Market._set_time: time must be an int, got 'x' (str)". Arg<T>'s caster
// takes any object, so nanobind's dispatch never refuses one; the
// signature still shows T.
//
// `what` in every function names the argument as the message shows it
// ("Fundamentals.add_market: initial"). REQUIRES: the GIL is held.

#ifndef PAMS_PYTHON_SRC_INTEROP_ARGUMENTS_H_
#define PAMS_PYTHON_SRC_INTEROP_ARGUMENTS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "interop/python.h"

namespace pams::python {

// A Python argument a binding converts itself (see the file's comment). A
// parameter that may be None needs nb::arg(...).none() as well (nanobind
// refuses None before any caster otherwise).
template <typename Shown>
struct Arg {
  nb::handle object;
};

// The last step an object built by hand may be moved to or asked about
// (a market's time, a book's, the fundamentals'). Each step costs the
// engine's histories about 90 bytes per market and the fundamentals 8 per
// market, so a jump to 10^9 would ask for gigabytes (PAMS's lists would
// need more): such a step is refused with a ValueError instead.
inline constexpr int64_t kMaxHandBuiltStep = 100'000'000;

// The ids of markets, agents, sessions and events built by hand: the
// engine keeps them in vectors indexed by id.
inline constexpr int64_t kMaxHandBuiltId = 100'000'000;

// "'x' (str)": a value as a message shows it (its repr, cut at 60
// characters, and its type).
std::string Describe(nb::handle value);

// Raises `type` with "<what> must be <expected>, got <value>".
[[noreturn]] void RaiseArgument(PyObject* type, const char* what, const char* expected,
                                nb::handle value);

// An int (a bool or a numpy integer too, as a Python list index takes
// them): TypeError for anything else (a float, a str, None), OverflowError
// past 64 bits.
int64_t IntArg(nb::handle value, const char* what);
// IntArg, or nullopt for None.
std::optional<int64_t> OptionalIntArg(nb::handle value, const char* what);
// A step PAMS compares with the market's and then uses as a list index
// (a getter's `time`): IntArg, None for None, and a value past 64 bits
// clamped to the nearest extreme, which gives PAMS's outcome (a huge step
// is in the future: AssertionError; a huge negative one is no index:
// IndexError).
std::optional<int64_t> TimeArgSlow(nb::handle value, const char* what);
inline std::optional<int64_t> TimeArg(nb::handle value, const char* what) {
  // A plain int of 64 bits (what agents pass) without a call: the getters
  // that take a step are agents' most frequent calls.
  if (PyLong_CheckExact(value.ptr())) {
    int overflow = 0;
    const long long out = PyLong_AsLongLongAndOverflow(value.ptr(), &overflow);
    if (overflow == 0) return out;
  }
  if (value.is_none()) return std::nullopt;
  return TimeArgSlow(value, what);
}
// IntArg in [0, kMaxHandBuiltId): ValueError outside.
int IdArg(nb::handle value, const char* what);
// IntArg in [lowest, kMaxHandBuiltStep]: ValueError outside.
int64_t StepArg(nb::handle value, const char* what, int64_t lowest);
// A real number (int, float, bool, numpy's): TypeError for anything else.
// NaN and the infinities are numbers.
double NumberArg(nb::handle value, const char* what);
// NumberArg that is not NaN: ValueError for NaN (the engine's histories
// keep NaN for PAMS's None).
double NotNanArg(nb::handle value, const char* what);
// An object's config (its settings): TypeError naming `method` for None
// (PAMS's `"key" in settings` fails on it too).
void RequireSettings(nb::handle settings, const char* method);
// Whether value is true, as PAMS's `if value:` reads it (any object).
bool TruthArg(nb::handle value, const char* what);

}  // namespace pams::python

namespace nanobind::detail {

// What Arg<T> shows in signatures: T, and for std::optional<U> U (nanobind
// adds " | None" to a parameter that takes None).
template <typename T>
struct ShownType {
  using type = T;
};
template <typename U>
struct ShownType<std::optional<U>> {
  using type = U;
};

// Arg<T>: the object as it came (see above), shown as T in signatures. A
// public method whose T may not be None names its signature with nb::sig,
// as its None-taking parameters would show " | None".
template <typename Shown>
struct type_caster<pams::python::Arg<Shown>> {
  NB_TYPE_CASTER(pams::python::Arg<Shown>, make_caster<typename ShownType<Shown>::type>::Name)
  template <typename Flags>
  bool from_python(handle src, Flags, cleanup_list*) noexcept {
    value.object = src;
    return true;
  }
  static handle from_cpp(const pams::python::Arg<Shown>& v, rv_policy, cleanup_list*) noexcept {
    return v.object.inc_ref();
  }
};

}  // namespace nanobind::detail

#endif  // PAMS_PYTHON_SRC_INTEROP_ARGUMENTS_H_
