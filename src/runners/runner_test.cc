// Tests for Runner/SequentialRunner: setup errors (ConfigError naming the key
// path) for a table of bad configs, a small valid run, PAMS's seeding order
// (CI2002 against PAMS's own output), and the checks on what agents submit.
//
// Reference values: the CI2002 lines and agent parameters were produced by
// running PAMS 0.3.0's SequentialRunner with a MarketStepSaver on
// samples/CI2002/config.json with both sessions cut to 3 steps and
// prng=random.Random(42), in the reference environment's Python
// (.venv-ref/bin/python of scripts/setup-reference.sh: reference BLAS/LAPACK,
// numpy without AVX-512); they are literals here.

#include "pams/runners/runner.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>
#include <stdexcept>
#include <typeinfo>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "pams/agents/fcn_agent.h"
#include "pams/config/json.h"
#include "pams/config/settings.h"
#include "pams/errors.h"
#include "pams/logs/logger.h"
#include "pams/logs/market_step_loggers.h"
#include "pams/runners/class_registry.h"

namespace pams {
namespace {

// A small valid config: one market, three FCN agents, one session.
const char* kBaseConfig = R"({
  "simulation": {
    "markets": ["Market"],
    "agents": ["FCNAgents"],
    "sessions": [
      {"sessionName": 0, "iterationSteps": 5, "withOrderPlacement": true,
       "withOrderExecution": true, "withPrint": true}
    ]
  },
  "Market": {"class": "Market", "tickSize": 0.01, "marketPrice": 300.0},
  "FCNAgents": {
    "class": "FCNAgent", "numAgents": 3, "markets": ["Market"],
    "assetVolume": 50, "cashAmount": 10000,
    "fundamentalWeight": 1.0, "chartWeight": 0.0, "noiseWeight": 1.0,
    "noiseScale": 0.001, "timeWindowSize": 10, "orderMargin": 0.01
  }
})";

Json Base() { return Json::parse(kBaseConfig); }

uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

Json& Session0(Json& c) { return c["simulation"]["sessions"][0]; }

// Runs setup() on config; returns the ConfigError it throws.
ConfigError SetupError(const Json& config, const ClassRegistry& registry) {
  SequentialRunner runner(config, Random(1), nullptr, registry);
  try {
    runner.setup();
  } catch (const ConfigError& e) {
    return e;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a ConfigError: " << e.what();
    return ConfigError("<other>", e.what());
  }
  ADD_FAILURE() << "setup() accepted the config";
  return ConfigError("<none>", "<none>");
}

struct BadConfig {
  const char* name;
  std::function<void(Json&)> change;
  const char* path;
  const char* message_part;  // a substring of the message ("" = any)
};

