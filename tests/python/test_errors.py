"""Bad input from Python: every bad config of tests/bad_configs raises a
ValueError (pams_cpp.ConfigError) whose message is the CLI's (but for how
to add a class); values that
JSON cannot hold are named by key path; Ctrl-C stops a run with
KeyboardInterrupt and leaves the interpreter usable; the engine's warnings
are Python warnings; an error in a Python agent carries the user's
traceback and names the agent and the step."""
import glob
import json
import os
import random
import re
import signal
import subprocess
import sys
import textwrap
import warnings

import pytest

import pams_cpp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BAD = os.path.join(ROOT, "tests", "bad_configs")
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")


@pytest.mark.parametrize("config", sorted(os.path.basename(p)
                                          for p in glob.glob(os.path.join(BAD, "*.json"))))
def test_bad_configs_raise_the_cli_message(config, monkeypatch):
    monkeypatch.chdir(BAD)  # the CLI's messages name the file as given
    with open(config[: -len(".json")] + ".expected", encoding="utf-8") as f:
        # Python adds classes its own way.
        expected = f.read().strip().replace(
            "a plugin loaded with --plugin can add classes",
            "register a class of your own with runner.class_register(cls) before main()")
    with pytest.raises(ValueError) as raised:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pams_cpp.SequentialRunner(settings=config, prng=random.Random(1)).main()
    assert isinstance(raised.value, pams_cpp.ConfigError)
    assert str(raised.value) == expected


def test_values_json_cannot_hold_are_named():
    import json
    with open(CI2002) as f:
        config = json.load(f)
    for bad, message in ((float("nan"), "is not a JSON number"), (object(), "expected a JSON value"),
                         (2**70, "does not fit in 64 bits")):
        config["FCNAgents"]["noiseScale"] = bad
        with pytest.raises(pams_cpp.ConfigError) as raised:
            pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
        assert raised.value.path == "FCNAgents.noiseScale"
        assert message in str(raised.value)


def test_warnings_are_python_warnings():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pams_cpp.SequentialRunner(settings=CI2002, prng=random.Random(1)).main()
    messages = [str(w.message) for w in caught]
    assert "hifreqSubmitRate is replaced to highFrequencySubmitRate in pams." in messages
    # A warning turned into an error stops the run with it.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(UserWarning):
            pams_cpp.SequentialRunner(settings=CI2002, prng=random.Random(1)).main()


