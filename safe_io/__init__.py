"""Untrusted files in, atomic files out: the strict JSON reader (size, depth and finite-number
limits, errors naming the field), JSON-schema validation, image header checks before decoding,
and atomic writes.

The lowest shared layer: imports numpy, OpenCV and jsonschema only, no CourtStudio package.
"""
