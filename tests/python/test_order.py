"""pams_cpp.order's Order and Cancel against PAMS's: their fields live in
__slots__ (the engine reads and writes them there), yet vars(), pickling
and copying see what PAMS's plain objects show; and an Order subclass
that makes a field a property is read and written through it."""
import copy
import pickle
import random
import warnings

import pams
import pytest

import pams_cpp


def make_order(pkg, **changes):
    fields = dict(agent_id=3, market_id=0, is_buy=True, kind=pkg.LIMIT_ORDER, volume=2,
                  price=100.5, ttl=4)
    fields.update(changes)
    return pkg.Order(**fields)


def plain(fields):
    """A dict of vars() with the kinds as their ids (the two packages'
    OrderKind objects differ)."""
    return {k: (v.kind_id if k == "kind" else v) for k, v in fields.items()}


def test_vars_of_an_order_and_a_cancel_are_pams_dicts():
    for pkg in (pams, pams_cpp):
        order = make_order(pkg)
        order.note = "mine"
        cancel = pkg.Cancel(order=order)
        if pkg is pams:
            theirs = (plain(vars(order)), list(vars(cancel)))
        else:
            ours = (plain(vars(order)), list(vars(cancel)))
    assert ours == theirs
    assert list(ours[0]) == ["agent_id", "market_id", "is_buy", "kind", "volume",
                             "placed_at", "price", "order_id", "ttl", "is_canceled", "note"]


def test_changes_through_vars_are_the_orders():
    order = make_order(pams_cpp)
    fields = vars(order)
    fields["price"] = 101.0
    fields.update(volume=5, extra=1)
    assert (order.price, order.volume, order.extra) == (101.0, 5, 1)
    del fields["extra"]
    assert not hasattr(order, "extra") and "extra" not in vars(order)
    assert fields.setdefault("volume", 9) == 5 and fields.pop("missing", None) is None
    fields |= {"ttl": 8}
    order.extra = 2
    assert order.ttl == 8 and vars(order).popitem() == ("extra", 2) and not hasattr(order, "extra")
    assert order.__dict__ == vars(order)


@pytest.mark.parametrize("protocol", range(pickle.HIGHEST_PROTOCOL + 1))
def test_orders_and_cancels_pickle_and_copy_with_every_field(protocol):
    order = make_order(pams_cpp)
    order.note = [1, 2]
    cancel = pams_cpp.Cancel(order=order)
    back = pickle.loads(pickle.dumps(cancel, protocol))
    assert vars(back.order) == vars(order) and back.placed_at is None
    for copied in (copy.copy(order), copy.deepcopy(order)):
        assert copied is not order and vars(copied) == vars(order)
    assert copy.deepcopy(order).note is not order.note


class LoggedPriceOrder(pams_cpp.Order):
    """Keeps the prices it was given: a field made a property."""

    @property
    def price(self):
        return self.prices[-1]

    @price.setter
    def price(self, value):
        vars(self).setdefault("prices", []).append(value)


def test_an_order_subclass_is_read_and_written_through_its_properties():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sim = pams_cpp.Simulator(prng=random.Random(1))
        market = pams_cpp.Market(market_id=0, prng=random.Random(1), simulator=sim, name="m")
        sim._add_market(market=market)
        market.setup(settings={"tickSize": 0.3, "marketPrice": 300.0})
        market._update_time(next_fundamental_price=300.0)
        order = LoggedPriceOrder(agent_id=0, market_id=0, is_buy=True,
                                 kind=pams_cpp.LIMIT_ORDER, volume=1, price=100.0)
        order.price = 100.1  # what the market reads
        log = market._add_order(order)
    # The market moved the price onto its tick grid, through the setter.
    assert order.prices == [100.0, 100.1, log.price] and log.price == pytest.approx(99.9)
    assert order.order_id == log.order_id and vars(order)["price"] == log.price