const std::vector<BadConfig>& BadConfigs() {
  static const std::vector<BadConfig>* cases = new std::vector<BadConfig>{
      // --- The top level ---
      {"root is not an object", [](Json& c) { c = Json::array(); }, "",
       "JSON object"},
      {"missing simulation", [](Json& c) { c.erase("simulation"); },
       "simulation", "missing"},
      {"simulation is not an object",
       [](Json& c) { c["simulation"] = 3; }, "simulation", ""},
      {"missing simulation.markets",
       [](Json& c) { c["simulation"].erase("markets"); }, "simulation.markets",
       "missing"},
      {"simulation.markets is a string",
       [](Json& c) { c["simulation"]["markets"] = "Market"; },
       "simulation.markets", "list"},
      {"simulation.markets holds a number",
       [](Json& c) { c["simulation"]["markets"] = Json::array({3}); },
       "simulation.markets[0]", "string"},
      {"missing simulation.agents",
       [](Json& c) { c["simulation"].erase("agents"); }, "simulation.agents",
       "missing"},
      {"missing simulation.sessions",
       [](Json& c) { c["simulation"].erase("sessions"); },
       "simulation.sessions", "missing"},
      {"sessions is an object",
       [](Json& c) { c["simulation"]["sessions"] = Json::object(); },
       "simulation.sessions", ""},
      {"session is not an object",
       [](Json& c) { c["simulation"]["sessions"][0] = 5; },
       "simulation.sessions[0]", ""},
      // --- Markets ---
      {"listed market has no entry",
       [](Json& c) { c["simulation"]["markets"] = Json::array({"Nope"}); },
       "Nope", ""},
      {"market without class", [](Json& c) { c["Market"].erase("class"); },
       "Market.class", "missing"},
      {"unknown market class",
       [](Json& c) { c["Market"]["class"] = "Bazaar"; }, "Market.class",
       "unknown"},
      {"market class is an agent class",
       [](Json& c) { c["Market"]["class"] = "FCNAgent"; }, "Market.class",
       "is an agent class, not a market class"},
      {"missing tickSize", [](Json& c) { c["Market"].erase("tickSize"); },
       "Market.tickSize", "missing"},
      {"tickSize is a string",
       [](Json& c) { c["Market"]["tickSize"] = "0.01"; }, "Market.tickSize",
       ""},
      {"no price", [](Json& c) { c["Market"].erase("marketPrice"); }, "Market",
       "fundamentalPrice or marketPrice"},
      {"negative volatility",
       [](Json& c) { c["Market"]["fundamentalVolatility"] = -0.1; },
       "Market.fundamentalVolatility", ""},
      {"outstandingShares not an int",
       [](Json& c) { c["Market"]["outstandingShares"] = 1.5; },
       "Market.outstandingShares", ""},
      {"numMarkets negative",
       [](Json& c) { c["Market"]["numMarkets"] = -2; }, "Market.numMarkets",
       ""},
      {"duplicate market names",
       [](Json& c) {
         c["simulation"]["markets"] = Json::array({"Market", "Other"});
         c["Other"] = c["Market"];
         c["Other"]["prefix"] = "Market";
       },
       "Other", "\"Market\""},
      // --- Agents ---
      {"abstract agent class",
       [](Json& c) { c["FCNAgents"]["class"] = "Agent"; }, "FCNAgents.class",
       "abstract"},
      {"agent class is a market class",
       [](Json& c) { c["FCNAgents"]["class"] = "Market"; }, "FCNAgents.class",
       "is a market class, not an agent class"},
      {"agent class is an event class",
       [](Json& c) { c["FCNAgents"]["class"] = "PriceLimitRule"; },
       "FCNAgents.class", "event class"},
      {"agent without markets",
       [](Json& c) { c["FCNAgents"].erase("markets"); }, "FCNAgents.markets",
       "missing"},
      {"agent names an unknown market group",
       [](Json& c) { c["FCNAgents"]["markets"] = Json::array({"Nope"}); },
       "FCNAgents.markets[0]", "Nope"},
      {"agent lists a market twice",
       [](Json& c) {
         c["FCNAgents"]["markets"] = Json::array({"Market", "Market"});
       },
       "FCNAgents.markets[1]", "twice"},
      {"missing cashAmount",
       [](Json& c) { c["FCNAgents"].erase("cashAmount"); },
       "FCNAgents.cashAmount", "missing"},
      {"missing fundamentalWeight",
       [](Json& c) { c["FCNAgents"].erase("fundamentalWeight"); },
       "FCNAgents.fundamentalWeight", "missing"},
      {"bad JsonRandom for orderMargin",
       [](Json& c) { c["FCNAgents"]["orderMargin"] = Json::parse(R"({"normal": [1]})"); },
       "FCNAgents.orderMargin", "normal"},
      {"bad JsonRandom for assetVolume",
       [](Json& c) { c["FCNAgents"]["assetVolume"] = Json::array({1}); },
       "FCNAgents.assetVolume", "[min, max]"},
      {"unknown distribution",
       [](Json& c) { c["FCNAgents"]["noiseScale"] = Json::parse(R"({"gamma": [1]})"); },
       "FCNAgents.noiseScale", "unknown distribution"},
      {"timeWindowSize is a string",
       [](Json& c) { c["FCNAgents"]["timeWindowSize"] = "ten"; },
       "FCNAgents.timeWindowSize", ""},
      {"bad marginType",
       [](Json& c) { c["FCNAgents"]["marginType"] = "weird"; },
       "FCNAgents.marginType", ""},
      {"numAgents too large",
       [](Json& c) { c["FCNAgents"]["numAgents"] = 1000000000; },
       "FCNAgents.numAgents", ""},
      {"numAgents negative",
       [](Json& c) { c["FCNAgents"]["numAgents"] = -1; },
       "FCNAgents.numAgents", ""},
      {"numAgents is a float",
       [](Json& c) { c["FCNAgents"]["numAgents"] = 2.5; },
       "FCNAgents.numAgents", ""},
      {"from without to",
       [](Json& c) {
         c["FCNAgents"].erase("numAgents");
         c["FCNAgents"]["from"] = 1;
       },
       "FCNAgents", "together"},
      {"to before from",
       [](Json& c) {
         c["FCNAgents"].erase("numAgents");
         c["FCNAgents"]["from"] = 5;
         c["FCNAgents"]["to"] = 2;
       },
       "FCNAgents.to", ""},
      {"from/to with numAgents",
       [](Json& c) {
         c["FCNAgents"]["from"] = 0;
         c["FCNAgents"]["to"] = 2;
       },
       "FCNAgents", "numAgents"},
      {"from/to too wide",
       [](Json& c) {
         c["FCNAgents"].erase("numAgents");
         c["FCNAgents"]["from"] = 0;
         c["FCNAgents"]["to"] = 4000000000;
       },
       "FCNAgents", ""},
      {"extends loop",
       [](Json& c) {
         c["FCNAgents"]["extends"] = "Parent";
         c["Parent"] = Json::parse(R"({"extends": "FCNAgents", "x": 1})");
       },
       "FCNAgents.extends", "loop"},
      {"extends a missing parent",
       [](Json& c) { c["FCNAgents"]["extends"] = "Missing"; },
       "FCNAgents.extends", "Missing"},
      {"duplicate agent names",
       [](Json& c) {
         c["simulation"]["agents"] = Json::array({"FCNAgents", "More"});
         c["FCNAgents"]["numAgents"] = 1;
         c["More"] = c["FCNAgents"];
         c["More"]["prefix"] = "FCNAgents";
       },
       "More", "\"FCNAgents\""},
      {"MarketMakerAgent targets a missing market",
       [](Json& c) {
         c["simulation"]["agents"] = Json::array({"FCNAgents", "MM"});
         c["MM"] = Json::parse(R"({"class": "MarketMakerAgent",
             "markets": ["Market"], "assetVolume": 0, "cashAmount": 0,
             "targetMarket": "Nope", "netInterestSpread": 0.02})");
       },
       "MM.targetMarket", "Nope"},
      {"ArbitrageAgent orderVolume is a float",
       [](Json& c) {
         c["simulation"]["agents"] = Json::array({"FCNAgents", "Arb"});
         c["Arb"] = Json::parse(R"({"class": "ArbitrageAgent",
             "markets": ["Market"], "assetVolume": 0, "cashAmount": 0,
             "orderVolume": 1.5, "orderThresholdPrice": 1.0})");
       },
       "Arb.orderVolume", ""},
      {"index component without outstandingShares",
       [](Json& c) {
         c["simulation"]["markets"] = Json::array({"Market", "Index"});
         c["Index"] = Json::parse(R"({"class": "IndexMarket",
             "tickSize": 0.01, "marketPrice": 300.0, "markets": ["Market"]})");
       },
       "Index.markets[0]", "outstandingShares"},
      // --- Correlations ---
      {"correlation without volatility",
       [](Json& c) {
         c["simulation"]["markets"] = Json::array({"Market", "M2"});
         c["M2"] = c["Market"];
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"pairwise": [["Market", "M2", 0.5]]})");
       },
       "simulation.fundamentalCorrelations.pairwise[0][0]", "Volatility"},
      {"correlation of 1",
       [](Json& c) {
         c["simulation"]["markets"] = Json::array({"Market", "M2"});
         c["Market"]["fundamentalVolatility"] = 0.01;
         c["M2"] = c["Market"];
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"pairwise": [["Market", "M2", 1.0]]})");
       },
       "simulation.fundamentalCorrelations.pairwise[0][2]", ""},
      {"correlation of -1.5",
       [](Json& c) {
         c["simulation"]["markets"] = Json::array({"Market", "M2"});
         c["Market"]["fundamentalVolatility"] = 0.01;
         c["M2"] = c["Market"];
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"pairwise": [["M2", "Market", -1.5]]})");
       },
       "simulation.fundamentalCorrelations.pairwise[0][2]", ""},
      {"correlation names a missing market",
       [](Json& c) {
         c["Market"]["fundamentalVolatility"] = 0.01;
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"pairwise": [["Market", "Nope", 0.5]]})");
       },
       "simulation.fundamentalCorrelations.pairwise[0][1]", "Nope"},
      {"correlation of a market with itself",
       [](Json& c) {
         c["Market"]["fundamentalVolatility"] = 0.01;
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"pairwise": [["Market", "Market", 0.5]]})");
       },
       "simulation.fundamentalCorrelations.pairwise[0]", ""},
      {"correlation triple too short",
       [](Json& c) {
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"pairwise": [["Market", 0.5]]})");
       },
       "simulation.fundamentalCorrelations.pairwise[0]", ""},
      {"unsupported correlation type",
       [](Json& c) {
         c["simulation"]["fundamentalCorrelations"] =
             Json::parse(R"({"cluster": []})");
       },
       "simulation.fundamentalCorrelations.cluster", ""},
      // --- Sessions ---
      {"session without sessionName",
       [](Json& c) { Session0(c).erase("sessionName"); },
       "simulation.sessions[0].sessionName", "missing"},
      {"session without iterationSteps",
       [](Json& c) { Session0(c).erase("iterationSteps"); },
       "simulation.sessions[0].iterationSteps", "missing"},
      {"negative iterationSteps",
       [](Json& c) { Session0(c)["iterationSteps"] = -1; },
       "simulation.sessions[0].iterationSteps", ""},
      {"iterationSteps is a float",
       [](Json& c) { Session0(c)["iterationSteps"] = 5.5; },
       "simulation.sessions[0].iterationSteps", ""},
      {"session without withOrderPlacement",
       [](Json& c) { Session0(c).erase("withOrderPlacement"); },
       "simulation.sessions[0].withOrderPlacement", "missing"},
      {"withPrint is a string",
       [](Json& c) { Session0(c)["withPrint"] = "yes"; },
       "simulation.sessions[0].withPrint", ""},
      {"both maxHifreqOrders and maxHighFrequencyOrders",
       [](Json& c) {
         Session0(c)["maxHifreqOrders"] = 1;
         Session0(c)["maxHighFrequencyOrders"] = 1;
       },
       "simulation.sessions[0].maxHifreqOrders", ""},
      {"duplicate session names (0 and \"0\")",
       [](Json& c) {
         Json second = Session0(c);
         second["sessionName"] = "0";
         c["simulation"]["sessions"].push_back(second);
       },
       "simulation.sessions", "\"0\""},
      // --- Events ---
      {"session names a missing event",
       [](Json& c) { Session0(c)["events"] = Json::array({"Missing"}); },
       "simulation.sessions[0].events[0]", "Missing"},
      {"events is not a list",
       [](Json& c) { Session0(c)["events"] = "Shock"; },
       "simulation.sessions[0].events", ""},
      {"event without class",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Shock"});
         c["Shock"] = Json::parse(R"({"target": "Market", "triggerTime": 1,
                                     "priceChangeRate": -0.1})");
       },
       "Shock.class", "missing"},
      {"event class is a market class",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Shock"});
         c["Shock"] = Json::parse(R"({"class": "Market", "target": "Market",
                                     "triggerTime": 1, "priceChangeRate": -0.1})");
       },
       "Shock.class", "not an event class"},
      {"shock names a missing market",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Shock"});
         c["Shock"] = Json::parse(R"({"class": "FundamentalPriceShock",
             "target": "Nope", "triggerTime": 1, "priceChangeRate": -0.1})");
       },
       "Shock.target", "Nope"},
      {"shock without triggerTime",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Shock"});
         c["Shock"] = Json::parse(R"({"class": "FundamentalPriceShock",
             "target": "Market", "priceChangeRate": -0.1})");
       },
       "Shock.triggerTime", "missing"},
      {"price limit rule with an integer triggerChangeRate",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Rule"});
         c["Rule"] = Json::parse(R"({"class": "PriceLimitRule",
             "targetMarkets": ["Market"], "triggerChangeRate": 1})");
       },
       "Rule.triggerChangeRate", "float"},
      {"price limit rule names a missing market",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Rule"});
         c["Rule"] = Json::parse(R"({"class": "PriceLimitRule",
             "targetMarkets": ["Market", "Nope"], "triggerChangeRate": 0.1})");
       },
       "Rule.targetMarkets[1]", "Nope"},
      {"event extends loop",
       [](Json& c) {
         Session0(c)["events"] = Json::array({"Rule"});
         c["Rule"] = Json::parse(R"({"extends": "Base", "class": "PriceLimitRule",
             "targetMarkets": ["Market"], "triggerChangeRate": 0.1})");
         c["Base"] = Json::parse(R"({"extends": "Rule"})");
       },
       "Rule.extends", "loop"},
  };
  return *cases;
}

