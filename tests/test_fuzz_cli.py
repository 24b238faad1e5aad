"""No traceback, ever (issue 8, §6): property-based fuzzing of the command line over every
file type CourtStudio reads, plus the strict JSON reader on generated documents.

Each example mutates a copy of a valid file (tests/fuzz_cases.py: type swaps, deletions, NaN,
huge integers, deep nesting, wrong shapes, truncation, byte flips, FIFOs, /dev/zero) and runs
``courtstudio.cli.main`` in-process: exit 0/1, or exit 2 with exactly one
``courtstudio: error:`` line; never an internal error, never past the time limit, never a
write outside the output folder.

CI budget: ``FUZZ_EXAMPLES`` (default 4) examples per file kind, well under a minute in all.
A long run: ``COURTSTUDIO_FUZZ_EXAMPLES=200 pytest -m fuzz tests/test_fuzz_cli.py`` (or
bench/fuzz_cli.py for thousands of cases with a summary).
"""

from __future__ import annotations

import json
import math
import os
import random
import tempfile
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.configuration import set_hypothesis_home_dir

from safe_io.validation import MAX_JSON_DEPTH, parse_json_text
from tests.fuzz_cases import MUTATORS_BY_KIND, build_corpus, run_case

pytestmark = pytest.mark.fuzz
# hypothesis keeps caches in ./.hypothesis by default: never in the source tree
set_hypothesis_home_dir(tempfile.mkdtemp(prefix="courtstudio_hypothesis_"))

FUZZ_EXAMPLES = int(os.environ.get("COURTSTUDIO_FUZZ_EXAMPLES", "4"))
CASE_TIMEOUT_S = 30.0
FUZZ_SETTINGS = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=timedelta(seconds=45),
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    return build_corpus(tmp_path_factory.mktemp("fuzz") / "corpus")


@pytest.mark.parametrize("kind", MUTATORS_BY_KIND + ["args"])
def test_cli_keeps_its_contract_on_mutated_inputs(kind, corpus, tmp_path_factory):
    work = tmp_path_factory.mktemp(f"case_{kind}")

    @FUZZ_SETTINGS
    @given(seed=st.integers(0, 2**63))
    def check(seed):
        o = run_case(corpus, work / "case", random.Random(seed), kind, CASE_TIMEOUT_S)
        assert o.problem is None, (
            f"{o.kind} [{o.mutation}] {' '.join(o.argv)}: {o.problem}\nstderr: {o.stderr}"
        )

    check()


# --------------------------------------------------------------- the strict JSON reader
class Refused(ValueError):
    pass


json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=8), children, max_size=5)
    ),
    max_leaves=30,
)


def _acceptable(v) -> bool:
    """Whether the strict reader should accept a document holding v."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return True
    if isinstance(v, int):
        return len(str(abs(v))) <= 18 and abs(v) <= 1e15
    if isinstance(v, float):
        return math.isfinite(v) and abs(v) <= 1e15
    items = v.values() if isinstance(v, dict) else v
    return all(_acceptable(x) for x in items)


@settings(max_examples=300, database=None, derandomize=True, deadline=timedelta(seconds=10))
@given(json_values)
def test_strict_reader_accepts_exactly_finite_bounded_documents(value):
    text = json.dumps(value)  # writes NaN/Infinity for non-finite floats, as Python does
    if _acceptable(value):
        back = parse_json_text(text, "doc", Refused)
        assert json.dumps(back) == json.dumps(json.loads(text))
    else:
        with pytest.raises(Refused, match=r"^doc: field "):
            parse_json_text(text, "doc", Refused)


@settings(max_examples=300, database=None, derandomize=True, deadline=timedelta(seconds=10))
@given(st.text(alphabet=st.sampled_from('[]{}",:0123456789.eE-+ntrufalsNIiy\\ x'), max_size=200))
def test_strict_reader_never_raises_anything_but_its_error(text):
    try:
        parse_json_text(text, "doc", Refused)
    except Refused:
        pass


@settings(max_examples=50, database=None, derandomize=True, deadline=timedelta(seconds=10))
@given(st.integers(MAX_JSON_DEPTH + 1, 200_000), st.sampled_from(["[]", "{}", "[{}]"]))
def test_deep_nesting_is_an_error_not_a_recursion(depth, brackets):
    if brackets == "[{}]":
        text = '[{"a":' * (depth // 2) + "1" + "}]" * (depth // 2)
    else:
        text = brackets[0] * depth + brackets[1] * depth
    if text.count("[") + text.count("{") <= MAX_JSON_DEPTH:
        return
    with pytest.raises(Refused, match="nested deeper"):
        parse_json_text(text, "doc", Refused)
