"""pytest plugin (loaded with ``-p pams_cpp_as_pams``) that makes PAMS's
test suite import pams_cpp as ``pams``: pams_cpp.install_as_pams() runs
before pytest collects any test module."""
import pams_cpp

pams_cpp.install_as_pams()
