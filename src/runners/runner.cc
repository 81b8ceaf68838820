// Runner: PAMS's runners/sequential.py. setup() follows _setup (objects are
// created and seeded first, in config order, and set up afterwards); run()
// follows _run with the same calls in the same order, so the runner's
// Random draws exactly what PAMS's draws.

#include "pams/runners/runner.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <string>

#include "config/config_path.h"
#include "config/key_log.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/market/index_market.h"
#include "pams/runners/model_batcher.h"
#include "runners/agent_task.h"
#include "runners/host_error.h"
#include "runners/model_batches.h"
#include "simulator/simulator_access.h"
#include "support/python_format.h"

namespace pams {

namespace {

// Seeds of child generators: randint(0, 2**31) of the parent, as PAMS.
Random ChildRandom(Random& parent) {
  return Random(static_cast<uint64_t>(parent.randint(0, int64_t{1} << 31)));
}

// Larger groups are refused before anything is allocated.
constexpr int64_t kMaxGroupSize = 100'000'000;
// Longer runs are refused (10^12 steps would take weeks; the bound keeps step
// arithmetic far from overflow).
constexpr int64_t kMaxSteps = 1'000'000'000'000;
// Histories for this many steps are allocated at setup; longer runs grow them
// as they go.
constexpr int64_t kReservedSteps = int64_t{1} << 16;

// A market or agent group of the config, after PAMS's _parse_group.
struct Group {
  std::string name;
  Json* settings;  // resolved: extends applied, counts removed
  int64_t id_from = 0;
  int64_t id_to = 0;
  bool numbered = false;
  std::string prefix;
  std::string class_name;

