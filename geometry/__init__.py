"""Metric geometry of broadcast court frames: cameras, calibration, rays, rescaling.

Pure numpy / scipy / OpenCV. Imports none of CourtStudio's other packages, no Qt, no torch.
"""
