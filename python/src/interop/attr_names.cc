#include "interop/attr_names.h"

namespace pams::python {

namespace {

nanobind::handle Intern(const char* name) {
  PyObject* s = PyUnicode_InternFromString(name);
  if (s == nullptr) throw nanobind::python_error();
  return s;  // the reference is kept for the process's life
}

}  // namespace

const AttrNames& Attrs() {
  // Made under the GIL the caller holds, so no other thread races the
  // first call (a function-local static is thread-safe anyway).
  static const AttrNames names{
      Intern("agent_id"), Intern("market_id"), Intern("is_buy"),   Intern("kind"),
      Intern("kind_id"),  Intern("volume"),    Intern("placed_at"), Intern("price"),
      Intern("order_id"), Intern("ttl"),       Intern("is_canceled"), Intern("order"),
      Intern("session"),  Intern("market"),    Intern("simulator"), Intern("_core"),
      Intern("write_and_direct_process"), Intern("process_market_step_begin_log"),
      Intern("process_market_step_end_log"), Intern("_context"), Intern("_prng_is_engine"),
      Intern("_markets_handed")};
  return names;
}

}  // namespace pams::python
