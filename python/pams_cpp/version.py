"""The version of pams_cpp (pams-cpp's)."""
__version__ = "0.1.0"
