#include "pams/simulator/simulator.h"

#include <cstdio>
#include <string>

#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/index_market.h"
#include "simulator/simulation_journal.h"

namespace pams {

namespace {

// The Fundamentals' own generator is seeded from the simulator's first draw.
Random FundamentalsPrng(Random& simulator_prng) {
  return Random(static_cast<uint64_t>(simulator_prng.randint(0, int64_t{1} << 31)));
}

}  // namespace

Simulator::Simulator(Random prng, Logger* logger)
    : prng_(std::move(prng)),
      logger_(logger),
      fundamentals_(FundamentalsPrng(prng_)) {}

Simulator::~Simulator() = default;

Market* Simulator::find_market(const std::string& name) const {
  auto it = name_to_market_.find(name);
  return it == name_to_market_.end() ? nullptr : it->second;
}

const std::vector<const Market*>* Simulator::find_market_group(
    const std::string& group) const {
  auto it = market_groups_.find(group);
  return it == market_groups_.end() ? nullptr : &it->second;
}

Agent* Simulator::find_agent(const std::string& name) const {
  auto it = name_to_agent_.find(name);
  return it == name_to_agent_.end() ? nullptr : it->second;
}

void Simulator::FailNoId(const char* what, int id) {
  throw SimulationError(std::string("no ") + what + " has id " + std::to_string(id));
}

template <typename T>
T*& Simulator::IdSlot(std::vector<T*>* by_id, int id, const char* what) {
  if (id < 0 || id >= kMaxId) {
    throw SimulationError(std::string(what) + " id " + std::to_string(id) +
                          " is outside [0, " + std::to_string(kMaxId) + ")");
  }
  if (static_cast<size_t>(id) >= by_id->size()) by_id->resize(id + 1, nullptr);
  T*& slot = (*by_id)[id];
  if (slot != nullptr) {
    throw SimulationError(std::string(what) + " id " + std::to_string(id) +
                          " is used twice");
  }
  return slot;
}

const std::string& Simulator::agent_group(const Agent& agent) const {
  static const std::string kNone;
  auto it = agent_group_of_.find(&agent);
  return it == agent_group_of_.end() ? kNone : it->second;
}

const std::string& Simulator::market_group(const Market& market) const {
  static const std::string kNone;
  auto it = market_group_of_.find(&market);
  return it == market_group_of_.end() ? kNone : it->second;
}

Market* Simulator::add_market(std::unique_ptr<Market> market,
                              const std::string& group) {
  return AddMarket(Held<Market>(market.release()), group);
}

Market* Simulator::add_market_borrowed(Market* market, const std::string& group) {
  return AddMarket(Held<Market>(market, MaybeOwned{false}), group);
}

Market* Simulator::AddMarket(Held<Market> market, const std::string& group) {
  if (name_to_market_.count(market->name())) {
    throw ConfigError(group, "market name \"" + market->name() +
                                 "\" is used twice");
  }
  Market*& slot = IdSlot(&market_by_id_, market->market_id(), "market");
  Market* m = market.get();
  slot = m;
  markets_.push_back(std::move(market));
  const_markets_.push_back(m);
  name_to_market_[m->name()] = m;
  if (!group.empty()) {
    market_groups_[group].push_back(m);
    market_group_of_[m] = group;
  }
  if (auto* index = dynamic_cast<IndexMarket*>(m)) {
    index_markets_.push_back(index);
  } else {
    plain_markets_.push_back(m);
  }
  return m;
}

Agent* Simulator::add_agent(std::unique_ptr<Agent> agent,
                            const std::string& group) {
  return AddAgent(Held<Agent>(agent.release()), group);
}

Agent* Simulator::add_agent_borrowed(Agent* agent, const std::string& group) {
  return AddAgent(Held<Agent>(agent, MaybeOwned{false}), group);
}

Agent* Simulator::AddAgent(Held<Agent> agent, const std::string& group) {
  if (name_to_agent_.count(agent->name())) {
    throw ConfigError(group, "agent name \"" + agent->name() +
                                 "\" is used twice");
  }
  Agent*& slot = IdSlot(&agent_by_id_, agent->agent_id(), "agent");
  Agent* a = agent.get();
  slot = a;
  agents_.push_back(std::move(agent));
  name_to_agent_[a->name()] = a;
  if (!group.empty()) agent_group_of_[a] = group;
  (a->is_high_frequency() ? high_frequency_agents_ : normal_agents_)
      .push_back(a);
  return a;
}

Session* Simulator::add_session(std::unique_ptr<Session> session) {
  return AddSession(Held<Session>(session.release()));
}

Session* Simulator::add_session_borrowed(Session* session) {
  return AddSession(Held<Session>(session, MaybeOwned{false}));
}

Session* Simulator::AddSession(Held<Session> session) {
  if (name_to_session_.count(session->name())) {
    throw ConfigError("simulation.sessions", "session name \"" +
                                                 session->name() +
                                                 "\" is used twice");
  }
  Session* s = session.get();
  sessions_.push_back(std::move(session));
  const_sessions_.push_back(s);
  name_to_session_[s->name()] = s;
  return s;
}

Event* Simulator::add_event(std::unique_ptr<Event> event) {
  events_.push_back(Held<Event>(event.release()));
  return events_.back().get();
}

Event* Simulator::add_event_borrowed(Event* event) {
  events_.push_back(Held<Event>(event, MaybeOwned{false}));
  return event;
}

void Simulator::add_event_hook(const EventHook& hook) {
  if (hook.event == nullptr) throw SimulationError("event hook without event");
  if (hook.hook_type == HookType::kExecution && hook.is_before) {
    throw SimulationError("event " + hook.event->name() +
                          ": execution can be hooked only after it");
  }
  if ((hook.specific_instance || hook.specific_class) &&
      hook.hook_type != HookType::kMarket) {
    throw SimulationError("event " + hook.event->name() +
                          ": specific markets apply to market hooks only");
  }
  HookSlot slot = kNumHookSlots;
  switch (hook.hook_type) {
    case HookType::kOrder:
      slot = hook.is_before ? kOrderBefore : kOrderAfter;
      break;
    case HookType::kCancel:
      slot = hook.is_before ? kCancelBefore : kCancelAfter;
      break;
    case HookType::kExecution:
      slot = kExecutionAfter;
      break;
    case HookType::kSession:
      slot = hook.is_before ? kSessionBefore : kSessionAfter;
      break;
    case HookType::kMarket:
      slot = hook.is_before ? kMarketBefore : kMarketAfter;
      break;
  }
  all_hooks_.push_back(hook);
  HookTable& table = hooks_[slot];
  if (!hook.time) {
    table.always.push_back(hook);
  } else {
    for (int64_t t : *hook.time) table.at_time[t].push_back(hook);
  }
}

template <typename Fn>
void Simulator::ForEachHook(HookSlot slot, int64_t time, Fn fn) {
  HookTable& table = hooks_[slot];
  if (table.empty()) return;
  for (const EventHook& h : table.always) fn(h);
  if (table.at_time.empty()) return;
  auto it = table.at_time.find(time);
  if (it == table.at_time.end()) return;
  for (const EventHook& h : it->second) fn(h);
}

void Simulator::set_current_session(Session* session) {
  current_session_ = session;
  if (journal_ != nullptr && session != nullptr) {
    journal_->RecordSession(session->session_id());
  }
}

void Simulator::update_times_on_markets() {
  ++time_;
  if (journal_ != nullptr) journal_->RecordTime(time_);
  // Normal markets first: an index market's fundamental index reads its
  // components' new fundamental prices.
  for (Market* m : plain_markets_) {
    m->update_time(fundamentals_.get_fundamental_price(m->market_id(),
                                                       m->get_time() + 1));
  }
  for (IndexMarket* index : index_markets_) {
    index->update_time(index->compute_fundamental_index(index->get_time() + 1));
  }
}

void Simulator::update_time_on_market(Market& market) {
  if (auto* index = dynamic_cast<IndexMarket*>(&market)) {
    index->update_time(index->compute_fundamental_index(index->get_time() + 1));
  } else {
    market.update_time(fundamentals_.get_fundamental_price(market.market_id(),
                                                           market.get_time() + 1));
  }
}

void Simulator::update_times_on_markets(std::span<Market* const> markets) {
  for (Market* m : markets) {
    if (dynamic_cast<IndexMarket*>(m) == nullptr) update_time_on_market(*m);
  }
  for (Market* m : markets) {
    if (dynamic_cast<IndexMarket*>(m) != nullptr) update_time_on_market(*m);
  }
  for (Market* m : markets) {
    if (m->get_time() > time_) time_ = m->get_time();
  }
  if (journal_ != nullptr) journal_->RecordTime(time_);
}

void Simulator::update_agents_for_execution(
    const std::vector<ExecutionLog>& logs) {
  for (const ExecutionLog& log : logs) {
    Agent& buyer = agent(log.buy_agent_id);
    Agent& seller = agent(log.sell_agent_id);
    const double amount = log.price * static_cast<double>(log.volume);
    // The transaction fees (0.0 without a fee, where x - 0.0 is x: PAMS
    // 0.3.0's arithmetic) come off after the trade's value.
    buyer.set_cash_amount(buyer.cash_amount() - amount - log.buy_transaction_fee);
    seller.set_cash_amount(seller.cash_amount() + amount - log.sell_transaction_fee);
    buyer.update_asset_volume(log.market_id, log.volume);
    seller.update_asset_volume(log.market_id, -log.volume);
  }
}

void Simulator::trigger_before_order(Order& order) {
  const int64_t time = market(order.market_id).get_time();
  ForEachHook(kOrderBefore, time, [&](const EventHook& h) {
    h.event->hooked_before_order(*this, order);
  });
}

void Simulator::trigger_after_order(const OrderLog& log) {
  ForEachHook(kOrderAfter, log.time, [&](const EventHook& h) {
    h.event->hooked_after_order(*this, log);
  });
}

void Simulator::trigger_before_cancel(Cancel& cancel) {
  const int64_t time = market(cancel.market_id()).get_time();
  ForEachHook(kCancelBefore, time, [&](const EventHook& h) {
    h.event->hooked_before_cancel(*this, cancel);
  });
}

void Simulator::trigger_after_cancel(const CancelLog& log) {
  ForEachHook(kCancelAfter, log.cancel_time, [&](const EventHook& h) {
    h.event->hooked_after_cancel(*this, log);
  });
}

void Simulator::trigger_after_execution(const ExecutionLog& log) {
  ForEachHook(kExecutionAfter, log.time, [&](const EventHook& h) {
    h.event->hooked_after_execution(*this, log);
  });
}

void Simulator::trigger_before_session(const Session& session) {
  ForEachHook(kSessionBefore, session.session_start_time(),
              [&](const EventHook& h) {
                h.event->hooked_before_session(*this, session);
              });
}

void Simulator::trigger_after_session(const Session& session) {
  const int64_t time =
      session.session_start_time() + session.iteration_steps() - 1;
  ForEachHook(kSessionAfter, time, [&](const EventHook& h) {
    h.event->hooked_after_session(*this, session);
  });
}

namespace {

bool HookMatchesMarket(const EventHook& h, const Market& market) {
  if (h.specific_class != nullptr && !h.specific_class(market)) return false;
  if (h.specific_instance != nullptr && h.specific_instance != &market) {
    return false;
  }
  return true;
}

}  // namespace

void Simulator::trigger_before_step_for_market(Market& market) {
  ForEachHook(kMarketBefore, market.get_time(), [&](const EventHook& h) {
    if (HookMatchesMarket(h, market)) {
      h.event->hooked_before_step_for_market(*this, market);
    }
  });
}

void Simulator::trigger_after_step_for_market(Market& market) {
  ForEachHook(kMarketAfter, market.get_time(), [&](const EventHook& h) {
    if (HookMatchesMarket(h, market)) {
      h.event->hooked_after_step_for_market(*this, market);
    }
  });
}

void Simulator::warn(std::string_view message) {
  if (quiet_ || warned_.find(message) != warned_.end()) return;
  warned_.emplace(message);
  if (warning_handler_) {
    warning_handler_(message);
    return;
  }
  std::fprintf(stderr, "warning: %.*s\n", static_cast<int>(message.size()),
               message.data());
}

}  // namespace pams
