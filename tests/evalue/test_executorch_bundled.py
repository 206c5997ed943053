"""ExecuTorch's own bundled programs against wireplan's bridge, both ways.

executorch exports a five-method program (float tensors; an int64 tensor, an Int argument
and an int64 buffer; a channels-last input; eight dtypes with a Double and a Bool argument;
an empty and a rank-0 tensor) and bundles test cases with its devtools.
wireplan reads them (and the .pte's constants) as executorch's own deserializers do; and
wireplan's bundles of executorch's .pte, from records of eager torch's outputs, are what
executorch's runtime verifies and its deserializer reads.  Runs in ``.venv-executorch``
(``python3 dev.py test-env executorch``); the main environment's run leaves this file out.
"""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from wireplan.errors import EncodeError
from wireplan.evalue import (
    BundledTestCase,
    RawTensor,
    RecordWriter,
    bundled_to_records,
    decode_bundled,
    encode_bundled,
    program_values,
    read_bundled,
    read_records,
    records_to_bundled,
)
from wireplan.evalue._dtypes import info_for_code

pytestmark = pytest.mark.filterwarnings("ignore:This API is experimental:Warning")
torch = pytest.importorskip("torch")
bp_config = pytest.importorskip("executorch.devtools.bundled_program.config")
bp_core = pytest.importorskip("executorch.devtools.bundled_program.core")
bp_serialize = pytest.importorskip("executorch.devtools.bundled_program.serialize")
runtime = pytest.importorskip("executorch.extension.pybindings.portable_lib")
pte_serialize = pytest.importorskip("executorch.exir._serialize._program")
exir = pytest.importorskip("executorch.exir")

K = 3  # the Int argument of `count`: export specializes it, so every case passes this one


class Affine(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 2)

    def forward(self, x: Any, y: Any) -> tuple[Any, Any]:
        return self.lin(x) + y, x * 2


class Count(torch.nn.Module):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", torch.arange(5, dtype=torch.int64) * 7 - 9)

    def forward(self, a: Any, k: int) -> tuple[Any]:
        return (a * k + self.table,)


class Half(torch.nn.Module):  # type: ignore[misc]
    def forward(self, img: Any) -> tuple[Any]:
        return (img * 0.5,)


class Mixed(torch.nn.Module):  # type: ignore[misc]
    def forward(self, *args: Any) -> tuple[Any, ...]:
        b, u, i8, i16, i32, h, d, bf, scale, flag = args  # scale and flag: specialized
        return ~b if flag else b, u + 1, i8 * 2, i16 - 3, i32 * 5, h * 2, d * scale, bf * 2


class Edges(torch.nn.Module):  # type: ignore[misc]
    def forward(self, empty: Any, scalar: Any) -> tuple[Any, Any]:
        return empty + 1, scalar * 3


def _mixed(seed: int) -> tuple[Any, ...]:
    g = torch.Generator().manual_seed(seed)
    return (
        torch.rand(3, generator=g) > 0.5,
        torch.randint(0, 200, (4,), dtype=torch.uint8, generator=g),
        torch.randint(-60, 60, (2, 3), dtype=torch.int8, generator=g),
        torch.randint(-999, 999, (2, 3), dtype=torch.int16, generator=g),
        torch.randint(-(2**28), 2**28, (4,), dtype=torch.int32, generator=g),
        torch.randn(3, generator=g).half(),
        torch.randn(2, 2, dtype=torch.float64, generator=g),
        torch.randn(3, generator=g).bfloat16(),
        1.5,
        True,
    )


def _cases(model: Any, inputs: list[tuple[Any, ...]]) -> list[Any]:
    out = []
    for args in inputs:
        with torch.no_grad():
            expected = [t.clone() for t in model(*args)]
        out.append(bp_config.MethodTestCase(inputs=args, expected_outputs=expected))
    return out


