"""The compiler's parts: language facts as data, one step walker for both C directions, one
table of Python conversions for both directions, and the errors of the compiler's API."""

from __future__ import annotations

import inspect
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wireplan.dsdl import compiler
from wireplan.dsdl.compiler import c_steps, languages
from wireplan.dsdl.compiler.c_names import strop
from wireplan.dsdl.compiler.py_module import attr, from_wire, to_wire
from wireplan.errors import NotFoundError

from ._support import CORNER


def test_an_unknown_type_name_is_not_found() -> None:
    types = compiler.read_types([CORNER], [])
    with pytest.raises(NotFoundError, match=re.escape("no type named 'corner.Nope.1.0'")) as info:
        compiler.find_type(types, "corner.Nope.1.0")
    assert isinstance(info.value, LookupError)


@pytest.mark.parametrize("word", sorted(languages.C_RESERVED))
def test_every_reserved_c_word_is_escaped(word: str) -> None:
    out = strop(word)
    assert out != word and out.startswith("_") and out not in languages.C_RESERVED


def test_python_names_come_from_the_language_table() -> None:
    assert attr("id") == "id_" and attr("if") == "if_"  # a builtin, a keyword
    assert attr("serialize") == "serialize_"  # a name the generated class defines
    assert attr("speed") == "speed"
    assert "serialize" in languages.PYTHON_CLASS_NAMES and "id" in languages.PYTHON_RESERVED


def test_both_c_directions_say_every_act_the_walker_asks_of_them() -> None:
    """The walker (_Steps) writes each strategy once; a direction only supplies its acts."""
    asked = {
        name
        for name, fn in vars(c_steps._Steps).items()
        if inspect.isfunction(fn) and getattr(fn, "__isabstractmethod__", False)
    }
    assert {"pair", "number", "bits", "bit_array", "bulk", "call"} <= asked
    for direction in (c_steps.Serializer, c_steps.Deserializer):
        missing = {name for name in asked if name not in vars(direction)}
        assert not missing, f"{direction.__name__} lacks {sorted(missing)}"
    # the walking itself is written once, in the base
    for walk in ("routine", "body", "run", "static", "dynamic"):
        assert walk not in vars(c_steps.Serializer) and walk not in vars(c_steps.Deserializer)


@given(st.integers(1, 64), st.data())
def test_python_conversions_round_trip(bits: int, data: st.DataObject) -> None:
    """The one table of conversions: a value that passes the writer's check reads back as itself."""
    for kind, lo, hi in (
        ("u", 0, (1 << bits) - 1),
        ("i", -(1 << (bits - 1)), (1 << (bits - 1)) - 1),
    ):
        v = data.draw(st.integers(lo, hi))
        wire, check = to_wire(kind, bits, "v")
        assert check is not None and not eval(check, {"v": v})
        raw = eval(wire, {"v": v})
        assert 0 <= raw < 1 << bits
        assert eval(from_wire(kind, bits, "raw"), {"raw": raw}) == v
        assert eval(check, {"v": hi + 1})
