"""Synthetic ground truth: frames, projects and clips with known cameras, for tests and benches.

Imports ``courtstudio.editing`` and the layers below it.
"""
