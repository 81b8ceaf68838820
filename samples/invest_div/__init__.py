"""The invest_div sample of PAMS's development branch, on pams_cpp (see samples/__init__.py)."""
