"""CourtStudio: metric 3D scenes from single broadcast frames of court sports."""


def __getattr__(name: str) -> str:
    """``courtstudio.__version__`` from the installed package's metadata (read on first use, so
    importing courtstudio stays cheap for the CLI)."""
    if name == "__version__":
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("courtstudio")
        except PackageNotFoundError:  # a source tree that was never installed
            return "0+unknown"
    raise AttributeError(f"module 'courtstudio' has no attribute {name!r}")
