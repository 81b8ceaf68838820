"""The version of pams_cpp: pams-cpp's own release number, not PAMS's."""
__version__ = "0.1.0"
