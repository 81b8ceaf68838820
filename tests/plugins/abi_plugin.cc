// A minimal plugin for tests/plugin_abi_test.py, built three ways: against
// the real headers (it loads), against headers of another plugin interface
// version (refused with a message), and needing a symbol the library lacks
// (PAMS_NEEDS_MISSING_SYMBOL; refused with a message).

#include "pams/agents/fcn_agent.h"
#include "pams/runners/class_registry.h"

namespace pams {
#ifdef PAMS_NEEDS_MISSING_SYMBOL
// As if a newer pams-cpp had this and the plugin called it.
PAMS_EXPORT void FunctionOfAnotherVersion();
#endif
}  // namespace pams

namespace {

class AbiAgent : public pams::FCNAgent {
 public:
  using FCNAgent::FCNAgent;
};

}  // namespace

extern "C" void pams_register_classes(pams::ClassRegistry* registry) {
#ifdef PAMS_NEEDS_MISSING_SYMBOL
  pams::FunctionOfAnotherVersion();
#endif
  registry->add_agent<AbiAgent>("AbiAgent");
}