@pytest.mark.parametrize("agent_class", ["FCNAgent", "PythonFCNAgent"])
def test_ctrl_c_stops_a_run_and_the_interpreter_goes_on(agent_class):
    # PythonFCNAgent: the interrupt also arrives while Python code runs.
    script = textwrap.dedent(f"""
        import json, random, sys, time
        import pams_cpp

        class PythonFCNAgent(pams_cpp.agents.FCNAgent):
            def submit_orders(self, markets):
                return super().submit_orders(markets)

        config = json.load(open({CI2002!r}))
        config["simulation"]["sessions"][1]["iterationSteps"] = 10**9
        config["FCNAgents"]["class"] = {agent_class!r}
        runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
        runner.class_register(PythonFCNAgent)
        print("running", flush=True)
        start = time.monotonic()
        try:
            runner.main()
        except KeyboardInterrupt:
            print("interrupted after", round(time.monotonic() - start, 1), flush=True)
        saver = pams_cpp.logs.MarketStepSaver()
        pams_cpp.SequentialRunner(settings={CI2002!r}, prng=random.Random(1), logger=saver).main()
        print("usable", len(saver.market_step_logs))
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "running"
    import time
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "interrupted after" in out and "usable 600" in out, (out, err)


def test_importing_loads_no_machine_learning_library():
    script = ("import sys, pams_cpp\n"
              "maps = open('/proc/self/maps').read()\n"
              "bad = [m for m in ('tensorflow', 'torch', 'jax') if m in sys.modules or m in maps]\n"
              "print(bad)")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


class FailingAgent(pams_cpp.agents.FCNAgent):
    def submit_orders(self, markets):
        if markets[0].get_time() >= 120:
            raise RuntimeError("the user's own error")
        return super().submit_orders(markets)


def test_an_error_in_a_python_agent_has_the_users_traceback_and_names_agent_and_step():
    import traceback

    config = json.loads(open(CI2002).read())
    config["FCNAgents"]["class"] = "FailingAgent"
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(FailingAgent)
    with pytest.raises(RuntimeError, match="the user's own error") as info:
        runner.main()
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].name == "submit_orders" and frames[-1].filename == __file__
    assert "raise RuntimeError" in frames[-1].line
    (note,) = info.value.__notes__
    assert re.fullmatch(r"in submit_orders of agent FCNAgents-\d+ \(FailingAgent\) at step 120",
                        note), note


@pytest.mark.parametrize("returned, message", [
    ("[1]", "submit_orders must return Order and Cancel objects, got int"),
    ("[Cancel(order=Order(agent_id=self.agent_id, market_id=0, is_buy=True,"
     " kind=LIMIT_ORDER, volume=1, price=300.0))]", "the order to cancel was not submitted"),
    ("[Order(agent_id=self.agent_id + 1, market_id=0, is_buy=True, kind=MARKET_ORDER,"
     " volume=1)]", "spoofing order is not allowed"),
    ("[Order(agent_id=self.agent_id, market_id=0, is_buy=True, kind=MARKET_ORDER,"
     " volume=1.0)]", "an order's volume must be an int, got 1.0"),
])
def test_bad_orders_of_a_python_agent_are_named(returned, message):
    namespace = {"Order": pams_cpp.Order, "Cancel": pams_cpp.Cancel,
                 "LIMIT_ORDER": pams_cpp.LIMIT_ORDER, "MARKET_ORDER": pams_cpp.MARKET_ORDER}
    exec(textwrap.dedent(f"""
        class BadOrders(pams_cpp.agents.Agent):
            def submit_orders(self, markets):
                return {returned}
    """), {"pams_cpp": pams_cpp, **namespace}, namespace)
    config = json.loads(open(CI2002).read())
    config["FCNAgents"]["class"] = "BadOrders"
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(namespace["BadOrders"])
    with pytest.raises(pams_cpp.SimulationError, match=re.escape(message)) as info:
        runner.main()
    assert re.search(r"agent FCNAgents-\d+ \(BadOrders\)", str(info.value))


def test_python_classes_that_cannot_run_say_why():
    class NoOrders(pams_cpp.agents.Agent):
        pass

    config = json.loads(open(CI2002).read())
    config["FCNAgents"]["class"] = "NoOrders"
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(NoOrders)
    with pytest.raises(TypeError, match="abstract") as info:
        runner.main()
    assert info.value.__notes__ == ["creating agent FCNAgents-0 (NoOrders)"]
    with pytest.raises(TypeError, match="takes a class"):
        runner.class_register(42)
    # Any class is kept, as PAMS keeps it (find_class looks there); a config
    # naming one that is no agent, market or event is refused by name.
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(dict)
    assert dict in runner.registered_classes
    config["FCNAgents"]["class"] = "dict"
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(dict)
    with pytest.raises(pams_cpp.ConfigError, match="FCNAgents.class"):
        runner.main()


def test_a_runner_with_python_agents_is_collected():
    import gc
    import weakref

    config = json.loads(open(CI2002).read())
    config["FCNAgents"]["class"] = "FailingAgent"
    config["simulation"]["sessions"][1]["iterationSteps"] = 10
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(FailingAgent)
    runner.main()
    agent = weakref.ref(runner.simulator.agents[0])
    del runner
    gc.collect()
    assert agent() is None


class FailingEvent(pams_cpp.events.EventABC):
    def hook_registration(self):
        return [pams_cpp.events.EventHook(event=self, hook_type="market", is_before=False,
                                          time=[130])]

    def hooked_after_step_for_market(self, simulator, market):
        raise KeyError("the event's own error")


def test_an_error_in_a_python_event_names_event_and_step():
    config = json.loads(open(CI2002).read())
    config["Failing"] = {"class": "FailingEvent"}
    config["simulation"]["sessions"][1]["events"] = ["Failing"]
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(FailingEvent)
    with pytest.raises(KeyError, match="the event's own error") as info:
        runner.main()
    assert info.value.__notes__ == [
        "in hooked_after_step_for_market of event Failing (FailingEvent) at step 130"]


def test_bad_event_hooks_are_named():
    class BadHooks(pams_cpp.events.EventABC):
        def hook_registration(self):
            return [pams_cpp.events.EventHook(event=self, hook_type="market", is_before=True,
                                              time=["soon"])]

    config = json.loads(open(CI2002).read())
    config["Bad"] = {"class": "BadHooks"}
    config["simulation"]["sessions"][1]["events"] = ["Bad"]
    runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
    runner.class_register(BadHooks)
    with pytest.raises(pams_cpp.ConfigError, match=r"event Bad \(BadHooks\): "
                                                   "hook_registration gave a value of the "
                                                   "wrong type"):
        runner.main()