@pytest.fixture(scope="module")
def et() -> dict[str, Any]:
    """The program executorch exports (once) and the bundle its devtools write of it."""
    torch.manual_seed(0)
    models = {
        "forward": Affine().eval(),
        "count": Count(),
        "half": Half(),
        "mixed": Mixed(),
        "edges": Edges(),
    }
    x, y, a = torch.randn(4, 3), torch.randn(4, 2), torch.arange(5)
    img = torch.randn(1, 2, 3, 3).to(memory_format=torch.channels_last)
    edges = (torch.zeros(0, 3), torch.tensor(2.5))
    examples = {"forward": (x, y), "count": (a, K), "half": (img,), "mixed": _mixed(0)}
    examples["edges"] = edges
    exported = {m: torch.export.export(models[m], examples[m]) for m in models}
    program = exir.to_edge(exported).to_executorch()
    inputs = {
        "forward": [(x, y), (torch.randn(4, 3), torch.randn(4, 2))],
        "count": [(a, K), (torch.tensor([-4, 0, 1, 2**40, -(2**40)]), K)],
        "half": [(img,)],
        "mixed": [_mixed(1), _mixed(2)],
        "edges": [edges, (edges[0], torch.tensor(-0.0))],
    }
    suites = [bp_config.MethodTestSuite(m, _cases(models[m], inputs[m])) for m in models]
    bundle = bp_core.BundledProgram(program, suites)
    return {
        "models": models,
        "program": program,
        "pte": bytes(program.buffer),
        "suites": bundle.method_test_suites,  # sorted by method name, as executorch writes
        "bpte": bp_serialize.serialize_from_bundled_program_to_flatbuffer(bundle),
    }


def _numpy(t: Any) -> np.ndarray[Any, Any]:
    return np.array(t.detach().numpy(), order="C")  # a copy, row-major, rank 0 kept


def _same(ours: Any, theirs: Any, owned: bool = True) -> None:
    """An EValue we read equals executorch's value: dtype, shape, every element."""
    if isinstance(theirs, torch.Tensor) and theirs.dtype == torch.bfloat16:  # no numpy type
        assert isinstance(ours, RawTensor) and ours.scalar_type == 15
        assert ours.shape == tuple(theirs.shape)
        assert ours.data == _numpy(theirs.view(torch.int16)).astype(">i2").tobytes()
    elif isinstance(theirs, torch.Tensor):
        want = _numpy(theirs)
        assert isinstance(ours, np.ndarray)
        assert ours.dtype == want.dtype and ours.shape == want.shape
        assert np.array_equal(ours, want)
        assert ours.flags.c_contiguous or not owned
    else:
        assert type(ours) is type(theirs) and ours == theirs


def _theirs(et: dict[str, Any]) -> list[tuple[str, int, Any]]:
    return [(s.method_name, i, c) for s in et["suites"] for i, c in enumerate(s.test_cases)]


@pytest.mark.parametrize("copy", [True, False])
def test_executorchs_bundle_reads_as_its_test_cases(et: dict[str, Any], copy: bool) -> None:
    ours = decode_bundled(et["bpte"], copy=copy)
    assert ours.version == 2
    assert bytes(ours.program) == et["pte"]
    theirs = _theirs(et)
    assert [(c.method_name, c.index) for c in ours.test_cases] == [(m, i) for m, i, _ in theirs]
    for case, (_, _, their) in zip(ours.test_cases, theirs, strict=True):
        assert len(case.inputs) == len(their.inputs)
        assert len(case.expected_outputs) == len(their.expected_outputs)
        for mine, want in zip(case.inputs, their.inputs, strict=True):
            _same(mine, want, copy)
        for mine, want in zip(case.expected_outputs, their.expected_outputs, strict=True):
            _same(mine, want, copy)
    half = next(c for c in ours.test_cases if c.method_name == "half")
    assert half.inputs[0].shape == (1, 2, 3, 3)  # executorch 1.5 stores it contiguous
    assert np.shares_memory(half.inputs[0], np.frombuffer(et["bpte"], np.uint8)) is not copy