  std::string EntityName(int64_t i) const {
    return numbered ? prefix + std::to_string(i) : prefix;
  }
};

}  // namespace

Runner::Runner(Json settings, Random prng, Logger* logger,
               const ClassRegistry& registry)
    : settings_(std::move(settings)),
      initial_prng_state_(prng.getstate()),
      prng_(std::move(prng)),
      logger_(logger),
      registry_(registry),
      key_log_(std::make_unique<KeyLog>()),
      engine_batcher_(MakeEngineModelBatcher()) {
  simulator_ = std::make_unique<Simulator>(ChildRandom(prng_), logger_);
}

Runner::~Runner() = default;

void Runner::set_settings(Json settings) {
  if (set_up_ || validated_) {
    throw SimulationError("the runner's settings cannot change once it is set up");
  }
  settings_ = std::move(settings);
}

namespace {

// PAMS's _parse_group for the config entry `name`.
Group ParseGroup(const Json& whole, const std::string& name,
                 const std::string& count_key, const std::string& listed_in,
                 std::vector<std::unique_ptr<Json>>* keep, KeyLog* keys) {
  if (!whole.contains(name)) {
    throw ConfigError(name, "is listed in " + listed_in +
                                " but there is no entry of that name");
  }
  Group g;
  g.name = name;
  keep->push_back(std::make_unique<Json>(
      ResolveExtends(whole, name, whole[name], {"from", "to"})));
  g.settings = keep->back().get();
  Json& s = *g.settings;
  const Settings view = keys->Track(s, name);
  int64_t n = 1;
  bool uses_range = false;
  if (view.has(count_key)) {
    n = view[count_key].as_int();
    // 0 makes an empty group, as in PAMS: how users switch a group off
    // (e.g. with and without arbitrage agents in a sweep).
    if (n < 0 || n > kMaxGroupSize) {
      view[count_key].fail("must be between 0 and " +
                           std::to_string(kMaxGroupSize) + ", got " +
                           std::to_string(n));
    }
    g.id_to = n - 1;
  }
  if (view.has("from") || view.has("to")) {
    if (!view.has("from") || !view.has("to")) {
      view.fail("\"from\" and \"to\" must be given together");
    }
    if (view.has(count_key)) {
      view.fail(count_key + " cannot be used together with \"from\"/\"to\"");
    }
    g.id_from = view["from"].as_int();
    g.id_to = view["to"].as_int();
    if (g.id_to < g.id_from) {
      view["to"].fail("must be >= from (" + std::to_string(g.id_from) +
                      "), got " + std::to_string(g.id_to));
    }
    // Unsigned: the distance between two int64s may not fit in one.
    if (static_cast<uint64_t>(g.id_to) - static_cast<uint64_t>(g.id_from) >=
        static_cast<uint64_t>(kMaxGroupSize)) {
      view.fail("from/to describe more than " + std::to_string(kMaxGroupSize) +
                " entities");
    }
    n = g.id_to - g.id_from + 1;
    uses_range = true;
  }
  s.erase(count_key);
  s.erase("from");
  s.erase("to");
  if (s.contains("prefix")) {
    g.prefix = view["prefix"].as_string();
    s.erase("prefix");
  } else {
    g.prefix = name + (n > 1 ? "-" : "");
  }
  g.class_name = view["class"].as_string();
  g.numbered = uses_range || n != 1;
  return g;
}

// simulation.<key> as a list of group names.
std::vector<std::string> GroupNames(const Settings& simulation,
                                    const char* key) {
  return simulation[key].as_string_list();
}

}  // namespace

void Runner::setup() {
  if (set_up_) throw SimulationError("Runner::setup() called twice");
  set_up_ = true;
  if (replica_) internal::SimulatorAccess::SetQuiet(simulator_.get(), true);
  const Settings root = key_log_->Track(settings_, "");
  if (!settings_.is_object()) {
    throw ConfigError("", "a config must be a JSON object, got " +
                              JsonTypeName(settings_));
  }
  const Settings simulation = root["simulation"];
  if (!simulation.is_object()) {
    simulation.fail("expected an object, got " + JsonTypeName(simulation.json()));
  }
  Attempt([this] { GenerateMarkets(); });
  Attempt([this] { SetFundamentalCorrelations(); });
  Attempt([this] { GenerateAgents(); });
  Attempt([this] { GenerateSessions(); });
  run_pending_setups();
}

void Runner::generate_markets(const std::vector<std::string>& groups) {
  GenerateMarketsOf(groups);
}

void Runner::set_fundamental_correlation() { SetFundamentalCorrelations(); }

void Runner::generate_agents(const std::vector<std::string>& groups) {
  GenerateAgentsOf(groups);
}

void Runner::generate_sessions() { GenerateSessions(); }

std::vector<Runner::PendingSetupView> Runner::pending_setups() const {
  std::vector<PendingSetupView> out;
  out.reserve(pending_setups_.size());
  for (const PendingSetup& p : pending_setups_) out.push_back(p.view);
  return out;
}

void Runner::run_pending_setups() {
  // Setups may add more (none does today); each runs once.
  std::vector<PendingSetup> pending = std::move(pending_setups_);
  pending_setups_.clear();
  for (const PendingSetup& p : pending) {
    // A setup that fails in a way that is not a ConfigError (a plugin class,
    // a rule of the model) still names the entry it came from.
    Attempt([&p] {
      try {
        p.fn();
      } catch (const ConfigError&) {
        throw;
      } catch (const std::exception& e) {
        throw ConfigError(p.path, e.what());
      }
    });
  }
  const int64_t steps = simulator_->total_steps() + 1;  // and step 0
  for (const auto& market : simulator_->market_objects()) {
    market->reserve_steps(std::min(steps, kReservedSteps));
  }
  if (settings_.is_object() && settings_.contains("simulation") &&
      settings_["simulation"].is_object()) {
    const Settings simulation = key_log_->Track(settings_["simulation"], "simulation");
    Attempt([&] {
      if (auto b = simulation.find("batchModelCalls")) batch_model_calls_ = b->as_bool();
    });
    Attempt([&] { configure(simulation); });
  }
  UpdateBatching();
  if (!replica_) WarnUnreadKeys();
}

void Runner::WarnUnreadKeys() {
  // Keys that other runners read (a config written for one runner runs
  // with another): what each registered runner declares.
  const std::vector<std::string> runners_keys = registry_.runner_simulation_keys();
  // Entries with errors were not read to the end; empty groups (numAgents
  // 0: switched off) not at all.
  std::vector<std::string> skipped = empty_groups_;
  if (collected_errors_ != nullptr) {
    for (const ConfigError& e : *collected_errors_) {
      const std::string& path = e.path();
      skipped.push_back(path.substr(0, path.find_first_of(".[")));
    }
  }
  for (const KeyLog::UnreadKey& key :
       key_log_->Unread(settings_, runners_keys, skipped)) {
    simulator_->warn(key.path + ": no class reads this key, so it has no effect" +
                     (key.suggestion.empty()
                          ? std::string(" (a typo?)")
                          : " (did you mean \"" + key.suggestion + "\"?)"));
  }
}

namespace {

// Thrown while validating to skip what depends on a group already reported.
struct AlreadyReported {};

}  // namespace

std::vector<ConfigError> Runner::CollectErrors() {
  validated_ = true;
  std::vector<ConfigError> errors;
  collected_errors_ = &errors;
  try {
    setup();
  } catch (const ConfigError& e) {
    // A problem that stops everything (the config is not an object, ...).
    errors.push_back(e);
  }
  collected_errors_ = nullptr;
  return errors;
}

namespace {

// Values tried in place of a bad one, to get past it (see validate()).
const std::vector<Json>& StandInValues() {
  static const std::vector<Json> values = {
      Json(1), Json(0.5), Json(10), Json(100), Json(0.01), Json(1000), Json(0),
      Json(true), Json(false), Json::parse("[0.5, 1.0]")};
  return values;
}

bool HasErrorAt(const std::vector<ConfigError>& errors, const std::string& path) {
  for (const ConfigError& e : errors) {
    if (e.path() == path) return true;
  }
  return false;
}

}  // namespace

std::vector<ConfigError> Runner::validate() {
  if (set_up_) throw SimulationError("Runner::validate() after setup()");
  std::vector<ConfigError> errors = CollectErrors();
  // An entry's setup stops at its first bad key. To list the problems
  // behind it too, each bad value is replaced by a stand-in that passes (a
  // number, a bool, a range, whichever works), and a fresh runner of the
  // same class validates the changed config; what it finds that is new is
  // added. Bounded, since each try is a whole validation.
  constexpr int kMaxTries = 200;
  Json config;  // settings_, copied once there is something to change
  bool copied = false;
  int tries = 0;
  for (size_t i = 0; i < errors.size() && tries < kMaxTries; ++i) {
    const std::string path = errors[i].path();
    if (LocateKey(&settings_, path) == nullptr && !copied) continue;
    if (!copied) {
      config = settings_;
      copied = true;
    }
    Json* slot = LocateKey(&config, path);
    if (slot == nullptr) continue;
    const Json original = *slot;
    bool passed = false;
    for (const Json& stand_in : StandInValues()) {
      if (stand_in == original || tries >= kMaxTries) continue;
      *slot = stand_in;
      ++tries;
      std::unique_ptr<Runner> again = registry_.create_runner(
          class_name_,
          RunnerSetUp{config, Random(), nullptr, simulator_->config_directory(), {}},
          "runner");
      again->prng_.setstate(initial_prng_state_);
      again->replica_ = true;  // quiet: this runner printed the warnings
      const std::vector<ConfigError> found = again->CollectErrors();
      if (HasErrorAt(found, path)) continue;
      passed = true;
      for (const ConfigError& e : found) {
        if (!HasErrorAt(errors, e.path())) errors.push_back(e);
      }
      break;
    }
    if (!passed) *slot = original;
  }
  return errors;
}

bool Runner::Attempt(const std::function<void()>& fn) {
  if (collected_errors_ == nullptr) {
    fn();
    return true;
  }
  try {
    fn();
    return true;
  } catch (const AlreadyReported&) {
    return false;
  } catch (const ConfigError& e) {
    // A group of 100 agents with one bad key fails 100 times alike.
    for (const ConfigError& seen : *collected_errors_) {
      if (std::string_view(seen.what()) == e.what()) return false;
    }
    collected_errors_->push_back(e);
    return false;
  }
}

bool Runner::IsFailedGroup(const std::string& group) const {
  return std::find(failed_groups_.begin(), failed_groups_.end(), group) !=
         failed_groups_.end();
}

void Runner::configure(const Settings&) {}

void Runner::GenerateMarkets() {
  const Settings simulation = key_log_->Track(settings_["simulation"], "simulation");
  GenerateMarketsOf(GroupNames(simulation, "markets"));
}

void Runner::GenerateMarketsOf(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    if (!Attempt([&] { GenerateMarketGroup(name, &next_market_id_); })) {
      failed_groups_.push_back(name);
    }
  }
}

