#include "pams/events/event.h"

namespace pams {

Event::Event(EventInit init)
    : event_id_(init.event_id),
      prng_(std::move(init.prng)),
      session_(init.session),
      simulator_(init.simulator),
      name_(std::move(init.name)),
      class_name_(std::move(init.class_name)) {}

Event::~Event() = default;

void Event::setup(const Settings&) {}
void Event::hooked_before_order(Simulator&, Order&) {}
void Event::hooked_after_order(Simulator&, const OrderLog&) {}
void Event::hooked_before_cancel(Simulator&, Cancel&) {}
void Event::hooked_after_cancel(Simulator&, const CancelLog&) {}
void Event::hooked_after_execution(Simulator&, const ExecutionLog&) {}
void Event::hooked_before_session(Simulator&, const Session&) {}
void Event::hooked_after_session(Simulator&, const Session&) {}
void Event::hooked_before_step_for_market(Simulator&, Market&) {}
void Event::hooked_after_step_for_market(Simulator&, Market&) {}

}  // namespace pams
