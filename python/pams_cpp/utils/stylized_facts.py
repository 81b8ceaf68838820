"""Statistics of the stylized facts of price series (since PAMS's development
branch: ``pams.utils.stylized_facts``): log returns, excess kurtosis,
autocorrelation and the Hill tail index, with the branch's signatures,
checks and results.

They are computed with numpy, in the branch's operations (numpy's pairwise
sums and BLAS dot products), so that for the same input they give the
branch's floats bit for bit on the same numpy. ``pams stats`` computes the
same estimators in C++ (their sums run left to right, so they agree to
rounding). numpy is imported when one is first called: ``pip install
numpy`` (pandas and pyarrow bring it) if it is missing.
"""
from typing import TYPE_CHECKING
from typing import Any
from typing import Sequence
from typing import Union

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np

ArrayLike = Union[Sequence[float], "np.ndarray"]


def _numpy() -> Any:
    try:
        import numpy
    except ImportError:
        raise ImportError(
            "pams_cpp.utils.stylized_facts needs numpy, which is not installed: "
            "pip install numpy") from None
    return numpy


def log_returns(prices: ArrayLike, interval: int = 1,
                drop_unchanged: bool = False) -> "np.ndarray":
    """log p[t + interval] - log p[t] of the prices sampled every ``interval``
    steps from the first.

    Args:
        prices (ArrayLike): the price series (e.g.
            ``Market.get_market_prices()``), all > 0.
        interval (int): the sampling interval in steps (>= 1).
        drop_unchanged (bool): leave out the zero returns (with interval 1: the
            returns between successive price changes, "event time").

    Returns:
        numpy.ndarray: the returns; ``max(len(prices) - 1, 0) // interval``
        of them unless drop_unchanged.

    Raises:
        ValueError: interval < 1, or a price <= 0.
    """
    np = _numpy()
    if interval < 1:
        raise ValueError("interval must be positive")
    values = np.asarray(prices, dtype=float)
    if np.any(values <= 0):
        raise ValueError("prices must be positive")
    returns = np.diff(np.log(values[::interval]))
    if drop_unchanged:
        returns = returns[returns != 0.0]
    return returns


def excess_kurtosis(values: ArrayLike) -> float:
    """m4 / m2**2 - 3, with the central sample moments m_j = mean((x - mean(x))**j)
    (0 for a normal law, > 0 for fatter tails; scipy.stats.kurtosis's default).

    Args:
        values (ArrayLike): the series, e.g. log returns.

    Returns:
        float: the excess kurtosis.

    Raises:
        ValueError: values is empty or constant.
    """
    np = _numpy()
    x = np.asarray(values, dtype=float)
    if len(x) == 0:
        raise ValueError("values must not be empty")
    # Equality of the values themselves: the deviations of a constant
    # series from its rounded mean need not be 0.
    if np.all(x == x[0]):
        raise ValueError("values must not be constant")
    deviations = x - x.mean()
    m2 = float(np.mean(deviations**2))
    m4 = float(np.mean(deviations**4))
    return m4 / m2**2 - 3.0


def autocorrelation(values: ArrayLike, lag: int) -> float:
    """The correlogram's estimator at ``lag``:
    sum_{t < n - lag} (x_t - m)(x_{t+lag} - m) / sum_t (x_t - m)**2.

    Args:
        values (ArrayLike): the series, e.g. log returns or their absolute
            values.
        lag (int): the lag, 1 <= lag < len(values).

    Returns:
        float: the autocorrelation.

    Raises:
        ValueError: lag is out of range, or values is constant.
    """
    np = _numpy()
    x = np.asarray(values, dtype=float)
    if lag < 1 or lag >= len(x):
        raise ValueError("lag must be positive and smaller than the length of values")
    if np.all(x == x[0]):
        raise ValueError("values must not be constant")
    deviations = x - x.mean()
    return float(np.dot(deviations[:-lag], deviations[lag:])) / float(
        np.dot(deviations, deviations))


def hill_tail_index(values: ArrayLike, tail_fraction: float = 0.05) -> float:
    """The Hill (1975) estimate of the tail index of the values' magnitudes.

    With the absolute values in descending order ``x_(1) >= x_(2) >= ...``
    and ``k = floor(tail_fraction * n)``, the estimate is
    ``k / sum_{i <= k} log(x_(i) / x_(k+1))``. Both tails are pooled.
    Smaller means fatter; a power law ``P(abs(X) > x) ~ x**-alpha`` gives
    about ``alpha``.

    Args:
        values (ArrayLike): the samples, e.g. log returns.
        tail_fraction (float): the share of the samples taken as the tail, in (0, 1).

    Returns:
        float: the tail index.

    Raises:
        ValueError: tail_fraction is out of range, k < 1, x_(k+1) is 0, or
            the tail is constant.
    """
    np = _numpy()
    if not 0.0 < tail_fraction < 1.0:
        raise ValueError("tail_fraction must be in (0, 1)")
    descending = np.sort(np.abs(np.asarray(values, dtype=float)))[::-1]
    k = int(tail_fraction * len(descending))
    if k < 1:
        raise ValueError("values are too short for tail_fraction")
    threshold = float(descending[k])
    if threshold == 0.0:
        raise ValueError("values have too many zeros for tail_fraction")
    log_excess = float(np.sum(np.log(descending[:k] / threshold)))
    if log_excess == 0.0:
        raise ValueError("the tail of values must not be constant")
    return k / log_excess


__all__ = ["autocorrelation", "excess_kurtosis", "hill_tail_index", "log_returns"]
