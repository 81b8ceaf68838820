"""Bad input from Python: every bad config of tests/bad_configs raises a
ValueError (pams_cpp.ConfigError) whose message is the CLI's; values that
JSON cannot hold are named by key path; Ctrl-C stops a run with
KeyboardInterrupt and leaves the interpreter usable; the engine's warnings
are Python warnings."""
import glob
import os
import random
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
        expected = f.read().strip()
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


def test_ctrl_c_stops_a_run_and_the_interpreter_goes_on():
    script = textwrap.dedent(f"""
        import json, random, sys, time
        import pams_cpp
        config = json.load(open({CI2002!r}))
        config["simulation"]["sessions"][1]["iterationSteps"] = 10**9
        runner = pams_cpp.SequentialRunner(settings=config, prng=random.Random(1))
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