void Runner::GenerateMarketGroup(const std::string& name, int* market_id) {
  Group g = ParseGroup(settings_, name, "numMarkets", "simulation.markets",
                       &resolved_settings_, key_log_.get());
  const Settings s = key_log_->Track(*g.settings, name);
  registry_.check_class(g.class_name, ClassRegistry::Kind::kMarket,
                        name + ".class");
  std::optional<Settings> price = s.find("fundamentalPrice");
  if (!price) price = s.find("marketPrice");
  if (!price) s.fail("fundamentalPrice or marketPrice is required");
  const double fundamental_price = price->as_float();
  if (!(fundamental_price > 0.0) || !std::isfinite(fundamental_price)) {
    price->fail("must be a positive number, got " + price->json().dump());
  }
  double drift = 0.0;
  if (auto d = s.find("fundamentalDrift")) {
    drift = d->as_float();
    if (!std::isfinite(drift)) d->fail("must be finite");
  }
  double volatility = 0.0;
  if (auto v = s.find("fundamentalVolatility")) {
    volatility = v->as_float();
    if (!(volatility >= 0.0) || !std::isfinite(volatility)) {
      v->fail("must be a non-negative number, got " + v->json().dump());
    }
  }
  // Since PAMS's development branch: the group's transaction fee, one
  // object per market, set up right after its market with the entry
  // without "class". Creating it draws no randomness.
  std::optional<Settings> fee = s.find("transactionFee");
  const Json* fee_json = nullptr;
  std::string fee_class;
  if (fee) {
    if (!fee->is_object()) {
      fee->fail("expected an object naming its class, e.g. {\"class\": "
                "\"ProportionalTransactionFee\", \"rate\": 0.001}, got " +
                JsonTypeName(fee->json()));
    }
    fee_class = (*fee)["class"].as_string();
    registry_.check_class(fee_class, ClassRegistry::Kind::kTransactionFee,
                          fee->child_path("class"));
    Json without_class = fee->json();
    without_class.erase("class");
    resolved_settings_.push_back(std::make_unique<Json>(std::move(without_class)));
    fee_json = resolved_settings_.back().get();
  }
  if (g.id_to < g.id_from) empty_groups_.push_back(name);
  for (int64_t i = g.id_from; i <= g.id_to; ++i) {
    // Built with its prng: a default-constructed one would be seeded
    // (random.Random(0)) only to be overwritten, a third of a setup's time.
    MarketInit init{.market_id = (*market_id)++, .prng = ChildRandom(prng_)};
    init.simulator = simulator_.get();
    init.name = g.EntityName(i);
    init.logger = logger_;
    Market* market = simulator_->add_market(
        registry_.create_market(g.class_name, std::move(init), name + ".class"),
        name);
    if (dynamic_cast<IndexMarket*>(market) == nullptr) {
      simulator_->fundamentals().add_market(market->market_id(),
                                            fundamental_price, drift,
                                            volatility);
    }
    pending_setups_.push_back({name, [market, s] { market->setup(s); },
                               {PendingSetupView::Kind::kMarket, market, g.settings, {}}});
    if (fee_json != nullptr) {
      const Settings fee_settings = key_log_->Track(*fee_json, fee->path());
      pending_setups_.push_back(
          {fee->path(), [this, market, fee_settings, fee_class,
                         class_path = fee->child_path("class")] {
             TransactionFeeInit fee_init;
             fee_init.market = market;
             std::unique_ptr<TransactionFee> f = registry_.create_transaction_fee(
                 fee_class, std::move(fee_init), class_path);
             f->setup(fee_settings);
             market->set_transaction_fee(std::move(f));
           },
           {PendingSetupView::Kind::kTransactionFee, market, fee_json, {}}});
    }
  }
}

