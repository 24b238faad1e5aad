"""Scene assembly and export: a project's frames to scene files (JSON + HDF5, GLB, OpenCV YAML,
COCO, overlays), reconstruction of the bundled sample, and the sample's writable copy.

Imports ``courtstudio.editing`` and the layers below it.
"""
