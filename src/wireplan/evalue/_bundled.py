"""ExecuTorch bundled programs (``.bpte``) <-> Java-EValue values and record files.

A bundled program is a FlatBuffer (``BP08``) holding a whole ``.pte`` as a
byte vector and, per method, test cases: input and expected output
``Value`` tables, each a Tensor, Int, Bool or Double.  Read with wireplan's
verified reader, written with its planned builder, both driven by
:mod:`wireplan.evalue._fbs_schema`.

Mapping: Int <-> ``int``, Bool <-> ``bool``, Double <-> ``float``, Tensor
<-> numpy array (or :class:`RawTensor` for types numpy cannot hold).  The
bundled tensor's little-endian bytes in its ``dim_order`` become a
row-major array: a view of the buffer with ``copy=False``, one copy
otherwise; writing plans the big- to little-endian conversion as one copy
per tensor.  ``None``, strings and bytes have no bundled form, nor have the
program's list kinds: each is refused with an error naming the test case,
the position and the kind.

As records, a test case is ``[method_name, len(inputs), *inputs,
*expected_outputs]``.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from wireplan.core.alloc import fill_new_bytes
from wireplan.core.atomic import write_plan
from wireplan.core.buffers import MappedFile, as_memoryview
from wireplan.core.executor import execute
from wireplan.errors import ArgumentError, DecodeError, EncodeError
from wireplan.evalue._codec import _converter
from wireplan.evalue._dtypes import JAVA_SCALAR_TYPES, info_for_code, info_for_dtype
from wireplan.evalue._fbs_schema import (
    BUNDLED_ALIGNMENT,
    BUNDLED_SCHEMA,
    BUNDLED_VERSION,
    FBS_SCALAR_TYPES,
    PROGRAM_SCHEMA,
)
from wireplan.evalue._records import RecordFile
from wireplan.evalue._types import RawTensor
from wireplan.evalue._writer import RecordWriter

if TYPE_CHECKING:
    from wireplan.flatbuffers.builder import Builder, BuildResult, Union
    from wireplan.flatbuffers.reader import TableReader

__all__ = [
    "BundledProgram",
    "BundledTestCase",
    "bundled_to_records",
    "decode_bundled",
    "encode_bundled",
    "read_bundled",
    "records_to_bundled",
    "write_bundled",
]


@dataclass(frozen=True, slots=True)
class BundledTestCase:
    """One test of one method: ``index`` is its place in that method's suite."""

    method_name: str
    inputs: list[Any]
    expected_outputs: list[Any]
    index: int = 0


@dataclass(frozen=True, slots=True)
class BundledProgram:
    """A decoded ``.bpte``: the schema version, the embedded ``.pte`` bytes and the tests."""

    version: int
    program: bytes | memoryview
    test_cases: list[BundledTestCase] = field(default_factory=list)


# Union members come back tagged, so a Value says which of the four it holds.
_CLASSES = {
    name: functools.partial(lambda kind, **f: (kind, f), name)
    for name in BUNDLED_SCHEMA.unions["ValueUnion"].members.values()
}


def located_error(reader: TableReader, path: str, reason: str) -> DecodeError:
    """A decode error at the stored place of ``path`` (found only now, on the failure path)."""
    try:
        offset = reader.locate(path)
    except DecodeError:
        offset = None
    return DecodeError(reason, offset, path)