TEST(RunnerSetupTest, BadConfigsAreConfigErrorsWithTheKeyPath) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  ASSERT_GE(BadConfigs().size(), 25u);
  for (const BadConfig& c : BadConfigs()) {
    SCOPED_TRACE(c.name);
    Json config = Base();
    c.change(config);
    const ConfigError e = SetupError(config, registry);
    EXPECT_EQ(e.path(), c.path) << e.what();
    EXPECT_NE(e.message().find(c.message_part), std::string::npos)
        << "message: " << e.message();
  }
}

// setup() reports bad configs as ConfigError only. PAMS accepts a session
// of 10**12 steps (its histories grow lazily), so either setup() succeeds or
// it names the key; it must not fail with std::bad_alloc or overflow.
// (Histories are allocated for the first steps only; step counts are bounded
// so that their sums cannot overflow.)
TEST(RunnerSetupTest, HugeIterationStepsAreNotAnAllocationFailure) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  for (int64_t steps : {int64_t{1000000000000}, INT64_MAX}) {
    for (int sessions : {1, 2}) {
      SCOPED_TRACE(std::to_string(steps) + " steps, " +
                   std::to_string(sessions) + " sessions");
      Json config = Base();
      Session0(config)["iterationSteps"] = steps;
      if (sessions == 2) {
        Json second = Session0(config);
        second["sessionName"] = 1;
        config["simulation"]["sessions"].push_back(second);
      }
      SequentialRunner runner(config, Random(1), nullptr, registry);
      try {
        runner.setup();
      } catch (const ConfigError& e) {
        EXPECT_EQ(e.path().rfind("simulation.sessions[", 0), 0u) << e.what();
      } catch (const std::exception& e) {
        ADD_FAILURE() << "setup() threw " << typeid(e).name() << ": "
                      << e.what();
      }
    }
  }
}

