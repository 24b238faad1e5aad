"""Court specifications as data: one validated JSON file per sport (docs/court_specs.md).

Keypoints sit at the centres of the painted lines (the 23.77 x 10.97 m court's outer edges
less half a 5 cm sideline and a 10 cm baseline), where an annotator clicks:

>>> from court_specs import load_spec
>>> load_spec("tennis").keypoints["near_right_corner"].tolist()
[23.72, 10.945, 0.0]
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
