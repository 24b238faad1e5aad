"""CourtStudio: metric 3D scenes from broadcast frames of court sports."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("courtstudio")
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
