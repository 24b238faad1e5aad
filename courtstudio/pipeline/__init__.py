"""The per-frame geometry pipeline on project data: calibration (live and on painted lines),
ball lifting, player meshes, and propagation over a clip.

Imports ``courtstudio.io`` only (plus geometry, court_specs, exporters, hmr, safe_io).
"""
