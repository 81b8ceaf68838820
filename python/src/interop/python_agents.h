// Engine agents whose class is written in Python (python_agents.cc), for the
// runner binding: the registration of a Python agent class, and the common
// base through which the runner reaches their Python objects.

#ifndef PAMS_PYTHON_SRC_INTEROP_PYTHON_AGENTS_H_
#define PAMS_PYTHON_SRC_INTEROP_PYTHON_AGENTS_H_

#include <memory>
#include <span>
#include <string>

#include "interop/python.h"
#include "interop/python_run.h"
#include "pams/agents/agent.h"
#include "pams/market/order.h"
#include "pams/runners/model_batcher.h"

namespace pams {
class Agent;
class ClassRegistry;
class Simulator;
}  // namespace pams

namespace pams::python {

// How the engine runs one Python agent class.
struct PythonAgentClass {
  std::string name;  // the name configs use (the class's __name__)
  // The built-in class it derives from: "Agent", "FCNAgent", ...
  std::string base;
  // maker(engine_agent) returns the new Python agent whose _engine is
  // engine_agent (pams_cpp.runners.base).
  nb::object maker;
  // The methods of the built-in class that the Python class overrides.
  bool setup = false;
  bool submit_orders = false;
  bool submitted_order = false;
  bool executed_order = false;
  bool canceled_order = false;
  // Whether the class defines prepare_model_calls and
  // submit_orders_with_model_outputs: its model calls can be batched.
  bool batches = false;
};

// Registers `cls` in registry: configs naming cls->name create PyAgents.
// Throws ConfigError for an unknown base or a name already registered.
// REQUIRES: run outlives the registry's agents.
void RegisterPythonAgent(ClassRegistry* registry, PythonRun* run,
                         std::shared_ptr<PythonAgentClass> cls);

// An engine agent of the built-in class cls->base for `self`, a Python
// agent a program built by hand (PAMS's FCNAgent(agent_id=..., ...)). self
// owns it (as its _engine); it refers to self without a reference of its
// own, and its built-in code draws from self.prng (see DrawingFrom).
// Throws TypeError for an unknown base. REQUIRES: the GIL is held; run
// outlives the agent.
std::unique_ptr<Agent> MakeHandBuiltAgent(AgentInit init, std::shared_ptr<PythonAgentClass> cls,
                                          PythonRun* run, nb::handle self);

// What _core.Agent's methods reach in an agent of a Python class: the
// built-in class's own methods (Python's super()) and the batched model calls.
class PythonAgentCalls : public PythonPart {
 public:
  virtual void BaseSetup(nb::handle settings, const std::vector<int>& ids) = 0;
  // Whether the built-in class's setup ran to its end (through the engine
  // or a Python super().setup): its code reads what setup set, so the
  // built-in submit_orders is refused before (SimulationError; PAMS's
  // agent has no such attributes either).
  virtual bool base_set_up() const = 0;
  virtual nb::list BaseSubmitOrders(const std::vector<const Market*>& markets) = 0;
  // REQUIRES: the base is an FCNAgent (else SimulationError).
  virtual nb::list BaseSubmitOrdersByMarket(const Market& market) = 0;
  // Whether the class batches its model calls (PythonAgentClass::batches).
  virtual bool Batches() const = 0;
  // prepare_model_calls(markets), as a list of ModelCall objects (as_calls
  // turns what it returned into one). Errors stop the run naming the agent.
  // REQUIRES: the GIL is held, Batches().
  virtual nb::object PrepareModelCalls(nb::handle as_calls) = 0;
  // submit_orders_with_model_outputs(markets, outputs), its orders appended
  // to *orders. REQUIRES: the GIL is held, Batches().
  virtual void SubmitWithModelOutputs(nb::handle outputs, std::vector<Action>* orders) = 0;
};

// The Python side of an agent of a Python class; nullptr for an agent of a
// built-in class.
PythonAgentCalls* PythonCallsOf(Agent& agent);

// The batcher of the model calls of run's Python agents whose class batches
// (PythonAgentClass::batches): prepare_model_calls of each agent of a
// round, pams_cpp.agents.model_call.run_batch once on all their
// ModelCalls (one call per model), then each agent's
// submit_orders_with_model_outputs. Errors are Python's, kept in run with a
// note naming the agent (or the model's agents). REQUIRES: run outlives it.
std::unique_ptr<ModelBatcher> MakePythonModelBatcher(PythonRun* run);

// An Order or Cancel object for the engine, the next after `earlier` (the
// objects before it in the same submit_orders result: a cancel may cancel
// one of them). Throws SimulationError naming what is wrong with it.
// REQUIRES: the GIL is held.
Action ToAction(const PythonClasses& classes, nb::handle action,
                std::span<const nb::handle> earlier);
// The engine Order of a Python Order's fields (PAMS's attribute names),
// placed or not. Throws SimulationError naming a field of the wrong type.
// REQUIRES: the GIL is held.
Order ToOrder(nb::handle order);
// The Python Order or Cancel object of an engine action (the result of a
// built-in agent's submit_orders, for Python's super()).
nb::object ToPythonAction(const PythonRun& run, const Action& action);

}  // namespace pams::python

#endif  // PAMS_PYTHON_SRC_INTEROP_PYTHON_AGENTS_H_