def _tensor(
    fields: dict[str, Any], copy: bool, reader: TableReader, path: str
) -> np.ndarray[Any, Any] | RawTensor:
    code = int(fields["scalar_type"])
    info = info_for_code(code) if code in FBS_SCALAR_TYPES else None
    if info is None:
        raise located_error(reader, path + ".scalar_type", f"unknown scalar type {code}")
    sizes, data, order = fields["sizes"], fields["data"], fields["dim_order"]
    shape = () if sizes is None else tuple(sizes.tolist())
    if shape and min(shape) < 0:
        raise located_error(reader, path + ".sizes", f"negative size in {list(shape)}")
    nbytes = 0 if data is None else data.size
    need = math.prod(shape) * info.itemsize
    if nbytes != need:
        raise located_error(
            reader,
            path + ".data",
            f"{nbytes} data bytes for shape {list(shape)} of {info.name} ({need} expected)",
        )
    if data is None:
        data = np.zeros(0, np.uint8)
    rank = len(shape)
    identity = tuple(range(rank))
    perm = identity if order is None or not len(order) else tuple(order.tolist())
    physical, inverse = shape, identity
    if perm != identity:
        if sorted(perm) != list(identity):
            raise located_error(
                reader,
                path + ".dim_order",
                f"dim_order {list(perm)} is not a permutation of {rank} dims",
            )
        physical = tuple(shape[d] for d in perm)
        inverse = tuple(sorted(identity, key=perm.__getitem__))
    if info.native is None or info.bits != info.native:
        # No numpy type (a RawTensor: row-major, big-endian), or ml_dtypes (numpy swaps
        # their bits, not them): through the bits.
        bits = data.view(info.bits.newbyteorder("<")).reshape(physical).transpose(inverse)
        if info.native is None:
            return RawTensor(code, shape, bits.astype(info.bits.newbyteorder(">")).tobytes())
        native = bits.astype(info.bits.newbyteorder("="), copy=copy).view(info.native)
        return np.ascontiguousarray(native) if copy else native
    arr = data.view(info.native.newbyteorder("<")).reshape(physical)
    if inverse is not identity:
        arr = arr.transpose(inverse)
    return np.array(arr, dtype=info.native, order="C") if copy else arr


def _value(value: Any, copy: bool, reader: TableReader, path: str) -> Any:
    member = value["val"]
    if member is None:
        raise located_error(
            reader, path + ".val", "a Value without a member (NONE) has no EValue form"
        )
    kind, fields = member
    if kind == "Tensor":
        return _tensor(fields, copy, reader, path + ".val")
    if kind == "Int":
        return int(fields["int_val"])
    if kind == "Bool":
        return bool(fields["bool_val"])
    return float(fields["double_val"])


def _decode(buffer: Any, copy: bool) -> BundledProgram:
    from wireplan.flatbuffers.reader import TableReader  # not on `import wireplan.evalue`

    reader = TableReader(BUNDLED_SCHEMA, buffer, classes=_CLASSES)
    root = reader.read_table(
        BUNDLED_SCHEMA.root, reader.root_position(BUNDLED_SCHEMA.file_identifier)
    )
    cases = []
    for i, suite in enumerate(root["method_test_suites"]):
        for j, case in enumerate(suite["test_cases"]):
            at = f"$.method_test_suites[{i}].test_cases[{j}]"
            values = {
                side: [
                    _value(v, copy, reader, f"{at}.{side}[{k}]") for k, v in enumerate(case[side])
                ]
                for side in ("inputs", "expected_outputs")
            }
            cases.append(
                BundledTestCase(
                    suite["method_name"], values["inputs"], values["expected_outputs"], j
                )
            )
    program = root["program"]
    program = np.zeros(0, np.uint8) if program is None else program
    return BundledProgram(
        int(root["version"]), program.tobytes() if copy else program.data.toreadonly(), cases
    )


def decode_bundled(data: Any, *, copy: bool = True) -> BundledProgram:
    """Decode a bundled program held in ``data`` (any bytes-like object).

    Every offset and length is verified; a corrupt buffer raises
    :class:`~wireplan.DecodeError` with the byte offset and the path.  With
    ``copy=False`` tensors are read-only little-endian views of ``data`` (and
    ``program`` a memoryview); otherwise native-endian arrays the caller owns.
    """
    return _decode(as_memoryview(data), copy)


def read_bundled(path: str | os.PathLike[str], *, copy: bool = True) -> BundledProgram:
    """Read a ``.bpte`` file (mapped; with ``copy=False`` tensors view the mapping)."""
    mapped = MappedFile(path)
    try:
        return _decode(mapped.buffer, copy)
    finally:
        mapped.close()  # views still alive keep the mapping