// "from"/"to" whose distance does not fit in an int64_t must be refused like
// any other too-large group.
TEST(RunnerSetupTest, FromToDistanceOverflowIsAConfigError) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  Json config = Base();
  config["FCNAgents"].erase("numAgents");
  config["FCNAgents"]["from"] = int64_t{-9000000000000000000};
  config["FCNAgents"]["to"] = int64_t{9000000000000000000};
  const ConfigError e = SetupError(config, registry);
  EXPECT_EQ(e.path(), "FCNAgents") << e.what();
}

TEST(RunnerSetupTest, TheBaseConfigIsValid) {
  // Guards the table above: each case breaks one thing only.
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(Base(), Random(1), nullptr, registry);
  EXPECT_NO_THROW(runner.setup());
}

TEST(RunnerSetupTest, SetupAndRunOrder) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(Base(), Random(1), nullptr, registry);
  EXPECT_THROW(runner.run(), SimulationError);  // run() before setup()
  runner.setup();
  EXPECT_THROW(runner.setup(), SimulationError);  // twice
}

TEST(RunnerTest, ASmallValidConfigRuns) {
  Json config = Base();
  config["simulation"]["markets"] = Json::array({"Market", "Index"});
  config["Market"]["numMarkets"] = 2;
  config["Market"]["outstandingShares"] = 1000;
  config["Market"]["fundamentalVolatility"] = 0.01;
  config["Index"] = Json::parse(R"({"class": "IndexMarket", "tickSize": 0.01,
      "marketPrice": 300.0, "markets": ["Market-0", "Market-1"]})");
  config["simulation"]["fundamentalCorrelations"] =
      Json::parse(R"({"pairwise": [["Market-0", "Market-1", 0.3]]})");
  config["FCNAgents"]["markets"] = Json::array({"Market", "Index"});
  config["simulation"]["agents"] = Json::array({"FCNAgents", "Arb"});
  config["Arb"] = Json::parse(R"({"class": "ArbitrageAgent",
      "markets": ["Market", "Index"], "assetVolume": 50, "cashAmount": 10000,
      "orderVolume": 1, "orderThresholdPrice": 1.0})");
  Json second = Session0(config);
  Session0(config)["withOrderExecution"] = false;
  second["sessionName"] = 1;
  second["iterationSteps"] = 20;
  second["events"] = Json::array({"Shock", "Rule"});
  config["simulation"]["sessions"].push_back(second);
  config["Shock"] = Json::parse(R"({"class": "FundamentalPriceShock",
      "target": "Market-0", "triggerTime": 3, "priceChangeRate": -0.1})");
  config["Rule"] = Json::parse(R"({"class": "PriceLimitRule",
      "targetMarkets": ["Market-0", "Market-1", "Index"],
      "triggerChangeRate": 0.1})");
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  MarketStepSaver saver;
  SequentialRunner runner(config, Random(7), &saver, registry);
  runner.setup();
  const Simulator& sim = runner.simulator();
  ASSERT_EQ(sim.markets().size(), 3u);
  EXPECT_EQ(sim.markets()[0]->name(), "Market-0");
  EXPECT_EQ(sim.markets()[1]->name(), "Market-1");
  EXPECT_EQ(sim.markets()[2]->name(), "Index");
  EXPECT_EQ(sim.agents().size(), 4u);
  EXPECT_EQ(sim.agents()[0]->name(), "FCNAgents-0");
  EXPECT_EQ(sim.agents()[3]->name(), "Arb");
  EXPECT_EQ(sim.high_frequency_agents().size(), 1u);
  EXPECT_EQ(sim.sessions().size(), 2u);
  EXPECT_EQ(sim.sessions()[1]->session_start_time(), 5);
  EXPECT_EQ(sim.events().size(), 2u);
  runner.run();
  EXPECT_EQ(sim.markets()[0]->get_time(), 25);
  // One record per market and step.
  EXPECT_EQ(saver.market_step_logs().size(), 3u * 25u);
  // The shock at step 5 + 3 scaled Market-0's fundamental price by 0.9.
  const double before = sim.markets()[0]->get_fundamental_price(7);
  const double at = sim.markets()[0]->get_fundamental_price(8);
  EXPECT_LT(at / before, 0.95);
}

// The config of ASmallValidConfigRuns: index, arbitrage, shock, limit.
Json RicherConfig() {
  Json config = Base();
  config["simulation"]["markets"] = Json::array({"Market", "Index"});
  config["Market"]["numMarkets"] = 2;
  config["Market"]["outstandingShares"] = 1000;
  config["Market"]["fundamentalVolatility"] = 0.01;
  config["Index"] = Json::parse(R"({"class": "IndexMarket", "tickSize": 0.01,
      "marketPrice": 300.0, "markets": ["Market-0", "Market-1"]})");
  config["FCNAgents"]["markets"] = Json::array({"Market", "Index"});
  config["simulation"]["agents"] = Json::array({"FCNAgents", "Arb"});
  config["Arb"] = Json::parse(R"({"class": "ArbitrageAgent",
      "markets": ["Market", "Index"], "assetVolume": 50, "cashAmount": 10000,
      "orderVolume": 1, "orderThresholdPrice": 1.0})");
  Json second = Session0(config);
  second["sessionName"] = 1;
  second["iterationSteps"] = 30;
  second["maxNormalOrders"] = 2;
  second["events"] = Json::array({"Shock", "Rule"});
  config["simulation"]["sessions"].push_back(second);
  config["Shock"] = Json::parse(R"({"class": "FundamentalPriceShock",
      "target": "Market-0", "triggerTime": 3, "priceChangeRate": -0.1})");
  config["Rule"] = Json::parse(R"({"class": "PriceLimitRule",
      "targetMarkets": ["Market-0", "Market-1", "Index"], "triggerChangeRate": 0.1})");
  return config;
}