void Runner::SetFundamentalCorrelations() {
  const Settings simulation = key_log_->Track(settings_["simulation"], "simulation");
  const std::optional<Settings> corr = simulation.find("fundamentalCorrelations");
  if (!corr) return;
  if (!corr->is_object()) {
    corr->fail("expected an object such as {\"pairwise\": [[m1, m2, corr]]}");
  }
  for (auto it = corr->json().begin(); it != corr->json().end(); ++it) {
    const Settings value(it.value(), corr->child_path(it.key()));
    if (it.key() != "pairwise") {
      value.fail("unsupported correlation type (only \"pairwise\" is)");
    }
    if (!value.json().is_array()) {
      value.fail("expected a list of [market1, market2, correlation]");
    }
    for (size_t i = 0; i < value.size(); ++i) {
      Attempt([&] { SetFundamentalCorrelation(value.at(i)); });
    }
  }
}

void Runner::SetFundamentalCorrelation(const Settings& triple) {
  if (!triple.json().is_array() || triple.size() != 3) {
    triple.fail("expected [market1, market2, correlation], got " +
                triple.json().dump());
  }
  Market* markets[2];
  for (size_t k = 0; k < 2; ++k) {
    const std::string& market_name = triple.at(k).as_string();
    markets[k] = simulator_->find_market(market_name);
    if (markets[k] == nullptr) {
      triple.at(k).fail("no market is named \"" + market_name + "\"");
    }
    Fundamentals& f = simulator_->fundamentals();
    if (!f.has_market(markets[k]->market_id()) ||
        f.volatility(markets[k]->market_id()) == 0.0) {
      triple.at(k).fail("a correlation needs fundamentalVolatility > 0 in "
                        "market \"" + market_name + "\"");
    }
  }
  const double c = triple.at(2).as_float();
  if (!(-1.0 < c && c < 1.0)) {
    triple.at(2).fail("must be in (-1, 1), got " + triple.at(2).json().dump());
  }
  if (markets[0] == markets[1]) {
    triple.fail("a correlation needs two different markets");
  }
  simulator_->fundamentals().set_correlation(markets[0]->market_id(),
                                             markets[1]->market_id(), c);
}

void Runner::GenerateAgents() {
  const Settings simulation = key_log_->Track(settings_["simulation"], "simulation");
  GenerateAgentsOf(GroupNames(simulation, "agents"));
}

void Runner::GenerateAgentsOf(const std::vector<std::string>& names) {
  for (const std::string& name : names) {
    Attempt([&] { GenerateAgentGroup(name, &next_agent_id_); });
  }
}

void Runner::GenerateAgentGroup(const std::string& name, int* agent_id) {
  Group g = ParseGroup(settings_, name, "numAgents", "simulation.agents",
                       &resolved_settings_, key_log_.get());
  const Settings s = key_log_->Track(*g.settings, name);
  registry_.check_class(g.class_name, ClassRegistry::Kind::kAgent,
                        name + ".class");
  const Settings market_names = s["markets"];
  std::vector<int> accessible;
  const std::vector<std::string> groups = market_names.as_string_list();
  for (size_t k = 0; k < groups.size(); ++k) {
    const std::vector<const Market*>* members =
        simulator_->find_market_group(groups[k]);
    if (members == nullptr && IsFailedGroup(groups[k])) {
      // validate() reported that group already; nothing more to check.
      throw AlreadyReported{};
    }
    if (members == nullptr &&
        std::find(empty_groups_.begin(), empty_groups_.end(), groups[k]) !=
            empty_groups_.end()) {
      // PAMS fails here with a KeyError.
      market_names.at(k).fail("market group \"" + groups[k] +
                              "\" has no markets (its numMarkets is 0)");
    }
    if (members == nullptr) {
      market_names.at(k).fail("no market group is named \"" + groups[k] +
                              "\" (agents name groups listed in "
                              "simulation.markets)");
    }
    for (const Market* m : *members) {
      for (int id : accessible) {
        if (id == m->market_id()) {
          market_names.at(k).fail("market \"" + m->name() +
                                  "\" is listed twice");
        }
      }
      accessible.push_back(m->market_id());
    }
  }
  if (g.id_to < g.id_from) empty_groups_.push_back(name);
  for (int64_t i = g.id_from; i <= g.id_to; ++i) {
    // Built with its prng: a default-constructed one would be seeded
    // (random.Random(0)) only to be overwritten, a third of a setup's time.
    AgentInit init{.agent_id = (*agent_id)++, .prng = ChildRandom(prng_)};
    init.simulator = &simulator_->view();
    init.name = g.EntityName(i);
    init.logger = logger_;
    Agent* agent = simulator_->add_agent(
        registry_.create_agent(g.class_name, std::move(init), name + ".class"),
        name);
    pending_setups_.push_back(
        {name, [agent, s, accessible] { agent->setup(s, accessible); },
         {PendingSetupView::Kind::kAgent, agent, g.settings, accessible}});
  }
}

void Runner::GenerateSessions() {
  const Settings simulation = key_log_->Track(settings_["simulation"], "simulation");
  const Settings sessions = simulation["sessions"];
  if (!sessions.json().is_array()) {
    sessions.fail("expected a list of sessions, got " +
                  JsonTypeName(sessions.json()));
  }
  int session_id = 0;
  int event_id = 0;
  int64_t start_time = 0;
  for (size_t k = 0; k < sessions.size(); ++k) {
    Attempt([&] {
      GenerateSession(sessions.at(k), &session_id, &event_id, &start_time);
    });
  }
  simulator_->set_total_steps(start_time);
}

