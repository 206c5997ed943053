"""The plan as data: runs, steps, strategies and offsets, checked against pydsdl's own analysis."""

from __future__ import annotations

import ast
import inspect
from typing import Any

import pydsdl
import pytest

from wireplan.dsdl import compiler
from wireplan.dsdl.compiler import plan as plan_module
from wireplan.dsdl.compiler.model import Composite
from wireplan.dsdl.compiler.plan import Step, TypePlan, plan_type

from ._support import CORNER, UAVCAN, full_name, unwrap


def _plan(name: str, *dirs: Any) -> TypePlan:
    types = compiler.read_types(list(dirs), [])
    found = compiler.find_type(types, name)
    assert isinstance(found, Composite)
    return plan_type(found)


def test_heartbeat_is_one_fixed_run() -> None:
    plan = _plan("uavcan.node.Heartbeat.1.0", UAVCAN)
    assert plan.strategy == "single-struct" and plan.one_run and not plan.loops
    assert len(plan.runs) == 1 and plan.runs[0].bits == 56 and not plan.runs[0].stream
    steps = [s for s in plan.walk() if s.role != "padding"]
    assert [s.path for s in steps] == [
        "uptime",
        "health",
        "health.value",
        "mode",
        "mode.value",
        "vendor_specific_status_code",
    ]
    # one run from bit 0: each step's static position in the run is its pydsdl offset
    assert all(s.run == 0 and s.offset is not None and s.offset.fixed for s in steps)
    assert [s.at for s in steps] == [s.offset.min for s in steps if s.offset] == [
        0, 32, 32, 40, 40, 48,
    ]  # fmt: skip
    assert {s.path: s.strategy for s in steps}["uptime"] == "struct"


def test_after_a_variable_bool_array_the_steps_are_a_bit_stream() -> None:
    plan = _plan("corner.Mixed.1.0", CORNER)
    by_path = {s.path: s for s in plan.walk() if s.role != "length"}
    assert by_path["flags"].strategy == by_path["after_flags"].strategy == "bit-stream"
    # the array starts in run 0 (its length prefix at bit 88); what follows it does not
    assert (by_path["flags"].run, by_path["flags"].at) == (0, 88)
    assert by_path["after_flags"].at is None
    stream = plan.runs[by_path["after_flags"].run]
    assert stream.stream and stream.bits is None
    # the nested structure realigns: a new static run starts there
    inner = by_path["inner"]
    assert inner.strategy == "inline" and inner.at == 0 and not plan.runs[inner.run].stream
    assert by_path["tail"].run == inner.run
    assert not plan.bounded_reads and plan.strategy == "stepwise"


def test_variable_arrays_and_calls_end_runs() -> None:
    plan = _plan("uavcan.register.Access.Request.1.0", UAVCAN)
    steps = {s.path: s for s in plan.walk() if s.role != "length"}
    # the name is a byte copy after its length prefix; the value, a union, is a call
    assert steps["name"].strategy == "inline"
    assert steps["name.name"].strategy == "byte-copy"
    assert [s.role for s in steps["name.name"].steps] == ["length"]
    assert steps["value"].strategy == "call"
    assert steps["value"].run != steps["name"].run  # the name's length ended the run
    assert not plan.bounded_reads  # a nested routine may read a short buffer
    real32 = _plan("uavcan.primitive.array.Real32.1.0", UAVCAN)
    assert real32.bounded_reads and [s.strategy for s in real32.steps] == ["byte-copy"]


def test_unions_plan_each_variant_after_its_tag() -> None:
    plan = _plan("uavcan.register.Value.1.0", UAVCAN)
    assert not plan.steps and len(plan.variants) == len(plan.type.fields) == 15
    for k, (tag, value) in enumerate(plan.variants):
        assert tag.role == "tag" and tag.strategy == "struct" and tag.at == 0
        assert value.run == tag.run and value.at == 8, k
        assert plan.runs[tag.run].variant == k