def _where(case: BundledTestCase, side: str, k: int) -> str:
    return f"test case {case.method_name}[{case.index}] {side}[{k}]"


def _tensor_table(value: Any, where: str) -> dict[str, Any]:
    """A bundled ``Tensor``: the array itself is the data source (the plan swaps its bytes)."""
    if isinstance(value, RawTensor):
        info = info_for_code(value.scalar_type)
        shape = value.shape
        if info is None:
            raise EncodeError(f"{where}: unknown scalar type {value.scalar_type}")
        if value.nbytes != math.prod(shape) * info.itemsize:
            raise EncodeError(
                f"{where}: {value.nbytes} data bytes for shape {list(shape)} of {info.name}"
            )
        data: np.ndarray[Any, Any] = np.frombuffer(value.data, info.bits.newbyteorder(">"))
        code = value.scalar_type
    else:
        arr = np.asarray(value)
        info = info_for_dtype(arr.dtype)
        if info is None:
            raise EncodeError(f"{where}: a {arr.dtype} array has no ExecuTorch scalar type")
        code, shape = info.code, arr.shape
        data = arr.reshape(-1)
        if info.native is not None and info.bits != info.native:  # ml_dtypes: their bits
            data = np.ascontiguousarray(data).view(info.bits)
        elif info.itemsize == 1:
            data = data.view(np.uint8)
    if code not in FBS_SCALAR_TYPES:
        raise EncodeError(f"{where}: scalar type {info.name} has no code in program.fbs")
    if len(shape) > 255 or any(s > 0x7FFFFFFF for s in shape):
        raise EncodeError(
            f"{where}: shape {list(shape)} does not fit int32 sizes and a ubyte dim_order"
        )
    if data.size * data.dtype.itemsize != math.prod(shape) * info.itemsize:
        raise EncodeError(
            f"{where}: {data.nbytes} data bytes for shape {list(shape)} of {info.name}"
        )
    return {
        "scalar_type": code,
        "sizes": np.array(shape, np.int32),
        "data": data,
        "dim_order": np.arange(len(shape), dtype=np.uint8),
    }


def _bundled_value(value: Any, where: str) -> Union:
    from wireplan.flatbuffers.builder import Union

    # As the codec dispatches: numpy scalars are rank-0 tensors, not Python numbers.
    if not isinstance(value, np.ndarray | np.generic | RawTensor):
        if isinstance(value, bool):
            return Union("Bool", {"bool_val": value})
        if isinstance(value, int):
            if not -(1 << 63) <= value < 1 << 63:
                raise EncodeError(f"{where}: Int {value} is outside int64")
            return Union("Int", {"int_val": int(value)})
        if isinstance(value, float):
            return Union("Double", {"double_val": float(value)})
        convert = _converter(value)  # a torch tensor, when torch is there
        if convert is None:
            kind = "None" if value is None else type(value).__name__
            raise EncodeError(
                f"{where}: a {kind} has no bundled-program form (Tensor, Int, Bool or Double only)"
            )
        value = convert(value)
    return Union("Tensor", _tensor_table(value, where))


@functools.cache
def _builder() -> Builder:
    from wireplan.flatbuffers.builder import Builder

    return Builder(BUNDLED_SCHEMA, field_alignment=BUNDLED_ALIGNMENT)


def _plan(program: Any, test_cases: Iterable[BundledTestCase], version: int) -> BuildResult:
    pte = np.frombuffer(as_memoryview(program), np.uint8)
    if pte.size < 8 or pte[4:8].tobytes() != PROGRAM_SCHEMA.file_identifier:
        raise ArgumentError("program is not an ExecuTorch program (no ET12 at bytes 4..8)")
    suites: dict[str, list[dict[str, Any]]] = {}
    for case in test_cases:
        suites.setdefault(case.method_name, []).append(
            {
                side: [
                    {"val": _bundled_value(v, _where(case, side, k))} for k, v in enumerate(values)
                ]
                for side, values in (
                    ("inputs", case.inputs),
                    ("expected_outputs", case.expected_outputs),
                )
            }
        )
    root = {
        "version": version,
        "method_test_suites": [{"method_name": m, "test_cases": c} for m, c in suites.items()],
        "program": pte,
    }
    return _builder().build(root)