void Runner::GenerateSession(const Settings& s, int* session_id, int* event_id,
                             int64_t* start_time) {
  if (!s.is_object()) s.fail("expected an object, got " + JsonTypeName(s.json()));
  const std::string name = s["sessionName"].as_python_str();
  auto session = std::make_unique<Session>((*session_id)++, ChildRandom(prng_),
                                           *start_time, simulator_.get(), name);
  const int64_t steps = s["iterationSteps"].as_int();
  if (steps < 0) {
    s["iterationSteps"].fail("must be >= 0, got " + std::to_string(steps));
  }
  if (steps > kMaxSteps - *start_time) {
    s["iterationSteps"].fail("the sessions' steps add up to more than " +
                             std::to_string(kMaxSteps));
  }
  *start_time += steps;
  Session* session_ptr = simulator_->add_session(std::move(session));
  pending_setups_.push_back({s.path(), [session_ptr, s] { session_ptr->setup(s); },
                             {PendingSetupView::Kind::kSession, session_ptr, &s.json(), {}}});
  const std::optional<Settings> events = s.find("events");
  if (!events) return;
  const std::vector<std::string> event_names = events->as_string_list();
  for (size_t e = 0; e < event_names.size(); ++e) {
    Attempt([&] {
      const std::string& event_name = event_names[e];
      if (!settings_.contains(event_name)) {
        events->at(e).fail("no entry is named \"" + event_name + "\"");
      }
      resolved_settings_.push_back(std::make_unique<Json>(ResolveExtends(
          settings_, event_name, settings_[event_name],
          {"numMarkets", "from", "to", "prefix"})));
      const Settings es = key_log_->Track(*resolved_settings_.back(), event_name);
      const std::string class_name = es["class"].as_string();
      // Built with its prng: a default-constructed one would be seeded
      // (random.Random(0)) only to be overwritten, a third of a setup's time.
      EventInit init{.event_id = (*event_id)++, .prng = ChildRandom(prng_)};
      init.session = session_ptr;
      init.simulator = simulator_.get();
      init.name = event_name;
      Event* event = simulator_->add_event(registry_.create_event(
          class_name, std::move(init), event_name + ".class"));
      pending_setups_.push_back({event_name, [event, es] { event->setup(es); },
                                 {PendingSetupView::Kind::kEvent, event, &es.json(), {}}});
      pending_setups_.push_back({event_name, [this, event] {
        for (const EventHook& hook : event->hook_registration()) {
          simulator_->add_event_hook(hook);
        }
      }, {PendingSetupView::Kind::kEventHooks, event, nullptr, {}}});
    });
  }
}

// --- Running ---

void Runner::run() {
  if (validated_) {
    throw SimulationError(
        "Runner::run() after validate(): a validated runner cannot run (its "
        "simulation may be incomplete); create another runner to run");
  }
  if (!set_up_) throw SimulationError("Runner::run() needs setup() first");
  if (ran_) throw SimulationError("Runner::run() called twice");
  ran_ = true;
  try {
    UpdateBatching();
    on_run_start();
    Simulator& sim = *simulator_;
    if (logger_) logger_->process_simulation_begin_log(SimulationBeginLog{sim});
    sim.update_times_on_markets();  // t: -1 -> 0
    for (const auto& session : sim.sessions()) {
      sim.set_current_session(session.get());
      sim.trigger_before_session(*session);
      if (logger_) {
        logger_->process_session_begin_log(SessionBeginLog{*session, sim});
      }
      iterate_market_updates(*session);
      sim.trigger_after_session(*session);
      if (logger_) logger_->process_session_end_log(SessionEndLog{*session, sim});
    }
    if (logger_) logger_->process_simulation_end_log(SimulationEndLog{sim});
    on_run_end();
  } catch (const ConfigError& e) {
    const std::string also = Abort();
    if (also.empty()) throw;
    throw ConfigError(e.path(), e.message() + also);
  } catch (const SimulationError& e) {
    const std::string also = Abort();
    if (also.empty()) throw;
    throw SimulationError(e.what() + also);
  } catch (const std::exception& e) {
    const std::string also = Abort();
    throw SimulationError("at step " + std::to_string(simulator_->time()) +
                          ": " + e.what() + also);
  }
  if (logger_) logger_->flush();
}

bool Runner::StopRequested(bool now) {
  if (wait_check_) {
    const double t = std::chrono::duration<double>(
                         std::chrono::steady_clock::now().time_since_epoch())
                         .count();
    if (now || t - last_wait_check_ >= 0.01) {
      last_wait_check_ = t;
      wait_check_();
    }
  }
  return stop_flag_ != nullptr && stop_flag_->load();
}

std::string Runner::Abort() {
  // The error that stopped the run is the one to report; a failure while
  // cleaning up is added to it, never put in its place.
  std::string also;
  try {
    on_run_end();
  } catch (const std::exception& e) {
    also += std::string("; then stopping the workers failed: ") + e.what();
  }
  if (logger_) {
    try {
      logger_->flush();
    } catch (const std::exception& e) {
      also += std::string("; then writing the outputs failed: ") + e.what();
    }
  }
  return also;
}

void Runner::main(std::FILE* out) {
  using Clock = std::chrono::steady_clock;
  const auto setup_start = Clock::now();
  setup();
  const auto start = Clock::now();
  run();
  const auto end = Clock::now();
  initialization_seconds_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(start - setup_start)
          .count() / 1e9;
  execution_seconds_ =
      std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count() /
      1e9;
  std::string text = "# INITIALIZATION TIME ";
  AppendPythonFloat(initialization_seconds_, &text);
  text += "\n# EXECUTION TIME ";
  AppendPythonFloat(execution_seconds_, &text);
  text += "\n";
  std::fputs(text.c_str(), out);
  std::fflush(out);
}

