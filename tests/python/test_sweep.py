"""pams_cpp.sweep: the CLI's sweep from Python, on any executor.

The same grid x seeds sweep through `pams sweep` and through pams_cpp.sweep
in this process, on a ProcessPoolExecutor and on a dask.distributed
LocalCluster of worker processes: the summary's text is the CLI's
summary.csv byte for byte, and the DataFrames are equal. Bad input is
refused before any run, naming what is wrong.
"""
import concurrent.futures
import io
import json
import os
import subprocess

import pandas
import pytest

import pams_cpp

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
CLI = os.environ.get("PAMS_CLI", os.path.join(ROOT, "build", "bin", "pams"))
SHORT = {"simulation.sessions[1].iterationSteps": 100}
GRID = {"FCNAgents.fundamentalWeight": [0.5, 1.0], "FCNAgents.chartWeight": [0.0, 2.0]}
SEEDS = "1-3"


@pytest.fixture(scope="module")
def cli_summary(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli") / "sweep"
    cmd = [CLI, "sweep", CI2002, "--seeds", SEEDS, "--quiet", "--out", str(out)]
    for key, value in SHORT.items():
        cmd += ["--set", f"{key}={json.dumps(value)}"]
    for key, values in GRID.items():
        cmd += ["--grid", f"{key}={json.dumps(values)}"]
    subprocess.run(cmd, check=True, capture_output=True)
    with open(out / "summary.csv", newline="") as f:
        return f.read()


def check_same(frame, text, cli_summary):
    assert text == cli_summary
    expected = pandas.read_csv(io.StringIO(cli_summary), keep_default_na=False,
                               na_values=["nan"])
    pandas.testing.assert_frame_equal(frame, expected, check_exact=True)
    assert list(frame.columns[:3]) == ["FCNAgents.fundamentalWeight",
                                       "FCNAgents.chartWeight", "seed"]
    assert len(frame) == 4 * 3


def test_in_this_process(cli_summary, tmp_path):
    path = tmp_path / "summary.csv"
    frame = pams_cpp.sweep(CI2002, seeds=SEEDS, grid=GRID, sets=SHORT, summary_csv=path)
    check_same(frame, path.read_text(), cli_summary)


def test_process_pool(cli_summary, tmp_path):
    path = tmp_path / "summary.csv"
    with concurrent.futures.ProcessPoolExecutor(2) as pool:
        frame = pams_cpp.sweep(CI2002, seeds=[1, 2, 3], grid=GRID, sets=SHORT,
                               executor=pool, summary_csv=path)
    check_same(frame, path.read_text(), cli_summary)


def test_dask_local_cluster(cli_summary, tmp_path):
    distributed = pytest.importorskip("distributed")
    path = tmp_path / "summary.csv"
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        frame = pams_cpp.sweep(CI2002, seeds=SEEDS, grid=GRID, sets=SHORT,
                               executor=client.get_executor(), summary_csv=path)
        # The runs were the workers' (their own processes), not this one's.
        workers = client.run(os.getpid)
    assert os.getpid() not in workers.values() and len(workers) == 2
    check_same(frame, path.read_text(), cli_summary)


def test_no_grid_is_the_cli_sweep_of_seeds(tmp_path):
    out = tmp_path / "cli"
    subprocess.run([CLI, "sweep", CI2002, "--seeds", "4,7", "--quiet", "--set",
                    "simulation.sessions[1].iterationSteps=50", "--out", str(out)],
                   check=True, capture_output=True)
    path = tmp_path / "summary.csv"
    with open(CI2002) as f:
        config = json.load(f)
    config["simulation"]["sessions"][1]["iterationSteps"] = 50
    frame = pams_cpp.sweep(config, seeds=[4, 7], summary_csv=path)
    assert path.read_text() == (out / "summary.csv").read_text()
    assert list(frame["seed"]) == [4, 7] and frame.columns[0] == "seed"


@pytest.mark.parametrize("kwargs, message", [
    ({"seeds": "1-x"}, "seeds: expected seeds"),
    ({"seeds": [1, 1]}, "a seed is given twice"),
    ({"seeds": [-1]}, "non-negative"),
    ({"seeds": [1], "grid": {"FCNAgents.chartWeight": []}}, "grid FCNAgents.chartWeight"),
    ({"seeds": [1], "grid": {"FCNAgents.chartWeight": [1, 1]}}, "given twice"),
    ({"seeds": [1], "grid": {"Nope.x": [1]}}, '"Nope" does not exist'),
    ({"seeds": [1], "grid": {"FCNAgents.timeWindowSize": [[100, 200], [100]]}},
     "grid point 1 (FCNAgents.timeWindowSize=[100])"),
    ({"seeds": [1], "sets": {"simulation.sessions[7].iterationSteps": 1}}, "has no element 7"),
    ({"seeds": [1], "grid": {"FCNAgents.chartWeight": [1]},
      "sets": {"FCNAgents.chartWeight": 2}}, "also in sets"),
])
def test_bad_input_is_refused_before_any_run(kwargs, message):
    with pytest.raises(pams_cpp.ConfigError) as error:
        pams_cpp.sweep(CI2002, **kwargs)
    assert message in str(error.value)


def test_bad_executor_and_config():
    with pytest.raises(TypeError, match="executor"):
        pams_cpp.sweep(CI2002, seeds=[1], executor=object())
    with pytest.raises(pams_cpp.ConfigError, match="/nonexistent.json"):
        pams_cpp.sweep("/nonexistent.json", seeds=[1])
    with pytest.raises(TypeError, match="config must be"):
        pams_cpp.sweep(42, seeds=[1])


# The plan is the engine's (the sweep core that pams sweep uses): the same
# input is refused with the CLI's message, naming the Python argument where
# the CLI names its flag.
CLI_NAMES = (("--seeds", "seeds"), ("--grid", "grid"), ("--set", "sets"))


@pytest.mark.parametrize("flags, kwargs", [
    (["--seeds", "1,2,1"], {"seeds": "1,2,1"}),
    (["--seeds", "1,2,1"], {"seeds": [1, 2, 1]}),
    (["--seeds", "5-1"], {"seeds": "5-1"}),
    (["--seeds", "1,,2"], {"seeds": "1,,2"}),
    (["--seeds", "0-1000000"], {"seeds": range(1000001)}),
    (["--seeds", "1-1000", "--grid", "FCNAgents.chartWeight=" + json.dumps(list(range(1001)))],
     {"seeds": "1-1000", "grid": {"FCNAgents.chartWeight": list(range(1001))}}),
    (["--seeds", "1", "--grid", "FCNAgents.chartWeight=[1, 1.0]"],
     {"seeds": [1], "grid": {"FCNAgents.chartWeight": [1, 1.0]}}),
    (["--seeds", "1", "--grid", "FCNAgents.chartWeight=7"],
     {"seeds": [1], "grid": {"FCNAgents.chartWeight": 7}}),
    (["--seeds", "1", "--grid", "Nope.x=[1, 2]"], {"seeds": [1], "grid": {"Nope.x": [1, 2]}}),
    (["--seeds", "1", "--set", "simulation.sessions[7].iterationSteps=1"],
     {"seeds": [1], "sets": {"simulation.sessions[7].iterationSteps": 1}}),
    (["--seeds", "1", "--set", "FCNAgents.chartWeight=2", "--grid", "FCNAgents.chartWeight=[1]"],
     {"seeds": [1], "sets": {"FCNAgents.chartWeight": 2}, "grid": {"FCNAgents.chartWeight": [1]}}),
])
def test_the_cli_message_naming_the_python_argument(flags, kwargs, tmp_path):
    proc = subprocess.run([CLI, "sweep", CI2002, *flags, "--quiet", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2, proc.stderr
    cli_message = proc.stderr.strip().splitlines()[-1]
    assert cli_message.startswith("error: ")
    expected = cli_message[len("error: "):]
    for flag, argument in CLI_NAMES:
        expected = expected.replace(flag + " ", argument + " ").replace(flag + ":", argument + ":")
        expected = expected.replace("to " + flag, "to " + argument).replace(
            "in " + flag, "in " + argument)
    with pytest.raises(pams_cpp.ConfigError) as error:
        pams_cpp.sweep(CI2002, **kwargs)
    assert str(error.value) == expected


def test_a_config_file_is_read_as_the_cli_reads_it(tmp_path):
    # Python's json module reads NaN and comments no; the engine reads neither.
    path = tmp_path / "config.json"
    path.write_text('{"simulation": {"markets": ["Market"]}, "x": NaN}')
    proc = subprocess.run([CLI, "sweep", str(path), "--seeds", "1", "--quiet", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True)
    assert proc.returncode == 2
    with pytest.raises(pams_cpp.ConfigError) as error:
        pams_cpp.sweep(str(path), seeds=[1])
    assert "error: " + str(error.value) == proc.stderr.strip().splitlines()[-1]
    assert str(path) in str(error.value)


def test_arguments_of_the_wrong_type_are_named():
    with pytest.raises(TypeError, match=r"grid\['FCNAgents.chartWeight'\]: not a JSON value"):
        pams_cpp.sweep(CI2002, seeds=[1], grid={"FCNAgents.chartWeight": [object()]})
    with pytest.raises(TypeError, match="sets must be a dict"):
        pams_cpp.sweep(CI2002, seeds=[1], sets=[("FCNAgents.chartWeight", 1)])
    with pytest.raises(TypeError, match="grid: keys must be str"):
        pams_cpp.sweep(CI2002, seeds=[1], grid={1: [1]})
    with pytest.raises(pams_cpp.ConfigError, match="seeds: expected non-negative ints, got '3'"):
        pams_cpp.sweep(CI2002, seeds=[1, "3"])