def encode_bundled(
    program: Any,
    test_cases: Iterable[BundledTestCase],
    *,
    version: int = BUNDLED_VERSION,
    threads: int | None = None,
) -> bytes:
    """A ``.bpte``: ``program`` (the ``.pte`` bytes) and ``test_cases``, grouped by method in
    first-seen order.  A value without a bundled form raises :class:`~wireplan.EncodeError`."""
    result = _plan(program, test_cases, version)
    return fill_new_bytes(result.size, lambda dest: execute(result.plan, dest, threads=threads))


def write_bundled(
    path: str | os.PathLike[str],
    program: Any,
    test_cases: Iterable[BundledTestCase],
    *,
    version: int = BUNDLED_VERSION,
    threads: int | None = None,
    durable: bool = True,
) -> None:
    """:func:`encode_bundled` straight into a file, atomically."""
    write_plan(_plan(program, test_cases, version).plan, path, threads=threads, durable=durable)


def _record(case: BundledTestCase, extended: bool) -> list[Any]:
    if not extended:
        for side, values in (("inputs", case.inputs), ("expected_outputs", case.expected_outputs)):
            for k, v in enumerate(values):
                code = v.scalar_type if isinstance(v, RawTensor) else None
                if isinstance(v, np.ndarray):
                    info = info_for_dtype(v.dtype)
                    code = None if info is None else info.code
                if code is not None and code not in JAVA_SCALAR_TYPES:
                    raise EncodeError(
                        f"{_where(case, side, k)}: a {FBS_SCALAR_TYPES.get(code, code)} tensor "
                        "is not in Java's scalar types (pass extended=True)"
                    )
    return [case.method_name, len(case.inputs), *case.inputs, *case.expected_outputs]


def bundled_to_records(
    source: str | os.PathLike[str],
    path: str | os.PathLike[str],
    *,
    extended: bool = False,
    durable: bool = True,
) -> int:
    """Write each test case of the ``.bpte`` at ``source`` as one record; return how many."""
    bundled = read_bundled(source, copy=False)
    with RecordWriter(path, extended=extended, durable=durable) as writer:
        for case in bundled.test_cases:
            writer.write(_record(case, extended))
    return len(bundled.test_cases)


def _test_case(
    record: Sequence[Any], f: RecordFile, i: int, counts: dict[str, int]
) -> BundledTestCase:
    if (
        len(record) < 2
        or not isinstance(record[0], str)
        or type(record[1]) is not int
        or not 0 <= record[1] <= len(record) - 2
    ):
        raise DecodeError(
            "a test case record is [method_name, len(inputs), *inputs, *expected_outputs]",
            f.span(i)[0],
            f"$[{i}]",
        )
    name, n = record[0], record[1]
    index = counts.get(name, 0)
    counts[name] = index + 1
    return BundledTestCase(name, list(record[2 : 2 + n]), list(record[2 + n :]), index)


def records_to_bundled(
    source: str | os.PathLike[str],
    path: str | os.PathLike[str],
    program: Any,
    *,
    version: int = BUNDLED_VERSION,
    threads: int | None = None,
    durable: bool = True,
) -> int:
    """A ``.bpte`` of ``program`` whose test cases are the records at ``source``; return how many.

    Tensors go from the mapped records to the output in one byte-swapping copy each.
    """
    counts: dict[str, int] = {}
    with RecordFile(source, copy=False, extended=True) as f:
        cases = [_test_case(f[i], f, i, counts) for i in range(len(f))]
    write_bundled(path, program, cases, version=version, threads=threads, durable=durable)
    return len(cases)