void Runner::iterate_market_updates(Session& session) {
  Simulator& sim = *simulator_;
  for (const auto& m : sim.market_objects()) {
    m->set_is_running(session.with_order_execution());
  }
  for (int64_t step = 0; step < session.iteration_steps(); ++step) {
    if (stop_flag_ != nullptr && stop_flag_->load()) {
      throw SimulationError("interrupted at step " +
                            std::to_string(sim.time()));
    }
    for (const auto& m : sim.market_objects()) {
      sim.trigger_before_step_for_market(*m);
      if (logger_) {
        logger_->process_market_step_begin_log(
            MarketStepBeginLog{session, *m, sim});
      }
    }
    if (session.with_order_placement()) update_markets(session);
    for (const auto& m : sim.market_objects()) {
      if (logger_) {
        logger_->process_market_step_end_log(MarketStepEndLog{session, *m, sim});
      }
      sim.trigger_after_step_for_market(*m);
    }
    sim.update_times_on_markets();
    on_step_end();
  }
}

void Runner::update_markets(Session& session) {
  collect_orders(session);
  HandleOrders(session);
}

void Runner::collect_orders(Session& session) {
  // PAMS shuffles every normal agent every step, even when one will be
  // asked: the agents asked are the first ones of the shuffle, and finish()
  // draws what the rest of it would have drawn.
  agent_sample_.start(&prng_, simulator_->normal_frequency_agents());
  n_batches_ = 0;
  ++batches_version_;
  if (collect_sequentially_) {
    Runner::collect_orders_from_normal_agents(session, &agent_sample_);
  } else {
    collect_orders_from_normal_agents(session, &agent_sample_);
  }
  agent_sample_.finish();
}

std::span<Runner::Batch> Runner::reset_batches(size_t n) {
  if (batches_.size() < n) batches_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    batches_[i].agent = nullptr;
    batches_[i].actions.clear();
  }
  n_batches_ = n;
  ++batches_version_;
  return {batches_.data(), n};
}

void Runner::handle_orders(Session& session) {
  kept_hf_batches_.clear();
  for (size_t i = 0; i < n_batches_; ++i) ValidateActions(session, batches_[i]);
  HandleOrders(session);
}

void Runner::handle_high_frequency_orders(Session& session) {
  kept_hf_batches_.clear();
  HandleHighFrequencyOrders(session);
}

void Runner::process_order(Session& session, Action& action) {
  Batch batch;
  const int agent_id = ActionAgentId(action);
  batch.agent = simulator_->find_agent(agent_id);
  if (batch.agent == nullptr) {
    throw InvalidOrderError("no agent has id " + std::to_string(agent_id),
                            InvalidOrderError::Reason::kInvalidField);
  }
  batch.actions.push_back(std::move(action));
  ValidateActions(session, batch);
  ProcessOrder(session, batch.actions, 0);
  action = std::move(batch.actions[0]);
}

void Runner::UpdateBatching() {
  batching_ = false;
  if (!batch_model_calls_ || simulator_ == nullptr) return;
  for (Agent* agent : simulator_->normal_frequency_agents()) {
    if (BatcherOf(*agent) != nullptr) {
      batching_ = true;
      return;
    }
  }
}

ModelBatcher* Runner::BatcherOf(const Agent& agent) const {
  if (engine_batcher_->batches(agent)) return engine_batcher_.get();
  if (model_batcher_ != nullptr && model_batcher_->batches(agent)) return model_batcher_;
  return nullptr;
}

void Runner::RunRoundWithBatches(const RoundFn& run_round) {
  // The agents that do not batch first (on workers, threads or here), then
  // the engine's batching agents, then the program's, all here: agents of
  // a round are independent (they see the round's start), so the order of
  // their turns does not change what they do.
  round_batcher_.resize(round_.size());
  for (size_t i = 0; i < round_.size(); ++i) round_batcher_[i] = BatcherOf(*round_[i]);
  for (int phase = 0; phase < 3; ++phase) {
    ModelBatcher* batcher = phase == 0 ? nullptr
                            : phase == 1 ? engine_batcher_.get()
                                         : model_batcher_;
    if (phase > 0 && batcher == nullptr) continue;
    round_part_.clear();
    round_part_index_.clear();
    for (size_t i = 0; i < round_.size(); ++i) {
      if (round_batcher_[i] == batcher) {
        round_part_.push_back(round_[i]);
        round_part_index_.push_back(i);
      }
    }
    if (round_part_.empty()) continue;
    if (batcher == nullptr && round_part_.size() == round_.size()) {
      run_round(round_, &results_);
      return;
    }
    part_results_.resize(round_part_.size());
    for (TaskResult& r : part_results_) r.Clear();
    if (batcher == nullptr) {
      run_round(round_part_, &part_results_);
    } else {
      RunBatchedAgents(*batcher, round_part_, markets(), &part_results_);
    }
    bool failed = false;
    for (size_t k = 0; k < round_part_.size(); ++k) {
      failed = failed || !part_results_[k].error.empty();
      std::swap(results_[round_part_index_[k]], part_results_[k]);
    }
    if (failed) return;  // the run stops at the first error, in order
  }
}