@pytest.mark.parametrize("order", [(0, 2, 3, 1), (3, 1, 0, 2)])
def test_a_dim_ordered_tensor_reads_as_its_logical_array(
    et: dict[str, Any], order: tuple[int, ...]
) -> None:
    """executorch's serializer writes a tensor stored in ``order`` (its devtools 1.5 store every
    tensor contiguous, so the stored order is set in its schema objects): we read the array."""
    img = torch.arange(36, dtype=torch.float32).reshape(1, 2, 3, 6) - 11.5
    suite = bp_config.MethodTestSuite("half", _cases(et["models"]["half"], [(img,)]))
    bundle = bp_core.BundledProgram(et["program"], [suite])
    (value,) = bundle.serialize_to_schema().method_test_suites[0].test_cases[0].inputs
    value.val.data = img.permute(*order).contiguous().numpy().tobytes()
    value.val.dim_order = list(order)
    bpte = bp_serialize.serialize_from_bundled_program_to_flatbuffer(bundle)  # the schema above
    for copy in (True, False):
        (case,) = decode_bundled(bpte, copy=copy).test_cases
        _same(case.inputs[0], img, copy)
        _same(case.expected_outputs[0], img * 0.5, copy)


def test_executorchs_bundle_as_records_and_from_a_file(et: dict[str, Any], tmp_path: Path) -> None:
    source = tmp_path / "theirs.bpte"
    source.write_bytes(et["bpte"])
    assert read_bundled(source).test_cases[0].method_name == "count"
    with pytest.raises(EncodeError, match=r"test case mixed\[0\] inputs\[0\]: a BOOL tensor"):
        bundled_to_records(source, tmp_path / "java.evr")  # Java's seven types only
    count = bundled_to_records(source, tmp_path / "cases.evr", extended=True)
    records = list(read_records(tmp_path / "cases.evr", extended=True))
    theirs = _theirs(et)
    assert count == len(records) == len(theirs)
    for record, (method, _, their) in zip(records, theirs, strict=True):
        assert record[0] == method and record[1] == len(their.inputs)
        values = record[2:]
        for mine, want in zip(values, [*their.inputs, *their.expected_outputs], strict=True):
            _same(mine, want)
    # and back: executorch's deserializer reads the same values as from its own bundle
    assert records_to_bundled(tmp_path / "cases.evr", tmp_path / "back.bpte", et["pte"]) == count
    back = bp_serialize.deserialize_from_flatbuffer_to_bundled_program(
        (tmp_path / "back.bpte").read_bytes()
    )
    assert bytes(back.program) == et["pte"]
    _same_values(_schema_values(back), _schema_values_of(et))


def _same_values(mine: list[Any], theirs: list[Any]) -> None:
    assert len(mine) == len(theirs)
    for a, b in zip(mine, theirs, strict=True):
        assert a[:3] == b[:3]
        if len(a) == 4:
            assert a[3].dtype == b[3].dtype and np.array_equal(a[3], b[3])


def _schema_values(bundle: Any) -> list[Any]:
    """Every value of executorch's own deserialized bundle as plain data, in file order."""
    out: list[Any] = []
    for suite in bundle.method_test_suites:
        for case in suite.test_cases:
            for side in (case.inputs, case.expected_outputs):
                for value in side:
                    v = value.val
                    if hasattr(v, "sizes"):
                        info = info_for_code(int(v.scalar_type))
                        assert info is not None
                        dtype = info.bits if info.native is None else info.native
                        arr = np.frombuffer(bytes(v.data), dtype.newbyteorder("<"))
                        order = list(v.dim_order)
                        physical = [v.sizes[d] for d in order]
                        arr = arr.reshape(physical).transpose(np.argsort(order))
                        out.append((suite.method_name, int(v.scalar_type), list(v.sizes), arr))
                    else:
                        out.append((suite.method_name, type(v).__name__, vars(v)))
    return out


def _schema_values_of(et: dict[str, Any]) -> list[Any]:
    return _schema_values(bp_serialize.deserialize_from_flatbuffer_to_bundled_program(et["bpte"]))


