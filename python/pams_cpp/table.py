"""Table: records of a run (its steps, agents or events) held by the engine
as typed columns, for pandas, pyarrow, polars or numpy without a Python
object per row.

A Table speaks Arrow's PyCapsule protocol (``__arrow_c_stream__``,
``__arrow_c_array__``, ``__arrow_c_schema__``): ``pyarrow.table(t)``,
``polars.DataFrame(t)`` and other Arrow consumers take its columns without
copying them. ``to_pandas()`` builds a DataFrame on numpy views of the
numeric columns (it needs no pyarrow).

Columns are int64, float64 or text; PAMS's None is null (NaN in a float
column of pandas, ``<NA>`` in an integer column).
"""
from typing import Dict
from typing import List
from typing import Optional
from typing import Tuple

from . import _core


class Table:
    """A run's records as typed columns, held by the engine (see the
    module's doc): TableLogger's steps, agents and events.

    Read it as numpy columns, or hand it to pyarrow, pandas or polars
    without copying the numeric columns (it speaks the Arrow PyCapsule
    interface: ``pyarrow.table(t)``, ``polars.from_arrow(t)``).

    Args:
        core (_core.Table): the engine's table (TableLogger makes these).
    """

    def __init__(self, core: "_core.Table") -> None:
        self._core = core

    @property
    def column_names(self) -> List[str]:
        """List[str]: the columns' names, in order (see docs/python.md for each
        table's columns)."""
        return self._core.column_names

    @property
    def num_rows(self) -> int:
        """int: the number of rows (steps, agents or events recorded)."""
        return self._core.num_rows

    def __len__(self) -> int:
        return self._core.num_rows

    def __repr__(self) -> str:
        return f"<pams_cpp.Table | {self.num_rows} rows: {', '.join(self.column_names)}>"

    def column_type(self, name: str) -> str:
        """The type of a column.

        Args:
            name (str): the column's name.

        Returns:
            str: "int64", "float64" or "string".

        Raises:
            KeyError: no column of that name.
        """
        return self._core.column_type(name)

    def numpy(self, name: str) -> Tuple[object, Optional[object]]:
        """A column as numpy.

        Args:
            name (str): the column's name.

        Returns:
            Tuple[numpy.ndarray | List[str], numpy.ndarray | None]: a
            read-only array viewing the engine's values (a text column: a
            list of str), and a bool array marking the null rows (None when
            no row is null).

        Raises:
            KeyError: no column of that name.
        """
        return self._core.numpy(name)

    def to_pyarrow(self):
        """The table as a ``pyarrow.Table`` (no copy of the columns).

        Returns:
            pyarrow.Table: the table.

        Raises:
            ImportError: pyarrow is not installed.
        """
        pa = _import("pyarrow", "to_pyarrow()")
        return pa.RecordBatchReader.from_stream(self).read_all()

    def to_pandas(self):
        """The table as a ``pandas.DataFrame``. Numeric columns view the
        engine's arrays (float nulls are NaN; an integer column with nulls
        is pandas's nullable Int64); text columns are object columns, a str
        per row, as pandas keeps text (``to_pyarrow().to_pandas(
        types_mapper=pandas.ArrowDtype)`` keeps them in Arrow instead).

        Returns:
            pandas.DataFrame: the table.

        Raises:
            ImportError: pandas is not installed.
        """
        pd = _import("pandas", "to_pandas()")
        return pd.DataFrame(self._pandas_columns(pd), copy=False)

    def to_polars(self):
        """The table as a ``polars.DataFrame`` (no copy of the columns).

        Returns:
            polars.DataFrame: the table.

        Raises:
            ImportError: polars is not installed.
        """
        pl = _import("polars", "to_polars()")
        return pl.DataFrame(self)

    def to_pydict(self) -> Dict[str, list]:
        """The columns as lists of Python values: a Python object per value,
        for small tables and tests.

        Returns:
            Dict[str, list]: each column's values by name, None for null.
        """
        out = {}
        for name in self.column_names:
            values, nulls = self.numpy(name)
            values = values if isinstance(values, list) else values.tolist()
            if nulls is not None:
                values = [None if null else v for v, null in zip(values, nulls.tolist())]
            out[name] = values
        return out

    def _pandas_columns(self, pd) -> Dict[str, object]:
        columns = {}
        for name in self.column_names:
            values, nulls = self.numpy(name)
            kind = self.column_type(name)
            if kind == "string":
                columns[name] = pd.array(
                    values if nulls is None
                    else [None if null else v for v, null in zip(values, nulls.tolist())],
                    dtype=object)
            elif nulls is None:
                columns[name] = values
            elif kind == "int64":
                columns[name] = pd.arrays.IntegerArray(values.copy(), nulls)
            else:
                floats = values.copy()
                floats[nulls] = float("nan")
                columns[name] = floats
        return columns

    def __arrow_c_schema__(self):
        return self._core.__arrow_c_schema__()

    def __arrow_c_array__(self, requested_schema=None):
        return self._core.__arrow_c_array__(requested_schema)

    def __arrow_c_stream__(self, requested_schema=None):
        return self._core.__arrow_c_stream__(requested_schema)


def _import(module: str, what: str):
    try:
        return __import__(module)
    except ImportError:
        raise ImportError(f"{what} needs {module}, which is not installed: "
                          f"pip install {module}") from None


__all__ = ["Table"]
