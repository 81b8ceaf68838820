"""A CSV logger's file that cannot be created: the path is named, when
the logger is made (before any run).

Expect: ConfigError: /no-such-directory/steps.csv: cannot open for writing
"""
import pams_cpp

pams_cpp.logs.StepsCsvLogger("/no-such-directory/steps.csv")
