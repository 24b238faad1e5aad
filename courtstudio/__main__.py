"""``python -m courtstudio`` (and the PyInstaller bundle's entry point)."""

import sys

from courtstudio.cli import main

if __name__ == "__main__":
    sys.exit(main())
