"""pams_cpp's warnings, shown at the user's line: the first caller outside
the pams_cpp package (the ``runner.main()`` or ``Order(...)`` of the user's
script, notebook cell or agent), not a line of pams_cpp's own that the call
went through (``runners/base.py``), however deep. Called from Python and
from the engine's C++ (python/src/bindings/runner.cc), holding the GIL.
"""
import os
import sys
import warnings

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


def warn(message: str, category: type = UserWarning) -> None:
    """warnings.warn(message, category) at the first frame outside pams_cpp
    (a fixed stacklevel would be right from one call path only). With no
    such frame (a call from an engine thread) the warning comes from
    ``sys``, as warnings.warn's past the stack's end do."""
    level = 1  # this function's frame
    frame = sys._getframe(0)
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    warnings.warn(message, category, stacklevel=level)
