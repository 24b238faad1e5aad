"""Project files on disk: the project and annotation files, their paths and lock, point files,
frame sources, new projects, and the data files shipped with the package.

The lowest layer of ``courtstudio``: it imports no other ``courtstudio`` sub-package.
"""
