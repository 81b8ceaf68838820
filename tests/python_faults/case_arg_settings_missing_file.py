"""settings naming a file that does not exist: the file is named.

Expect: ConfigError: no-such-config.json
"""
import pams_cpp

pams_cpp.runners.SequentialRunner(settings="no-such-config.json")
