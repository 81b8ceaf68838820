"""settings=42: the argument is named, with what it may be.

Expect: TypeError: settings must be the config: a dict, the path of a JSON file
"""
import pams_cpp

pams_cpp.runners.SequentialRunner(settings=42)
