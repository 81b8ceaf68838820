"""EngineRandom (the random.Random that pams_cpp gives agents, markets and
events) draws what random.Random draws, for every method, seed and
interleaving, and its state is random.Random's."""
import pickle
import random

import pytest

from pams_cpp._random import EngineRandom

SEEDS = [0, 1, 42, 2**31, 2**32 + 7, 2**64 + 11, -5, 123456789012345678901234567890,
         "abc", b"bytes", bytearray(b"ba"), 3.5]


def draws(r):
    """A long mixed sequence of every method that draws."""
    out = []
    for i in range(40):
        out.append(r.random())
        out.append(r.getrandbits(1 + i % 70))
        out.append(r.getrandbits(200))
        out.append(r.randint(-10, 10**(1 + i % 25)))
        out.append(r.randrange(3, 1000, 7))
        out.append(r.choice("abcdefghij"))
        out.append(r.choices(range(10), weights=range(1, 11), k=3))
        out.append(r.choices(range(10), k=2))
        out.append(r.sample(range(100), 5))
        seq = list(range(12))
        r.shuffle(seq)
        out.append(seq)
        out.append(r.uniform(-1.5, 2.5))
        out.append(r.gauss(1.0, 2.0))  # the cached value alternates
        out.append(r.normalvariate(0.0, 1.0))
        out.append(r.lognormvariate(0.0, 0.5))
        out.append(r.expovariate(1.5))
        out.append(r.vonmisesvariate(1.0, 2.0))
        out.append(r.gammavariate(2.0, 1.5))
        out.append(r.betavariate(2.0, 3.0))
        out.append(r.paretovariate(2.5))
        out.append(r.weibullvariate(1.0, 1.5))
        out.append(r.triangular(0.0, 1.0, 0.3))
        out.append(r.randbytes(1 + i % 9))
    return out


@pytest.mark.parametrize("seed", SEEDS, ids=repr)
def test_same_draws_as_random(seed):
    ours, theirs = EngineRandom(seed), random.Random(seed)
    assert isinstance(ours, random.Random)
    assert draws(ours) == draws(theirs)
    assert ours.getstate() == theirs.getstate()


def test_state_moves_between_them():
    theirs = random.Random(7)
    theirs.gauss(0, 1)  # a cached second value in the state
    ours = EngineRandom()
    ours.setstate(theirs.getstate())
    assert draws(ours) == draws(theirs)
    back = random.Random()
    back.setstate(ours.getstate())
    assert back.random() == theirs.random()
    with pytest.raises((ValueError, TypeError)):
        ours.setstate((3, (1, 2, 3), None))


def test_seed_versions_and_reseeding():
    for version in (1, 2):
        ours, theirs = EngineRandom(), random.Random()
        ours.seed("seed text", version=version)
        theirs.seed("seed text", version=version)
        assert ours.random() == theirs.random()
    ours = EngineRandom(5)
    ours.random()
    ours.seed(5)
    assert ours.random() == random.Random(5).random()
    assert EngineRandom(None).random() != EngineRandom(None).random()


def test_pickle_copies_the_state():
    ours = EngineRandom(11)
    ours.random()
    copy = pickle.loads(pickle.dumps(ours))
    assert isinstance(copy, EngineRandom)
    assert copy.random() == ours.random()