// A program that calls run()'s steps itself, in run()'s order, with the
// batches handed back as it got them (PAMS's _run written out, as pamsenvs
// drives a simulation): run()'s results bit for bit.
TEST(RunnerTest, StepsCalledOneByOneGiveRunsResults) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  MarketStepSaver by_run, by_hand;
  SequentialRunner a(RicherConfig(), Random(11), &by_run, registry);
  a.setup();
  a.run();

  SequentialRunner b(RicherConfig(), Random(11), nullptr, registry);
  b.generate_markets({"Market", "Index"});
  b.set_fundamental_correlation();
  b.generate_agents({"FCNAgents", "Arb"});
  b.generate_sessions();
  const auto pending = b.pending_setups();
  ASSERT_EQ(pending.size(), 3u + 4u + 2u + 2u * 2u);
  EXPECT_EQ(pending[0].kind, Runner::PendingSetupView::Kind::kMarket);
  EXPECT_EQ(pending[3].accessible_market_ids, (std::vector<int>{0, 1, 2}));
  b.run_pending_setups();
  EXPECT_TRUE(b.pending_setups().empty());
  Simulator& sim = b.simulator();
  sim.update_times_on_markets();
  for (const auto& session : sim.sessions()) {
    sim.set_current_session(session.get());
    sim.trigger_before_session(*session);
    for (const auto& m : sim.market_objects()) m->set_is_running(session->with_order_execution());
    for (int64_t step = 0; step < session->iteration_steps(); ++step) {
      for (const auto& m : sim.market_objects()) sim.trigger_before_step_for_market(*m);
      if (session->with_order_placement()) {
        const uint64_t before = b.batches_version();
        b.collect_orders(*session);
        const uint64_t collected = b.batches_version();
        EXPECT_NE(collected, before);  // new batches
        // Handed back: the same batches, copied out and in again.
        std::vector<Runner::Batch> copies(b.batches().begin(), b.batches().end());
        std::span<Runner::Batch> back = b.reset_batches(copies.size());
        std::copy(copies.begin(), copies.end(), back.begin());
        EXPECT_NE(b.batches_version(), collected);  // replaced
        b.handle_orders(*session);
      }
      for (const auto& m : sim.market_objects()) {
        by_hand.process_market_step_end_log(MarketStepEndLog{*session, *m, sim});
        sim.trigger_after_step_for_market(*m);
      }
      sim.update_times_on_markets();
    }
    sim.trigger_after_session(*session);
  }
  ASSERT_EQ(by_hand.market_step_logs().size(), by_run.market_step_logs().size());
  for (size_t i = 0; i < by_run.market_step_logs().size(); ++i) {
    const auto& x = by_run.market_step_logs()[i];
    const auto& y = by_hand.market_step_logs()[i];
    EXPECT_EQ(Bits(x.market_price), Bits(y.market_price)) << i;
    EXPECT_EQ(Bits(x.fundamental_price), Bits(y.fundamental_price)) << i;
  }
  for (size_t i = 0; i < sim.agents().size(); ++i) {
    EXPECT_EQ(Bits(sim.agents()[i]->cash_amount()),
              Bits(a.simulator().agents()[i]->cash_amount()));
  }
  EXPECT_EQ(b.prng_state(), a.prng_state());
}

// The steps' refusals say which of PAMS's rules an order broke.
TEST(RunnerTest, StepsRefuseOrdersWithPamsReasons) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(Base(), Random(1), nullptr, registry);
  runner.setup();
  Simulator& sim = runner.simulator();
  sim.update_times_on_markets();
  Session& session = *sim.sessions()[0];
  auto reason = [&](Action action) {
    try {
      runner.process_order(session, action);
    } catch (const InvalidOrderError& e) {
      return static_cast<int>(e.reason());
    }
    return -1;
  };
  const Order ok = Order::Limit({.agent_id = 0, .market_id = 0, .is_buy = true,
                                 .price = 300.0, .volume = 1});
  EXPECT_EQ(reason(ok), -1);
  Order bad = ok;
  bad.volume = 0;
  EXPECT_EQ(reason(bad), static_cast<int>(InvalidOrderError::Reason::kInvalidField));
  session.set_with_order_placement(false);
  EXPECT_EQ(reason(ok), static_cast<int>(InvalidOrderError::Reason::kNotAccepted));
  session.set_with_order_placement(true);
  std::span<Runner::Batch> batches = runner.reset_batches(1);
  batches[0].agent = &sim.agent(1);
  batches[0].actions.push_back(ok);  // agent 0's order in agent 1's batch
  try {
    runner.handle_orders(session);
    FAIL() << "spoofing was accepted";
  } catch (const InvalidOrderError& e) {
    EXPECT_EQ(e.reason(), InvalidOrderError::Reason::kSpoofing);
  }
}

TEST(RunnerTest, NumberedNamesFromToAndPrefix) {
  Json config = Base();
  config["FCNAgents"].erase("numAgents");
  config["FCNAgents"]["from"] = 3;
  config["FCNAgents"]["to"] = 5;
  config["FCNAgents"]["prefix"] = "fcn";
  config["simulation"]["agents"] = Json::array({"FCNAgents", "Single"});
  config["Single"] = Json::parse(R"({"extends": "FCNAgents", "numAgents": 1})");
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(config, Random(1), nullptr, registry);
  runner.setup();
  const auto& agents = runner.simulator().agents();
  ASSERT_EQ(agents.size(), 4u);
  EXPECT_EQ(agents[0]->name(), "fcn3");
  EXPECT_EQ(agents[1]->name(), "fcn4");
  EXPECT_EQ(agents[2]->name(), "fcn5");
  // "from"/"to" are not inherited; the prefix is.
  EXPECT_EQ(agents[3]->name(), "fcn");
  EXPECT_EQ(agents[3]->agent_id(), 3);
  EXPECT_EQ(agents[3]->class_name(), "FCNAgent");
}

// numAgents/numMarkets 0 switch a group off, as in PAMS; a negative count,
// and agents that trade in an empty market group, are refused.
TEST(RunnerTest, EmptyGroupsRun) {
  Json config = Base();
  config["simulation"]["agents"].push_back("Off");
  config["Off"] = Json::parse(R"({"extends": "FCNAgents", "numAgents": 0})");
  config["simulation"]["markets"].push_back("Spare");
  config["Spare"] = Json::parse(R"({"extends": "Market", "numMarkets": 0})");
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(config, Random(1), nullptr, registry);
  runner.setup();
  runner.run();
  EXPECT_EQ(runner.simulator().agents().size(), 3u);
  EXPECT_EQ(runner.simulator().markets().size(), 1u);

  Json negative = Base();
  negative["FCNAgents"]["numAgents"] = -1;
  EXPECT_STREQ(SetupError(negative, registry).what(),
               "FCNAgents.numAgents: must be between 0 and 100000000, got -1");
  Json trades_in_empty = config;
  trades_in_empty["FCNAgents"]["markets"].push_back("Spare");
  EXPECT_STREQ(SetupError(trades_in_empty, registry).what(),
               "FCNAgents.markets[1]: market group \"Spare\" has no markets "
               "(its numMarkets is 0)");
}

