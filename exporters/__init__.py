"""File formats: scene files (JSON + HDF5), GLB, OpenCV YAML, COCO keypoints, overlays.

No Qt, no torch. Every writer is atomic (safe_io.atomic).
"""
