"""pams_cpp in notebooks and scripts: ``main(progress=True)`` draws tqdm's
widget in a Jupyter kernel that has ipywidgets and a clean text bar where
it has not (no TqdmWarning, no stray "0step" bar), and pams_cpp's warnings
point at the user's line, not at pams_cpp's own (runners/base.py).

The notebook cases run real notebooks in a real kernel (nbclient,
ipykernel; scripts/setup-python.sh installs them in .venv-py), about two
seconds each.
"""
import inspect
import os
import random
import subprocess
import sys
import textwrap
import warnings

import pytest

import pams_cpp
from pams_cpp.order import LIMIT_ORDER
from pams_cpp.order import Order

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CI2002 = os.path.join(ROOT, "samples", "CI2002", "config.json")
PACKAGE = os.path.dirname(os.path.abspath(pams_cpp.__file__))


def _line_of(marker):
    """The line of this file that holds marker (a comment after the call)."""
    for number, line in enumerate(inspect.getsource(sys.modules[__name__]).splitlines(), 1):
        if line.rstrip().endswith(marker) and "_line_of" not in line:
            return number
    raise AssertionError(marker)


def test_warnings_point_at_the_users_line():
    # CI2002 has the deprecated key hifreqSubmitRate (a warning of the setup)
    # and agents whose prices are off the tick grid (warnings of the run).
    runner = pams_cpp.SequentialRunner(settings=CI2002, prng=random.Random(1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        runner.main()  # <- main
    messages = {str(w.message) for w in caught}
    assert "hifreqSubmitRate is replaced to highFrequencySubmitRate in pams." in messages
    assert "order price does not accord to the tick size. price will be modified" in messages
    for w in caught:
        assert (w.filename, w.lineno) == (__file__, _line_of("# <- main")), \
            f"{w.message} at {w.filename}:{w.lineno}"


def test_a_warning_from_a_runner_subclass_points_at_its_caller():
    class MyRunner(pams_cpp.SequentialRunner):
        def main(self, progress=False):
            super().main(progress=progress)  # <- subclass

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        MyRunner(settings=CI2002, prng=random.Random(1)).main()
    assert caught
    # The first line outside pams_cpp is the subclass's own.
    assert {(w.filename, w.lineno) for w in caught} == {(__file__, _line_of("# <- subclass"))}


def test_an_order_warning_points_at_the_users_line():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Order(agent_id=1, market_id=0, is_buy=True, kind=LIMIT_ORDER, volume=1,
              price=-1.0)  # <- order
    assert [str(w.message) for w in caught] == ["price should be positive"]
    # A call over several lines is reported at its first line.
    assert (caught[0].filename, caught[0].lineno) == (__file__, _line_of("# <- order") - 1)


def test_the_text_bar_outside_notebooks_is_clean():
    pytest.importorskip("tqdm")
    script = textwrap.dedent(f"""
        import random, warnings
        # Any warning stops the run (TqdmWarning is no UserWarning), but the
        # UserWarnings of CI2002 itself (a deprecated key, off-tick prices).
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", category=UserWarning)
        import pams_cpp
        pams_cpp.SequentialRunner(settings={CI2002!r}, prng=random.Random(1)).main(progress=True)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "simulation: 100%" in proc.stderr and "600/600" in proc.stderr, proc.stderr
    # The stray bar of before: "simulation: 0step [00:00, ?step/s]".
    assert "simulation: 0step" not in proc.stderr, proc.stderr
    assert "Warning" not in proc.stderr, proc.stderr


def _run_notebook(cells):
    """Runs the cells in a fresh Jupyter kernel of this interpreter; returns
    their outputs (nbformat's dicts)."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    return [output for cell in notebook.cells for output in cell.outputs]


RUN_CELL = (f"runner = pams_cpp.SequentialRunner(settings={CI2002!r}, prng=random.Random(1))\n"
            "runner.main(progress=True)  # the user's line")


def _stderr(outputs):
    return "".join(o.get("text", "") for o in outputs
                   if o.get("output_type") == "stream" and o.get("name") == "stderr")


def test_a_notebook_with_ipywidgets_gets_the_widget():
    pytest.importorskip("ipywidgets")
    outputs = _run_notebook(["import random, pams_cpp", RUN_CELL])
    widgets = [o for o in outputs if o.get("output_type") == "display_data"
               and "application/vnd.jupyter.widget-view+json" in o.get("data", {})]
    assert len(widgets) == 1, outputs
    assert "0/600" in widgets[0]["data"]["text/plain"]  # the bar of all 600 steps, from 0
    stderr = _stderr(outputs)
    assert "TqdmWarning" not in stderr and "IProgress" not in stderr, stderr
    assert "step/s" not in stderr, stderr  # no text bar beside it
    _check_warnings_at_the_cell(stderr)


def test_a_notebook_without_ipywidgets_gets_a_clean_text_bar():
    # ipywidgets made unimportable in the kernel, as where it is not installed.
    outputs = _run_notebook(["import sys\nsys.modules['ipywidgets'] = None\n"
                             "import random, pams_cpp", RUN_CELL])
    assert not [o for o in outputs if "application/vnd.jupyter.widget-view+json"
                in o.get("data", {})], outputs
    stderr = _stderr(outputs)
    assert "simulation: 100%" in stderr and "600/600" in stderr, stderr
    assert "TqdmWarning" not in stderr and "IProgress" not in stderr, stderr
    assert "simulation: 0step" not in stderr, stderr
    _check_warnings_at_the_cell(stderr)


def _check_warnings_at_the_cell(stderr):
    # The config's and the run's warnings show the cell's line, not pams_cpp's.
    assert "UserWarning: hifreqSubmitRate is replaced" in stderr, stderr
    assert PACKAGE not in stderr and "runners/base.py" not in stderr, stderr
    assert "runner.main(progress=True)  # the user's line" in stderr, stderr
