"""Keras agents written the seed's way, for bench/keras_seed_bench.py: a
module-level functools.lru_cache function loads the model once per
process, and submit_orders calls it eagerly on one row built from the
market's last prices (``model(x, training=False)``). ``GraphKerasAgent``
calls the same model through a tf.function instead."""
import functools

import pams_cpp
from pams_cpp.order import LIMIT_ORDER
from pams_cpp.order import Order

# The model's input: the last FEATURES prices relative to the current one.
FEATURES = 64


def make_model(path, hidden=(512, 512)):
    """A deterministic MLP FEATURES -> hidden... -> 1, saved to path (about
    300k parameters with the default)."""
    import keras
    import numpy as np

    keras.utils.set_random_seed(0)
    layers = [keras.Input(shape=(FEATURES,))]
    layers += [keras.layers.Dense(h, activation="relu") for h in hidden]
    layers += [keras.layers.Dense(1, activation="tanh")]
    model = keras.Sequential(layers)
    model(np.zeros((1, FEATURES), dtype="float32"))
    model.save(path)


@functools.lru_cache(maxsize=None)
def load_model(path):
    import keras

    return keras.models.load_model(path)


@functools.lru_cache(maxsize=None)
def load_graph(path):
    import tensorflow as tf

    model = load_model(path)
    return tf.function(lambda x: model(x, training=False))


class KerasAgent(pams_cpp.agents.Agent):
    """Asks its model for the order's price, relative to the market price."""

    def setup(self, settings, accessible_markets_ids, *args, **kwargs):
        super().setup(settings=settings, accessible_markets_ids=accessible_markets_ids)
        self.model_path = settings["modelPath"]

    def features(self, market):
        import numpy as np

        now = market.get_time()
        price = market.get_market_price()
        row = [market.get_market_price(max(0, now - k)) / price - 1.0 for k in range(FEATURES)]
        return np.array([row], dtype="float32")

    def call_model(self, x):
        return load_model(self.model_path)(x, training=False)

    def order(self, market, y):
        is_buy = self.prng.random() < 0.5
        price = market.get_market_price() * (1.0 + 0.01 * float(y) + (-0.01 if is_buy else 0.01))
        return [Order(agent_id=self.agent_id, market_id=market.market_id, is_buy=is_buy,
                      kind=LIMIT_ORDER, volume=1, price=price, ttl=20)]

    def submit_orders(self, markets):
        market = markets[0]
        y = float(self.call_model(self.features(market)).numpy()[0, 0])
        return self.order(market, y)


class GraphKerasAgent(KerasAgent):
    """The same model, called through a tf.function (a graph)."""

    def call_model(self, x):
        return load_graph(self.model_path)(x)


def config(model_path, agent_class, keras_agents=12, fcn_agents=20, steps=200,
           max_normal_orders=4):
    """One market; fcn_agents FCNAgents and keras_agents agents of
    agent_class; a 30-step session (maxNormalOrders 1) then `steps` steps
    at max_normal_orders."""
    normal = ["FCNAgents", "KerasAgents"] if fcn_agents else ["KerasAgents"]
    c = {
        "simulation": {
            "markets": ["Market"],
            "agents": normal,
            "sessions": [
                {"sessionName": 0, "iterationSteps": 30, "withOrderPlacement": True,
                 "withOrderExecution": False, "withPrint": False, "maxNormalOrders": 1},
                {"sessionName": 1, "iterationSteps": steps, "withOrderPlacement": True,
                 "withOrderExecution": True, "withPrint": False,
                 "maxNormalOrders": max_normal_orders},
            ],
        },
        "Market": {"class": "Market", "tickSize": 0.00001, "marketPrice": 300.0,
                   "outstandingShares": 25000},
        "FCNAgents": {"class": "FCNAgent", "numAgents": max(fcn_agents, 1),
                      "markets": ["Market"], "assetVolume": 50, "cashAmount": 10000,
                      "fundamentalWeight": {"expon": [1.0]},
                      "chartWeight": {"expon": [0.0]}, "noiseWeight": {"expon": [1.0]},
                      "noiseScale": 0.001, "timeWindowSize": [100, 200],
                      "orderMargin": [0.0, 0.1]},
        "KerasAgents": {"class": agent_class, "numAgents": keras_agents,
                        "markets": ["Market"], "assetVolume": 50, "cashAmount": 10000,
                        "modelPath": model_path},
    }
    if not fcn_agents:
        del c["FCNAgents"]
    return c


def classes():
    return [KerasAgent, GraphKerasAgent]