// Past an entry's first bad key, validate() checks the others too.
TEST(RunnerTest, ValidateLooksPastTheFirstBadKeyOfAnEntry) {
  Json config = Base();
  config["FCNAgents"]["timeWindowSize"] = "ten";
  config["FCNAgents"]["orderMargin"] = Json::parse("[0.2, 0.1]");
  config["FCNAgents"]["cashAmount"] = Json::parse("{\"normal\": [1]}");
  config["Market"]["tickSize"] = -1;
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(config, Random(1), nullptr, registry);
  std::vector<std::string> paths;
  for (const ConfigError& e : runner.validate()) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  EXPECT_EQ(paths, (std::vector<std::string>{
                       "FCNAgents.cashAmount", "FCNAgents.orderMargin",
                       "FCNAgents.timeWindowSize", "Market.tickSize"}));
}

// Runs once, and never after validate().
TEST(RunnerTest, RunAfterValidateOrTwiceIsRefused) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner validated(Base(), Random(1), nullptr, registry);
  EXPECT_TRUE(validated.validate().empty());
  EXPECT_THROW(validated.run(), SimulationError);
  SequentialRunner twice(Base(), Random(1), nullptr, registry);
  twice.setup();
  twice.run();
  EXPECT_THROW(twice.run(), SimulationError);
  SequentialRunner set_up(Base(), Random(1), nullptr, registry);
  set_up.setup();
  EXPECT_THROW(set_up.validate(), SimulationError);
}

// A logger whose flush fails while the run is being stopped by another
// error: the original error is reported, with the flush's added to it.
TEST(RunnerTest, AbortKeepsTheOriginalError) {
  class FailingFlush : public Logger {
   public:
    void process_market_step_end_log(const MarketStepEndLog& log) override {
      if (log.market.get_time() == 2) throw SimulationError("step logger broke");
    }
    void flush() override { throw SimulationError("disk full"); }
  };
  FailingFlush logger;
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(Base(), Random(1), &logger, registry);
  runner.setup();
  try {
    runner.run();
    ADD_FAILURE() << "run() succeeded";
  } catch (const SimulationError& e) {
    EXPECT_STREQ(e.what(),
                 "step logger broke; then writing the outputs failed: disk full");
  }
}

// validate() reports every independent problem, once each, and skips what
// depends on a group it already reported.
TEST(RunnerTest, ValidateListsEveryProblem) {
  Json config = Base();
  config["FCNAgents"]["timeWindowSize"] = Json::parse("[200, 100]");
  Session0(config)["iterationSteps"] = -1;
  config["simulation"]["markets"].push_back("Missing");
  config["simulation"]["agents"].push_back("More");
  config["More"] = Json::parse(R"({"extends": "FCNAgents", "markets": ["Missing"]})");
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  SequentialRunner runner(config, Random(1), nullptr, registry);
  std::vector<std::string> got;
  for (const ConfigError& e : runner.validate()) got.push_back(e.what());
  EXPECT_EQ(got, (std::vector<std::string>{
                     "Missing: is listed in simulation.markets but there is no entry of that name",
                     "simulation.sessions[0].iterationSteps: must be >= 0, got -1",
                     "FCNAgents.timeWindowSize: expected [min, max] with min <= max, got [200, 100]",
                 }));
  SequentialRunner valid(Base(), Random(1), nullptr, registry);
  EXPECT_TRUE(valid.validate().empty());
}

// --- Seeding: PAMS's CI2002 sample, 3 + 3 steps, seed 42 ---

Json Ci2002ThreeSteps() {
  Json config = ParseJsonFile(std::string(PAMS_SOURCE_DIR) +
                              "/samples/CI2002/config.json");
  config["simulation"]["sessions"][0]["iterationSteps"] = 3;
  config["simulation"]["sessions"][1]["iterationSteps"] = 3;
  return config;
}

TEST(RunnerSeedingTest, Ci2002MatchesPams) {
  const ClassRegistry registry = ClassRegistry::WithBuiltins();
  MarketStepSaver saver;
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  MarketStepPrintLogger printer(out);
  Loggers loggers;
  loggers.add(&saver);
  loggers.add(&printer);
  SequentialRunner runner(Ci2002ThreeSteps(), Random(42), &loggers, registry);
  runner.setup();
  runner.run();

  // PAMS's MarketStepSaver records (market price as float.hex()).
  struct Line {
    int session_id;
    int64_t time;
    double market_price;
    double fundamental_price;
  };
  const Line want[] = {
      {0, 0, 300.0, 300.0},
      {0, 1, 300.0, 300.0},
      {0, 2, 300.0, 300.0},
      {1, 3, 0x1.1fef1b4784231p+8, 300.0},  // 287.93401
      {1, 4, 0x1.1f8501e2584f5p+8, 300.0},  // 287.51956
      {1, 5, 0x1.221acaff6d331p+8, 300.0},  // 290.10466
  };
  const auto& logs = saver.market_step_logs();
  ASSERT_EQ(logs.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    SCOPED_TRACE("line " + std::to_string(i));
    EXPECT_EQ(logs[i].session_id, want[i].session_id);
    EXPECT_EQ(logs[i].market_time, want[i].time);
    EXPECT_EQ(logs[i].market_id, 0);
    EXPECT_EQ(logs[i].market_name, "Market");
    EXPECT_EQ(logs[i].market_price, want[i].market_price);
    EXPECT_EQ(logs[i].fundamental_price, want[i].fundamental_price);
  }

  // What PAMS's MarketStepPrintLogger prints for the same run.
  std::fflush(out);
  std::rewind(out);
  std::string text;
  char buf[256];
  while (std::fgets(buf, sizeof buf, out) != nullptr) text += buf;
  std::fclose(out);
  EXPECT_EQ(text,
            "0 0 0 Market 300.0 300.0\n"
            "0 1 0 Market 300.0 300.0\n"
            "0 2 0 Market 300.0 300.0\n"
            "1 3 0 Market 287.93401 300.0\n"
            "1 4 0 Market 287.51956 300.0\n"
            "1 5 0 Market 290.10466 300.0\n");

  // The first agent's parameters, drawn in PAMS's order.
  const auto& agent =
      dynamic_cast<const FCNAgent&>(*runner.simulator().agents()[0]);
  EXPECT_EQ(agent.name(), "FCNAgents-0");
  EXPECT_EQ(agent.fundamental_weight(), 0x1.2609b4765c5b8p+0);
  EXPECT_EQ(agent.chart_weight(), 0.0);
  EXPECT_EQ(agent.noise_weight(), 0x1.036de6b537650p+0);
  EXPECT_EQ(agent.time_window_size(), 121);
  EXPECT_EQ(agent.order_margin(), 0x1.d541543ddd174p-8);
  EXPECT_EQ(agent.mean_reversion_time(), 75);
  EXPECT_EQ(agent.cash_amount(), 10000.0);
  EXPECT_EQ(agent.get_asset_volume(0), 50);

  // PAMS's books at the end: buy {284.0479: 1, 278.8777: 1},
  // sell {296.16142: 1, 296.99032: 1, 299.03667: 1, 306.13817: 1}.
  const Market& m = *runner.simulator().markets()[0];
  const auto buys = m.get_buy_order_book();
  const auto sells = m.get_sell_order_book();
  ASSERT_EQ(buys.size(), 2u);
  EXPECT_EQ(*buys[0].first, 284.0479);
  EXPECT_EQ(*buys[1].first, 278.8777);
  ASSERT_EQ(sells.size(), 4u);
  EXPECT_EQ(*sells[0].first, 296.16142);
  EXPECT_EQ(*sells[1].first, 296.99032);
  EXPECT_EQ(*sells[2].first, 299.03667);
  EXPECT_EQ(*sells[3].first, 306.13817);
}

