// Interned names of the attributes the engine reads and writes on
// pams_cpp's Order, Cancel and OrderKind objects at every order a Python
// agent (or a hand-driven step) submits and on every execution of one, and
// on the logs a hand-driven loop writes to an engine logger every step,
// and the methods a Python logger is called by at every market and step.
//
// Why: `obj.attr("price")` makes and hashes a new Python string at each
// call, a third of what the lookup costs; an interned name is found in the
// object's dict by identity. An order crosses about thirty such lookups on
// its way in and out of the engine.
//
// Threading: call with the GIL held.

#ifndef PAMS_PYTHON_SRC_INTEROP_ATTR_NAMES_H_
#define PAMS_PYTHON_SRC_INTEROP_ATTR_NAMES_H_

#include <nanobind/nanobind.h>

namespace pams::python {

struct AttrNames {
  nanobind::handle agent_id;
  nanobind::handle market_id;
  nanobind::handle is_buy;
  nanobind::handle kind;
  nanobind::handle kind_id;
  nanobind::handle volume;
  nanobind::handle placed_at;
  nanobind::handle price;
  nanobind::handle order_id;
  nanobind::handle ttl;
  nanobind::handle is_canceled;
  nanobind::handle order;  // Cancel.order
  // The logs' (MarketStepEndLog's ...) and the simulator's.
  nanobind::handle session;
  nanobind::handle market;
  nanobind::handle simulator;
  nanobind::handle core;  // Simulator._core
  // A Python logger's methods.
  nanobind::handle write_and_direct_process;
  nanobind::handle process_market_step_begin_log;
  nanobind::handle process_market_step_end_log;
  // The Python Simulator's context and the runner's and simulator's flags
  // its step methods check (runner_steps.cc, hand_built_simulation.cc).
  nanobind::handle context;          // Simulator._context
  nanobind::handle prng_is_engine;   // Runner._prng_is_engine
  nanobind::handle markets_handed;   // Simulator._markets_handed
};

// The names, made on first use and kept for the life of the process (a
// process-wide cache: interned strings are never freed, and keeping them
// as handles leaves nothing to release after the interpreter has ended).
// REQUIRES: the GIL is held.
const AttrNames& Attrs();

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_ATTR_NAMES_H_