void Runner::CollectInRounds(Session& session, LazySample<Agent*>* agents,
                             const RoundFn& run_round) {
  int64_t n_orders = 0;
  while (n_orders < session.max_normal_orders() && agents->has_next()) {
    const int64_t remaining = session.max_normal_orders() - n_orders;
    round_.clear();
    while (static_cast<int64_t>(round_.size()) < remaining && agents->has_next()) {
      round_.push_back(agents->next());
    }
    results_.resize(round_.size());
    for (TaskResult& r : results_) r.Clear();
    if (!batching_) {
      run_round(round_, &results_);
    } else {
      RunRoundWithBatches(run_round);
    }
    // In SequentialRunner's order: each agent's warnings, then its error or
    // its batch.
    for (size_t i = 0; i < round_.size(); ++i) {
      Agent* agent = round_[i];
      for (const std::string& w : results_[i].warnings) simulator_->warn(w);
      if (!results_[i].error.empty()) {
        const std::string message = "agent " + agent->name() + " (" + agent->class_name() +
                                    ") failed in " + results_[i].method + " at step " +
                                    std::to_string(simulator_->time()) + ": " +
                                    results_[i].error;
        if (!results_[i].host_error.empty()) throw HostError(message, results_[i].host_error);
        throw SimulationError(message);
      }
      if (results_[i].actions.empty()) continue;
      Batch* batch = next_batch(agent);
      batch->actions.swap(results_[i].actions);
      commit_batch(session);
      ++n_orders;
    }
  }
}

void Runner::collect_orders_from_normal_agents(Session& session,
                                               LazySample<Agent*>* agents) {
  if (batching_) {
    // The rounds the agent-parallel runners make, so that the batches (and
    // a batched model's last bits) are theirs. Agents that do not batch
    // are asked here one after the other, as below.
    CollectInRounds(session, agents, [this](std::span<Agent* const> round,
                                            std::vector<TaskResult>* results) {
      for (size_t i = 0; i < round.size(); ++i) {
        TaskResult& r = (*results)[i];
        RunAgentCall(
            round[i],
            [&] {
              if (dispatch_ && dispatch_(round[i], &r.actions)) return;
              round[i]->submit_orders(markets(), &r.actions);
            },
            /*check_public_state=*/false, &r.error, &r.warnings, &r.host_error);
        if (!r.error.empty()) return;  // the run stops at this agent
      }
    });
    return;
  }
  int64_t n_orders = 0;
  while (n_orders < session.max_normal_orders() && agents->has_next()) {
    Agent* agent = agents->next();
    Batch* batch = next_batch(agent);
    call_submit_orders(agent, &batch->actions);
    if (batch->actions.empty()) continue;
    commit_batch(session);
    ++n_orders;
  }
}

Runner::Batch* Runner::next_batch(Agent* agent) {
  if (n_batches_ == batches_.size()) batches_.emplace_back();
  Batch* batch = &batches_[n_batches_];
  batch->agent = agent;
  batch->actions.clear();
  return batch;
}

void Runner::commit_batch(const Session& session) {
  ValidateActions(session, batches_[n_batches_]);
  ++n_batches_;
}

void Runner::call_submit_orders(Agent* agent, std::vector<Action>* actions) {
  try {
    if (dispatch_ && dispatch_(agent, actions)) return;
    agent->submit_orders(markets(), actions);
  } catch (const std::exception& e) {
    throw SimulationError("agent " + agent->name() + " (" + agent->class_name() +
                          ") failed in submit_orders at step " +
                          std::to_string(simulator_->time()) + ": " +
                          e.what());
  }
}

void Runner::ValidateActions(const Session& session, const Batch& batch) const {
  if (batch.actions.empty()) return;
  const Agent& agent = *batch.agent;
  auto fail_for = [&](InvalidOrderError::Reason reason, const std::string& what) {
    throw InvalidOrderError("agent " + agent.name() + " (" + agent.class_name() +
                                ") submitted an invalid order at step " +
                                std::to_string(simulator_->time()) + ": " + what,
                            reason);
  };
  auto fail = [&](const std::string& what) {
    fail_for(InvalidOrderError::Reason::kInvalidField, what);
  };
  if (!session.with_order_placement()) {
    fail_for(InvalidOrderError::Reason::kNotAccepted,
             "orders are not accepted in session " + session.name());
  }
  for (size_t i = 0; i < batch.actions.size(); ++i) {
    const Action& action = batch.actions[i];
    if (ActionAgentId(action) != agent.agent_id()) {
      fail_for(InvalidOrderError::Reason::kSpoofing,
               "spoofing order is not allowed (agent_id " +
                   std::to_string(ActionAgentId(action)) + " is not its own)");
    }
    const Order& o = std::holds_alternative<Order>(action)
                         ? std::get<Order>(action)
                         : std::get<Cancel>(action).order;
    if (simulator_->find_market(o.market_id) == nullptr) {
      fail("no market has id " + std::to_string(o.market_id));
    }
    if (const auto* cancel = std::get_if<Cancel>(&action)) {
      const int32_t earlier = cancel->same_batch_order;
      if (cancel->other_batch >= 0) {
        const int32_t b = cancel->other_batch;
        const std::vector<Action>* actions =
            static_cast<size_t>(b) < n_batches_ ? &batches_[b].actions : nullptr;
        if (actions == nullptr || earlier < 0 || static_cast<size_t>(earlier) >= actions->size() ||
            !std::holds_alternative<Order>((*actions)[earlier]) ||
            std::get<Order>((*actions)[earlier]).market_id != o.market_id) {
          fail("a cancel's other_batch and same_batch_order must name an order of the same "
               "market");
        }
        continue;
      }
      if (earlier != -1 &&
          (earlier < 0 || static_cast<size_t>(earlier) >= i ||
           !std::holds_alternative<Order>(batch.actions[earlier]) ||
           std::get<Order>(batch.actions[earlier]).market_id != o.market_id)) {
        fail("a cancel's same_batch_order must be the index of an earlier order of the "
             "same market");
      }
      continue;
    }
    // First: an order placed before (and perhaps fully executed since, its
    // volume 0) is refused as such, not for its volume.
    if (o.order_id >= 0 || o.placed_at >= 0) fail("the order was already placed");
    if (o.volume <= 0) fail("volume must be positive, got " + std::to_string(o.volume));
    if (o.ttl && *o.ttl <= 0) {
      fail("ttl must be positive or unset, got " + std::to_string(*o.ttl));
    }
    if (o.kind == OrderKind::kLimit && (!o.price || !std::isfinite(*o.price))) {
      fail("a limit order needs a finite price");
    }
    if (o.price &&
        !(std::fabs(*o.price / simulator_->market(o.market_id).tick_size()) < 9.2e18)) {
      // PAMS's Python ints would go on; no market holds such a price.
      fail("price " + PythonFloat(*o.price) + " is more than 9.2e18 ticks");
    }
    if (o.kind == OrderKind::kMarket && o.price) {
      fail("a market order cannot have a price");
    }
    if (o.price && *o.price <= 0) {
      simulator_->warn("price should be positive");
    }
  }
}