// --- What agents submit ---

// An agent that submits one kind of (possibly invalid) action from step
// "fromStep" on, as configured by "mode".
class ScriptedAgent : public Agent {
 public:
  using Agent::Agent;
  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override {
    Agent::setup(settings, accessible_market_ids);
    mode_ = settings["mode"].as_string();
    if (auto from = settings.find("fromStep")) from_step_ = from->as_int();
  }
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    Script(agent_id(), mode_, from_step_, markets, orders);
  }

  static void Script(int id, const std::string& mode, int64_t from_step,
                     Markets markets, std::vector<Action>* orders) {
    if (markets[0]->get_time() < from_step) return;
    if (mode == "throw") throw std::runtime_error("boom");
    Order o = Order::Limit({.agent_id = id,
                            .market_id = 0,
                            .is_buy = true,
                            .price = 300.0,
                            .volume = 1,
                            .ttl = 5});
    if (mode == "spoof") o.agent_id = id + 1;
    if (mode == "zero_volume") o.volume = 0;
    if (mode == "negative_volume") o.volume = -3;
    if (mode == "zero_ttl") o.ttl = 0;
    if (mode == "negative_ttl") o.ttl = -2;
    if (mode == "nan_price") o.price = std::numeric_limits<double>::quiet_NaN();
    if (mode == "inf_price") o.price = std::numeric_limits<double>::infinity();
    if (mode == "huge_price") o.price = 1e300;
    if (mode == "no_price") o.price.reset();
    if (mode == "market_with_price") o.kind = OrderKind::kMarket;
    if (mode == "bad_market") o.market_id = 7;
    if (mode == "placed") {
      o.order_id = 0;
      o.placed_at = 0;
    }
    if (mode == "placed_executed") {  // submitted again once fully executed
      o.order_id = 0;
      o.placed_at = 0;
      o.volume = 0;
    }
    if (mode == "spoof_cancel") {
      Order other = o;
      other.agent_id = id + 1;
      other.order_id = 0;
      other.placed_at = 0;
      orders->push_back(Cancel{other});
      return;
    }
    if (mode == "bad_same_batch") {
      // Refers to itself, not to an earlier order.
      orders->push_back(Cancel{.order = o, .same_batch_order = 0});
      return;
    }
    orders->push_back(o);
    if (mode == "same_batch_cancel") {
      Order unplaced;
      unplaced.agent_id = id;
      unplaced.market_id = 0;
      orders->push_back(Cancel{.order = unplaced, .same_batch_order = 0});
    }
  }

 private:
  std::string mode_;
  int64_t from_step_ = 0;
};

class ScriptedHighFrequencyAgent : public HighFrequencyAgent {
 public:
  using HighFrequencyAgent::HighFrequencyAgent;
  void setup(const Settings& settings,
             std::span<const int> accessible_market_ids) override {
    Agent::setup(settings, accessible_market_ids);
    mode_ = settings["mode"].as_string();
  }
  void submit_orders(Markets markets, std::vector<Action>* orders) override {
    ScriptedAgent::Script(agent_id(), mode_, 0, markets, orders);
  }

 private:
  std::string mode_;
};

ClassRegistry ScriptedRegistry() {
  ClassRegistry r = ClassRegistry::WithBuiltins();
  r.add_agent<ScriptedAgent>("ScriptedAgent");
  r.add_agent<ScriptedHighFrequencyAgent>("ScriptedHighFrequencyAgent");
  return r;
}

// The base config plus one scripted agent group "Bad".
Json WithScripted(const std::string& cls, const std::string& mode,
                  int64_t from_step = 0) {
  Json config = Base();
  config["simulation"]["agents"] = Json::array({"FCNAgents", "Bad"});
  config["Bad"] = Json::parse(R"({"markets": ["Market"], "assetVolume": 10,
                                  "cashAmount": 100})");
  config["Bad"]["class"] = cls;
  config["Bad"]["mode"] = mode;
  config["Bad"]["fromStep"] = from_step;
  // Ask every normal agent each step, so that the scripted one is asked.
  Session0(config)["maxNormalOrders"] = 10;
  return config;
}

// Runs the config; returns the SimulationError message of run().
std::string RunError(const Json& config, const ClassRegistry& registry) {
  SequentialRunner runner(config, Random(3), nullptr, registry);
  runner.setup();
  try {
    runner.run();
  } catch (const SimulationError& e) {
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not a SimulationError: " << e.what();
    return e.what();
  }
  ADD_FAILURE() << "run() succeeded";
  return "";
}

bool Contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(RunnerAgentTest, AnAgentThatThrowsIsNamedWithTheStep) {
  const ClassRegistry registry = ScriptedRegistry();
  const std::string msg =
      RunError(WithScripted("ScriptedAgent", "throw", 2), registry);
  EXPECT_TRUE(Contains(msg, "agent Bad")) << msg;
  EXPECT_TRUE(Contains(msg, "ScriptedAgent")) << msg;
  EXPECT_TRUE(Contains(msg, "at step 2")) << msg;
  EXPECT_TRUE(Contains(msg, "boom")) << msg;
}

