"""The PySide6 desktop app (issue 3). The only package that imports Qt."""
