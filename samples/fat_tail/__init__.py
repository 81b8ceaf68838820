"""The fat_tail sample of PAMS's development branch, on pams_cpp (see samples/__init__.py)."""
