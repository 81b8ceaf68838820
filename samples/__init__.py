"""The samples of PAMS's development branch that define classes, on pams_cpp.

Each ``samples/<name>/`` has its config (``config.json``), a ``main.py`` that
runs it as the branch's sample script does (``python -m
samples.<name>.main --config samples/<name>/config.json --seed 1`` from the
repository's root), and the modules of the branch's sample classes at the
branch's module paths (``samples.dark_pool.dark_pool_market.DarkPoolMarket``,
...): Python faces of pams-cpp's built-in classes of those names, which the
engine runs in C++ (``pams run samples/<name>/config.json`` runs them too).
"""
