"""Court specifications as data: one validated JSON file per sport (docs/court_specs.md).

>>> from court_specs import load_spec
>>> load_spec("tennis").keypoints["near_right_corner"].tolist()
[23.77, 10.97, 0.0]
"""

from court_specs.loader import (
    SPECS_DIR_ENV,
    SpecError,
    available_specs,
    load_spec,
    load_spec_file,
    spec_dirs,
)
from court_specs.model import CourtSpec, Zone

__all__ = [
    "SPECS_DIR_ENV",
    "CourtSpec",
    "SpecError",
    "Zone",
    "available_specs",
    "load_spec",
    "load_spec_file",
    "spec_dirs",
]