def _pydsdl_offsets(t: Any, base: Any) -> list[tuple[str, Any]]:
    """(path, offset set) of every field, nested sealed structures unrolled (as the plan does)."""
    out: list[tuple[str, Any]] = []

    def walk(t: Any, path: str, base: Any) -> None:
        for f, off in t.iterate_fields_with_offsets(base):
            name = f.name if not isinstance(f, pydsdl.PaddingField) else "<void>"
            sub = f"{path}.{name}".lstrip(".")
            out.append((sub, off))
            dt = f.data_type
            if isinstance(dt, pydsdl.StructureType) and not isinstance(dt, pydsdl.UnionType):
                walk(dt, sub, off)

    walk(t, "", base)
    return out


def _plan_offsets(plan: TypePlan) -> list[Step]:
    return [s for s in plan.walk() if s.offset is not None and s.role not in ("tag", "length")]


def test_every_step_offset_is_pydsdls_and_byte_steps_are_byte_aligned(
    public_types: list[Any], corner_types: list[Any]
) -> None:
    """The plan's offsets are pydsdl's bit length sets (bounds and alignment), for every
    unrolled field; every step that moves whole bytes is byte-aligned in them."""
    checked = 0
    for t in [*public_types, *corner_types]:
        inner = unwrap(t)
        (model,) = compiler.convert([t])
        assert isinstance(model, Composite)
        plan = plan_type(model)
        theirs = _pydsdl_offsets(inner, pydsdl.BitLengthSet(0))
        ours = _plan_offsets(plan)
        assert [p for p, _ in theirs] == [s.path for s in ours], full_name(t)
        for (path, off), step in zip(theirs, ours, strict=True):
            assert step.offset is not None
            assert (step.offset.min, step.offset.max) == (off.min, off.max), (full_name(t), path)
            for n in (1, 2, 4, 8, 16, 32, 64):
                assert step.offset.is_aligned_at(n) == off.is_aligned_at(n), (full_name(t), path)
            masked = isinstance(step.type, compiler.model.Primitive) and step.type.bits < 8
            if step.strategy in ("struct", "byte-copy", "inline", "call") and not masked:
                assert off.is_aligned_at(8), (full_name(t), path, step.strategy)
            if step.strategy == "bit-stream" and not isinstance(step.type, compiler.model.Array):
                assert step.at is None
            checked += 1
    assert checked > 1000


def test_static_positions_agree_with_offsets(public_types: list[Any]) -> None:
    """In run 0 of a structure (which starts at bit 0) a step's static position is its offset."""
    for t in public_types:
        (model,) = compiler.convert([t])
        assert isinstance(model, Composite)
        plan = plan_type(model)
        for s in _plan_offsets(plan):
            if s.run == 0 and s.at is not None and not model.union:
                assert s.offset is not None and s.offset.fixed and s.offset.min == s.at, s


def test_the_plan_holds_no_python() -> None:
    """The plan module imports only the model and the report types (no emitter, no pydsdl)."""
    tree = ast.parse(inspect.getsource(plan_module))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    assert imported == {"__future__", "dataclasses", "wireplan.dsdl._layout", "model"}


def test_layout_report_round_trips_with_runs() -> None:
    lay = compiler.report(_plan("corner.Mixed.1.0", CORNER))
    assert lay.runs and lay.facts["bounded_reads"] is False
    assert type(lay).from_dict(lay.to_dict()) == lay
    text = lay.render()
    assert "bit stream" in text and "run 1" in text


@pytest.mark.parametrize("name", ["uavcan.node.port.List.1.0", "corner.Deep.1.0"])
def test_reports_come_from_the_plan(name: str) -> None:
    dirs = [UAVCAN] if name.startswith("uavcan") else [CORNER]
    types = compiler.read_types(dirs, [])
    wanted = compiler.find_type(types, name)
    (lay,) = [x for x in compiler.analyse([wanted]) if x.name == name]
    plan = _plan(name, *dirs)
    assert lay == compiler.report(plan)
    assert lay.strategy == plan.strategy
