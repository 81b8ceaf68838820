"""pytest setup of tests/python_tf (CTest tensorflow.python, run in .venv-tf by
tests/run_in_venv.py): the framework suites' shared harness
(tests/framework_suite/framework_suite.py) on the path, its asserts
rewritten by pytest so that a failed check shows both sides."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "framework_suite"))
pytest.register_assert_rewrite("framework_suite")