def _constants(pte: bytes) -> dict[str, dict[int, Any]]:
    """Per method, its values with a Java form, as executorch's own .pte deserializer reads them."""
    program = pte_serialize.deserialize_pte_binary(pte).program
    out: dict[str, dict[int, Any]] = {}
    for plan in program.execution_plan:
        values: dict[int, Any] = {}
        for i, ev in enumerate(plan.values):
            v, kind = ev.val, type(ev.val).__name__
            if kind == "Tensor" and v.data_buffer_idx > 0 and v.allocation_info is None:
                info = info_for_code(int(v.scalar_type))
                assert info is not None and info.native is not None
                storage = bytes(program.constant_buffer[v.data_buffer_idx].storage)
                n = math.prod(v.sizes)
                arr = np.frombuffer(storage, info.native.newbyteorder("<"), count=n)
                order = list(v.dim_order) or list(range(len(v.sizes)))
                physical = [v.sizes[d] for d in order]
                values[i] = arr.reshape(physical).transpose(np.argsort(order)).astype(info.native)
            elif kind in ("Int", "Bool", "Double", "String"):
                values[i] = {"Int": int, "Bool": bool, "Double": float, "String": str}[kind](
                    next(iter(vars(v).values()))
                )
            elif kind == "Null":
                values[i] = None
        out[plan.name] = values
    return out


@pytest.mark.parametrize("copy", [True, False])
def test_program_values_are_executorchs_constants(et: dict[str, Any], copy: bool) -> None:
    pte = decode_bundled(et["bpte"], copy=False).program  # the .pte inside their bundle
    theirs = _constants(et["pte"])
    assert set(theirs) == set(et["models"])
    for method, values in theirs.items():
        mine = program_values(pte, method=method, indices=list(values), copy=copy)
        assert len(mine) == len(values)
        for got, want in zip(mine, values.values(), strict=True):
            if isinstance(want, np.ndarray):
                assert isinstance(got, np.ndarray) and got.dtype == want.dtype
                assert got.shape == want.shape and np.array_equal(got, want)
            else:
                assert type(got) is type(want) and got == want
    # the model's weights and buffer are among them, bit for bit
    models = et["models"]
    forward = [v for v in theirs["forward"].values() if isinstance(v, np.ndarray)]
    for p in (models["forward"].lin.weight, models["forward"].lin.bias):
        assert any(v.shape == p.shape and np.array_equal(v, _numpy(p)) for v in forward)
    count = program_values(pte, method="count", indices=list(theirs["count"]))
    assert any(
        np.array_equal(v, _numpy(models["count"].table)) for v in count if hasattr(v, "shape")
    )


def test_values_without_a_java_form_are_refused_by_index(et: dict[str, Any]) -> None:
    program = pte_serialize.deserialize_pte_binary(et["pte"]).program
    plan = next(p for p in program.execution_plan if p.name == "forward")
    planned = next(
        i
        for i, ev in enumerate(plan.values)
        if type(ev.val).__name__ == "Tensor" and ev.val.data_buffer_idx == 0
    )
    with pytest.raises(EncodeError, match=f"value {planned} of forward: .*planned at run time"):
        program_values(et["pte"], method="forward", indices=[planned])
    lists = [i for i, ev in enumerate(plan.values) if type(ev.val).__name__ == "IntList"]
    assert lists
    with pytest.raises(EncodeError, match=f"value {lists[0]} of forward: an IntList"):
        program_values(et["pte"], method="forward", indices=lists[:1])


def _verify(bpte: bytes, cases: list[tuple[str, int]]) -> None:
    """executorch's runtime loads ``bpte``, runs each case's inputs and checks its outputs."""
    module = runtime._load_bundled_program_from_buffer(bpte)
    for method, index in cases:
        module.verify_result_with_bundled_expected_output(method, index, rtol=1e-5, atol=1e-4)