TEST(RunnerAgentTest, InvalidActionsAreRefused) {
  const ClassRegistry registry = ScriptedRegistry();
  struct Case {
    const char* mode;
    const char* part;
  } cases[] = {
      {"spoof", "spoofing"},
      {"spoof_cancel", "spoofing"},
      {"zero_volume", "volume"},
      {"negative_volume", "volume"},
      {"zero_ttl", "ttl"},
      {"negative_ttl", "ttl"},
      {"nan_price", "finite price"},
      {"inf_price", "finite price"},
      {"huge_price", "more than 9.2e18 ticks"},
      {"no_price", "finite price"},
      {"market_with_price", "market order"},
      {"bad_market", "market"},
      {"placed", "already placed"},
      {"placed_executed", "already placed"},
      {"bad_same_batch", "same_batch_order"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.mode);
    for (const char* cls : {"ScriptedAgent", "ScriptedHighFrequencyAgent"}) {
      SCOPED_TRACE(cls);
      const std::string msg = RunError(WithScripted(cls, c.mode, 1), registry);
      EXPECT_TRUE(Contains(msg, "agent Bad")) << msg;
      EXPECT_TRUE(Contains(msg, "at step ")) << msg;
      EXPECT_TRUE(Contains(msg, c.part)) << msg;
    }
  }
}

// Records the order and cancel logs.
class ActionLogger : public Logger {
 public:
  void process_order_log(const OrderLog& log) override { orders.push_back(log); }
  void process_cancel_log(const CancelLog& log) override { cancels.push_back(log); }
  std::vector<OrderLog> orders;
  std::vector<CancelLog> cancels;
};

TEST(RunnerAgentTest, ACancelOfAnOrderOfTheSameBatchCancelsThatOrder) {
  const ClassRegistry registry = ScriptedRegistry();
  ActionLogger logger;
  SequentialRunner runner(WithScripted("ScriptedAgent", "same_batch_cancel"), Random(3),
                          &logger, registry);
  runner.setup();
  runner.run();
  const int bad = runner.simulator().agents().back()->agent_id();
  int n_cancels = 0;
  for (const CancelLog& c : logger.cancels) {
    ASSERT_EQ(c.agent_id, bad);
    // Its order: the agent's order placed just before, in the same step.
    const OrderLog* placed = nullptr;
    for (const OrderLog& o : logger.orders) {
      if (o.agent_id == bad && o.order_id == c.order_id) placed = &o;
    }
    ASSERT_NE(placed, nullptr);
    EXPECT_EQ(c.order_time, placed->time);
    EXPECT_EQ(c.cancel_time, placed->time);
    EXPECT_EQ(c.price, placed->price);
    // Resting (volume 1) or executed at once (PAMS shows volume 0 then).
    EXPECT_TRUE(c.volume == 1 || c.volume == 0) << c.volume;
    ++n_cancels;
  }
  EXPECT_GT(n_cancels, 0);
  // None of its orders is left in the book.
  for (const auto& [price, volume] : runner.simulator().markets()[0]->get_buy_order_book()) {
    EXPECT_NE(price, std::optional<double>(300.0));
  }
}

TEST(RunnerAgentTest, AgentsAreNotAskedWithoutOrderPlacement) {
  const ClassRegistry registry = ScriptedRegistry();
  Json config = WithScripted("ScriptedAgent", "valid");
  Session0(config)["withOrderPlacement"] = false;
  // Without order placement agents are not asked at all (PAMS too).
  SequentialRunner runner(config, Random(3), nullptr, registry);
  runner.setup();
  EXPECT_NO_THROW(runner.run());
}

TEST(RunnerAgentTest, ValidScriptedOrdersRun) {
  const ClassRegistry registry = ScriptedRegistry();
  for (const char* cls : {"ScriptedAgent", "ScriptedHighFrequencyAgent"}) {
    SequentialRunner runner(WithScripted(cls, "valid"), Random(3), nullptr,
                            registry);
    runner.setup();
    EXPECT_NO_THROW(runner.run()) << cls;
  }
}

}  // namespace
}  // namespace pams

namespace pams {
namespace {

// The version plugins are told about is the project's.
TEST(VersionTest, MatchesTheProjectVersion) {
  EXPECT_STREQ(kVersion, PAMS_PROJECT_VERSION);
}

}  // namespace
}  // namespace pams

namespace pams {
namespace {

// Loggers::flush flushes every logger, also after one failed, and then
// reports the first failure.
TEST(LoggersTest, FlushReachesEveryLogger) {
  struct Counting : Logger {
    int flushes = 0;
    const char* fails_with = nullptr;
    void flush() override {
      ++flushes;
      if (fails_with != nullptr) throw SimulationError(fails_with);
    }
  };
  Counting a, b, c;
  a.fails_with = "first";
  b.fails_with = "second";
  Loggers all;
  all.add(&a);
  all.add(&b);
  all.add(&c);
  try {
    all.flush();
    ADD_FAILURE() << "no error";
  } catch (const SimulationError& e) {
    EXPECT_STREQ(e.what(), "first");
  }
  EXPECT_EQ(a.flushes + b.flushes + c.flushes, 3);
}


// Every runner's "simulation" keys are known to every runner (a config
// written for one runs with another), including those a program declares
// for a runner of its own; other keys are still reported as unread.
TEST(RunnerTest, RunnersKeysAreNotWarnedAboutUnderAnotherRunner) {
  ClassRegistry registry = ClassRegistry::WithBuiltins();
  const std::vector<std::string> keys = registry.runner_simulation_keys();
  for (const char* key : {"numParallel", "startMethod", "workerNice", "workerCpuAffinity"}) {
    EXPECT_NE(std::find(keys.begin(), keys.end(), key), keys.end()) << key;
  }
  registry.add_runner<SequentialRunner>("TorchLikeRunner");
  registry.declare_simulation_keys("TorchLikeRunner", {"torchNumThreads"});
  EXPECT_THROW(registry.declare_simulation_keys("FCNAgent", {"x"}), std::logic_error);

  Json config = Base();
  config["simulation"]["numParallel"] = 2;
  config["simulation"]["workerNice"] = 2;
  config["simulation"]["torchNumThreads"] = 2;
  config["simulation"]["numParalel"] = 2;
  SequentialRunner runner(config, Random(1), nullptr, registry);
  std::vector<std::string> warnings;
  runner.simulator().set_warning_handler(
      [&](std::string_view w) { warnings.emplace_back(w); });
  runner.setup();
  runner.run();
  std::vector<std::string> unread;
  for (const std::string& w : warnings) {
    if (w.find("no class reads this key") != std::string::npos) unread.push_back(w);
  }
  ASSERT_EQ(unread.size(), 1u);
  EXPECT_NE(unread[0].find("simulation.numParalel"), std::string::npos) << unread[0];
}

}  // namespace
}  // namespace pams
