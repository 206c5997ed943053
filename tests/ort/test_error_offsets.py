"""Every DecodeError of the .ort reader names a byte inside the input: the one holding the bad value.

A bad reference (uoffset), vector length, vtable or vtable entry is reported at
the position where that value is stored, never at where it points, with the
path of the value in the model.  Checked for every table kind the files hold,
and by sweeping damaged words over a whole file.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from wireplan import DecodeError, LimitError, WireplanError
from wireplan.flatbuffers.reader import TableReader
from wireplan.ort import from_onnx, load, to_bytes, to_onnx
from wireplan.ort.model import TABLE_CLASSES, OrtModel
from wireplan.ort.reader import VERIFY
from wireplan.ort.schema import ORT_SCHEMA

from .conftest import feature_model
from .ort_corpus import touch

_TABLES = {cls: name for name, cls in TABLE_CLASSES.items()} | {OrtModel: "InferenceSession"}


def _table_of(obj: Any) -> str:
    """The table an object decodes, a view (a subclass of the table's class) included."""
    return next(_TABLES[c] for c in type(obj).__mro__ if c in _TABLES)


def references(obj: Any, path: str = "$") -> Iterator[tuple[str, str, str]]:
    """``(path, kind, table)`` of every present table reference and vector in a decoded model.

    ``kind`` is ``"table"`` (a sub-table, union member or vector element) or ``"vector"``.
    """
    table = _table_of(obj)
    for f in ORT_SCHEMA.tables[table].fields:
        if f.deprecated:
            continue
        value = getattr(obj, f.name)
        where = f"{path}.{f.name}"
        t = f.type
        if t.kind in ("table", "union") and value is not None:
            yield where, "table", _table_of(value)
            yield from references(value, where)
        elif t.kind == "vector" and len(value):
            yield where, "vector", ""
            assert t.element is not None
            if t.element.kind == "table":
                for i, v in enumerate(value):
                    yield f"{where}[{i}]", "table", t.element.name
                    yield from references(v, f"{where}[{i}]")


def writer_ort() -> bytes:
    """The writer's .ort of the feature model (subgraphs, sparse, strings, metadata, resolver)."""
    return to_bytes(from_onnx(feature_model()))


@pytest.fixture(scope="module", params=["writer", "onnxruntime"])
def ort_bytes(request: pytest.FixtureRequest, feature_ort: Path) -> bytes:
    return writer_ort() if request.param == "writer" else feature_ort.read_bytes()


def decode_error(data: bytes, verify: str = "all") -> DecodeError | None:
    """The error loading ``data`` and then reading every field raises (``None``: none)."""
    try:
        with load(data, verify=verify) as om:
            touch(om)
    except DecodeError as exc:
        return exc
    return None


@pytest.fixture(params=VERIFY)
def verify(request: pytest.FixtureRequest) -> str:
    """Each way ``load`` verifies: the error is the same, raised by load or on access."""
    return str(request.param)


def test_every_table_kind_is_covered(ort_bytes: bytes) -> None:
    kinds = {table for _, kind, table in references(load(ort_bytes)) if kind == "table"}
    # Everything but the deprecated session state and runtime optimization records.
    assert kinds >= {
        "Model",
        "Graph",
        "Node",
        "Attribute",
        "Tensor",
        "SparseTensor",
        "ValueInfo",
        "TypeInfo",
        "TensorTypeAndShape",
        "SequenceType",
        "Shape",
        "Dimension",
        "DimensionValue",
        "OperatorSetId",
        "StringStringEntry",
        "NodeEdge",
        "KernelTypeStrResolver",
        "OpIdKernelTypeStrArgsEntry",
        "KernelTypeStrArgsEntry",
        "ArgTypeAndIndex",
    }


def test_bad_reference_to_each_table_names_the_reference(ort_bytes: bytes, verify: str) -> None:
    reader = TableReader(ORT_SCHEMA, ort_bytes)
    seen = 0
    for path, kind, table in references(load(ort_bytes)):
        if kind != "table":
            continue
        at = reader.locate(path)
        assert at is not None, path
        target = reader.follow(at)
        for value in (0xFFFFFFF0, 0x80000000, len(ort_bytes) - at):
            data = bytearray(ort_bytes)
            data[at : at + 4] = struct.pack("<I", value)
            err = decode_error(bytes(data), verify)
            assert err is not None, (path, value)
            assert (err.offset, err.path) == (at, path), (table, value, str(err))
        # The table's own soffset to its vtable, pointing outside.
        data = bytearray(ort_bytes)
        data[target : target + 4] = struct.pack("<i", -0x7FFFFFF0)
        err = decode_error(bytes(data), verify)
        assert err is not None and "vtable" in err.reason
        assert (err.offset, err.path) == (target, path), str(err)
        seen += 1
    assert seen > 50


def test_bad_vector_length_names_the_length(ort_bytes: bytes, verify: str) -> None:
    reader = TableReader(ORT_SCHEMA, ort_bytes)
    for path, kind, _ in references(load(ort_bytes)):
        if kind != "vector":
            continue
        at = reader.locate(path)
        assert at is not None, path
        vec = reader.follow(at)
        data = bytearray(ort_bytes)
        data[vec : vec + 4] = struct.pack("<I", 0x7FFFFFFF)
        err = decode_error(bytes(data), verify)
        assert isinstance(err, LimitError), (path, err)
        assert (err.offset, err.path) == (vec, path)


def test_bad_vtable_entries_name_the_entry(ort_bytes: bytes, verify: str) -> None:
    """Every vtable entry set past its table: the error is at the entry (vtables are shared)."""
    reader = TableReader(ORT_SCHEMA, ort_bytes)
    vtables = set()
    for path, kind, _ in references(load(ort_bytes)):
        if kind == "table":
            pos = reader.follow(reader.locate(path) or 0)
            vtables.add(pos - struct.unpack_from("<i", ort_bytes, pos)[0])
    for vt in sorted(vtables):
        size = struct.unpack_from("<H", ort_bytes, vt)[0]
        for entry in range(vt + 4, vt + size, 2):
            if struct.unpack_from("<H", ort_bytes, entry)[0] == 0:
                continue
            data = bytearray(ort_bytes)
            data[entry : entry + 2] = struct.pack("<H", 0xFFF0)
            err = decode_error(bytes(data), verify)
            assert err is not None and err.offset == entry, str(err)
        for at, value in ((vt, 3), (vt, 0xFFFE), (vt + 2, 0xFFFF)):
            data = bytearray(ort_bytes)
            data[at : at + 2] = struct.pack("<H", value)
            err = decode_error(bytes(data), verify)
            assert err is not None and err.offset == at, str(err)


def _check(data: bytes) -> None:
    """Load, then convert back: anything but a wireplan error fails; decode offsets in range."""
    try:
        model = load(data)
    except DecodeError as exc:
        assert 0 <= exc.offset < len(data), str(exc)
        assert exc.path.startswith("$")
        return
    try:
        to_onnx(model)
        to_bytes(model)
    except DecodeError as exc:  # a damaged table reached on access
        assert exc.offset is None or 0 <= exc.offset < len(data), str(exc)
        assert exc.path.startswith("$")
    except WireplanError:
        pass


def test_sweep_damaged_words(ort_bytes: bytes) -> None:
    """A word at every even position set to values that point or reach past the end."""
    n = len(ort_bytes)
    for at in range(0, n - 3, 2):
        for value in (0xFFFFFFFC, 0x80000000, n - at):
            data = bytearray(ort_bytes)
            data[at : at + 4] = struct.pack("<I", value)
            _check(bytes(data))
        data = bytearray(ort_bytes)
        data[at : at + 2] = b"\xff\xff"
        _check(bytes(data))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(
    edits=st.lists(
        st.tuples(st.integers(0, 1 << 20), st.binary(min_size=1, max_size=4)),
        min_size=1,
        max_size=6,
    )
)
def test_random_damage(ort_bytes: bytes, edits: list[tuple[int, bytes]]) -> None:
    data = bytearray(ort_bytes)
    for pos, blob in edits:
        at = pos % len(data)
        data[at : at + len(blob)] = blob
    _check(bytes(data[: len(ort_bytes)]))