def _eager(et: dict[str, Any], method: str, inputs: list[Any]) -> list[np.ndarray[Any, Any]]:
    args = [torch.from_numpy(np.array(v)) if isinstance(v, np.ndarray) else v for v in inputs]
    with torch.no_grad():
        return [_numpy(t) for t in et["models"][method](*args)]


finite = st.floats(-100, 100, width=32, allow_subnormal=False)


@settings(max_examples=8, deadline=None)
@given(
    xs=st.lists(hnp.arrays(np.float32, (4, 3), elements=finite), min_size=1, max_size=3),
    ys=hnp.arrays(np.float32, (4, 2), elements=finite),
    a=hnp.arrays(np.int64, (5,), elements=st.integers(-(2**60), 2**60)),
)
def test_our_bundle_from_records_is_verified_by_executorchs_runtime(
    et: dict[str, Any], xs: list[np.ndarray[Any, Any]], ys: np.ndarray[Any, Any], a: Any
) -> None:
    cases = [["forward", 2, x, ys] for x in xs] + [["count", 2, a, K]]
    with tempfile.TemporaryDirectory() as tmp:
        records = Path(tmp) / "cases.evr"
        with RecordWriter(records, durable=False) as writer:
            for method, n, *inputs in cases:
                writer.write([method, n, *inputs, *_eager(et, method, inputs)])
        out = Path(tmp) / "ours.bpte"
        assert records_to_bundled(records, out, et["pte"], durable=False) == len(cases)
        bpte = out.read_bytes()
    _verify(bpte, [("forward", i) for i in range(len(xs))] + [("count", 0)])
    # executorch's deserializer reads the same values back
    theirs = bp_serialize.deserialize_from_flatbuffer_to_bundled_program(bpte)
    assert theirs.version == 2 and bytes(theirs.program) == et["pte"]
    assert [s.method_name for s in theirs.method_test_suites] == ["forward", "count"]
    flat = [v for c in cases for v in (*c[2:], *_eager(et, c[0], c[2:]))]
    got = _schema_values(theirs)
    assert len(got) == len(flat)
    for value, want in zip(got, flat, strict=True):
        if isinstance(want, np.ndarray):
            assert value[3].dtype == want.dtype.newbyteorder("<") and value[2] == list(want.shape)
            assert np.array_equal(value[3], want)
        else:
            assert value[1] == "Int" and value[2] == {"int_val": want}


def test_a_wrong_expected_output_fails_executorchs_verification(et: dict[str, Any]) -> None:
    x, y = np.ones((4, 3), np.float32), np.full((4, 2), 0.25, np.float32)
    good = _eager(et, "forward", [x, y])
    wrong = [good[0] + np.float32(1e-2), good[1]]
    bundle = encode_bundled(
        et["pte"],
        [
            BundledTestCase("forward", [x, y], good, 0),
            BundledTestCase("forward", [x, y], wrong, 1),
            BundledTestCase("count", [np.arange(5), K], _eager(et, "count", [np.arange(5), K]), 0),
        ],
    )
    _verify(bundle, [("forward", 0), ("count", 0)])
    with pytest.raises(RuntimeError, match="verification failed"):
        _verify(bundle, [("forward", 1)])


def test_torch_tensors_encode_as_executorchs_own_bundle(et: dict[str, Any]) -> None:
    """encode_bundled of executorch's test cases (torch tensors) holds what its serializer wrote."""
    cases = [
        BundledTestCase(m, list(c.inputs), list(c.expected_outputs), i) for m, i, c in _theirs(et)
    ]
    ours = encode_bundled(et["pte"], cases)
    # not `half`: executorch's runtime refuses its own bundle of that channels-last export too
    # (its kernels' dim-order check), so only the values are compared there
    _verify(ours, [(c.method_name, c.index) for c in cases if c.method_name != "half"])
    mine = _schema_values(bp_serialize.deserialize_from_flatbuffer_to_bundled_program(ours))
    _same_values(mine, _schema_values_of(et))
