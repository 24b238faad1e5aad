"""Error types of the geometry layer.

One type per kind of mistake, all ``ValueError`` subclasses so callers that only care about
"bad input" can catch ``ValueError``.
"""


class GeometryError(ValueError):
    """An input to a geometric computation is degenerate or impossible; the message names why."""


class CalibrationError(GeometryError):
    """The clicked points do not determine a trustworthy camera; the message names the cause."""
