"""StepsCsvLogger(42): the path argument is named.

Expect: TypeError: StepsCsvLogger: path must be the CSV file's path (str or os.PathLike), got int 42
"""
import pams_cpp

pams_cpp.logs.StepsCsvLogger(42)