void Runner::HandleOrders(Session& session) {
  if (batch_order_.size() < n_batches_) {
    const size_t old = batch_order_.size();
    batch_order_.resize(n_batches_);
    std::iota(batch_order_.begin() + old, batch_order_.end(),
              static_cast<uint32_t>(old));
  }
  prng_.sample_all<uint32_t>(
      std::span<const uint32_t>(batch_order_.data(), n_batches_),
      &shuffled_batch_order_);
  for (uint32_t index : shuffled_batch_order_) {
    std::vector<Action>& actions = batches_[index].actions;
    for (size_t i = 0; i < actions.size(); ++i) ProcessOrder(session, actions, i);
    if (session.high_frequency_submission_rate() < prng_.random()) continue;
    HandleHighFrequencyOrders(session);
  }
}

void Runner::HandleHighFrequencyOrders(Session& session) {
  hf_sample_.start(&prng_, simulator_->high_frequency_agents());
  int64_t n_orders = 0;
  while (n_orders < session.max_high_frequency_orders() && hf_sample_.has_next()) {
    Agent* agent = hf_sample_.next();
    hf_batch_.agent = agent;
    hf_batch_.actions.clear();
    call_submit_orders(agent, &hf_batch_.actions);
    if (hf_batch_.actions.empty()) continue;
    ValidateActions(session, hf_batch_);
    ++n_orders;
    for (size_t i = 0; i < hf_batch_.actions.size(); ++i) {
      ProcessOrder(session, hf_batch_.actions, i);
    }
    if (keep_hf_batches_) kept_hf_batches_.push_back(hf_batch_);
  }
  hf_sample_.finish();
}

void Runner::ProcessOrder(Session& session, std::vector<Action>& batch, size_t i) {
  Simulator& sim = *simulator_;
  Action& action = batch[i];
  Market* market;
  if (auto* order = std::get_if<Order>(&action)) {
    market = &sim.market(order->market_id);
    sim.trigger_before_order(*order);
    const OrderLog log = market->add_order(order);
    sim.agent(order->agent_id).submitted_order(log);
    sim.trigger_after_order(log);
  } else {
    Cancel& cancel = std::get<Cancel>(action);
    market = &sim.market(cancel.market_id());
    bool placed_this_step = false;
    if (cancel.other_batch >= 0) {
      // An order of another batch handed back by a program: placed before
      // this cancel, or the cancel is refused (PAMS: not submitted before).
      const Order& other =
          std::get<Order>(batches_[cancel.other_batch].actions[cancel.same_batch_order]);
      if (!other.is_placed()) {
        throw InvalidOrderError("the order to cancel is not placed yet (its batch comes "
                                "later in this step)",
                                InvalidOrderError::Reason::kInvalidField);
      }
      cancel.order = other;
      cancel.same_batch_order = -1;
      cancel.other_batch = -1;
      placed_this_step = true;
    } else if (cancel.same_batch_order >= 0) {
      // Placed by now (ValidateActions checked the index).
      cancel.order = std::get<Order>(batch[cancel.same_batch_order]);
      cancel.same_batch_order = -1;
      placed_this_step = true;
    }
    const OrderBook& book =
        cancel.order.is_buy ? market->buy_order_book() : market->sell_order_book();
    // An order placed this step that has left the book was executed in full
    // (it cannot have expired yet): PAMS's order then shows volume 0.
    if (placed_this_step && !book.contains(cancel.order)) cancel.order.volume = 0;
    // PAMS's cancel holds the live order: events see its remaining volume.
    if (const Order* resting = book.find(cancel.order)) cancel.order.volume = resting->volume;
    sim.trigger_before_cancel(cancel);
    const CancelLog log = market->cancel_order(cancel);
    sim.agent(cancel.agent_id()).canceled_order(log);
    sim.trigger_after_cancel(log);
  }
  if (session.with_order_execution() && market->is_running()) {
    market->execution(&execution_logs_);
    if (execution_logs_.empty()) return;
    sim.update_agents_for_execution(execution_logs_);
    for (const ExecutionLog& log : execution_logs_) {
      sim.agent(log.buy_agent_id).executed_order(log);
      sim.agent(log.sell_agent_id).executed_order(log);
      sim.trigger_after_execution(log);
    }
  }
}

}  // namespace pams
