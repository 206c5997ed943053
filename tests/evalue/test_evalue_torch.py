"""torch tensors in the codec, and EValueDataset with a multi-worker DataLoader."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from wireplan.errors import EncodeError
from wireplan.evalue import RawTensor, RecordWriter, decode, decode_list, encode, encode_list

torch = pytest.importorskip("torch")
from torch.utils.data import DataLoader  # noqa: E402

from wireplan.evalue.torch import EValueDataset, tensor_to_numpy, to_torch  # noqa: E402


def test_torch_tensors_encode_like_numpy() -> None:
    t = torch.arange(12, dtype=torch.float32).reshape(3, 4)
    assert encode(t) == encode(t.numpy())
    assert encode(t.T) == encode(np.ascontiguousarray(t.numpy().T))  # strided: row-major out
    assert encode(torch.tensor(5, dtype=torch.int64)) == encode(np.array(5, np.int64))
    p = torch.nn.Parameter(torch.ones(2))
    assert encode(p) == encode(np.ones(2, np.float32))
    assert encode_list([t, "x"]) == encode_list([t.numpy(), "x"])


def test_the_codec_loads_the_torch_door_by_name_when_it_meets_a_tensor() -> None:
    code = (
        "import sys, torch, wireplan.evalue as ev\n"
        "assert 'wireplan.evalue.torch' not in sys.modules\n"
        "assert ev.encode(torch.ones(2)) == ev.encode(torch.ones(2).numpy())\n"
        "assert 'wireplan.evalue.torch' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize(
    "dtype",
    ["bfloat16", "float8_e5m2", "float8_e4m3fn", "bool", "uint16", "complex64", "int16"],
)
def test_extended_torch_dtypes_round_trip(dtype: str) -> None:
    t = (torch.arange(6) % 3).to(getattr(torch, dtype)).reshape(2, 3)
    with pytest.raises(EncodeError):
        encode(t)
    back = to_torch(decode(encode(t, extended=True), extended=True))
    assert back.dtype == t.dtype and torch.equal(back, t)
    view = to_torch(decode(encode(t, extended=True), copy=False, extended=True))
    assert view.dtype == t.dtype and torch.equal(view, t)


def test_bfloat16_view_keeps_its_type() -> None:
    t = torch.tensor([[1.5, -2.0, 3.0]], dtype=torch.bfloat16)
    data = encode(t, extended=True)
    assert data[1] == 15
    view = decode(data, copy=False, extended=True)
    assert isinstance(view, RawTensor) and view.scalar_type == 15 and view.shape == (1, 3)
    assert encode(view, extended=True) == data  # scalar type 15 again, not uint16 (27)
    back = to_torch(view)
    assert back.dtype == torch.bfloat16 and torch.equal(back, t)
    assert encode(back, extended=True) == data
    empty = decode(encode(t[:0], extended=True), copy=False, extended=True)
    assert to_torch(empty).dtype == torch.bfloat16


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")
def test_meta_and_nested_tensors_are_encode_errors() -> None:
    with pytest.raises(EncodeError, match="meta"):
        encode(torch.empty(2, device="meta"))
    nested = torch.nested.nested_tensor([torch.ones(2), torch.ones(3)])
    with pytest.raises(EncodeError, match="nested"):
        encode(nested)
    with pytest.raises(EncodeError, match="nested"):
        encode_list([nested])


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")
def test_complex32_and_quantized() -> None:
    t = torch.tensor([1 + 2j, complex(0.0, -0.5)], dtype=torch.complex32)
    raw = tensor_to_numpy(t)
    assert isinstance(raw, RawTensor) and raw.scalar_type == 8 and raw.shape == (2,)
    assert raw.data == np.array([1, 2, 0, -0.5], ">f2").tobytes()
    assert decode(encode(t, extended=True), extended=True) == raw
    q = torch.quantize_per_tensor(torch.ones(2), 0.1, 0, torch.qint8)
    with pytest.raises(EncodeError, match="quantized"):
        encode(q, extended=True)


def _records(n: int) -> list[list[object]]:
    return [[np.full((2, 2), i, np.float32), f"rec-{i}", i] for i in range(n)]


def _ids(loader: DataLoader[list[object]]) -> list[int]:
    out = []
    for values in loader:
        tensor, label, index = values
        assert isinstance(tensor, torch.Tensor) and tensor.dtype == torch.float32
        assert label == f"rec-{index}" and float(tensor[0, 0]) == index
        out.append(int(index))
    return out


def test_dataset_over_record_file_two_workers(tmp_path: Path) -> None:
    path = tmp_path / "train.evr"
    with RecordWriter(path) as w:
        for r in _records(23):
            w.write(r)
    ds = EValueDataset(path)
    assert sorted(_ids(DataLoader(ds, batch_size=None))) == list(range(23))
    ids = _ids(DataLoader(ds, batch_size=None, num_workers=2))
    assert sorted(ids) == list(range(23))  # every record exactly once


def test_dataset_over_byte_strings_two_workers() -> None:
    blobs = [encode_list(r) for r in _records(17)]

    def callback() -> Iterator[bytes]:  # an IPC source: one byte string per example
        yield from blobs

    for source in (blobs, callback):
        ds = EValueDataset(source)
        ids = _ids(DataLoader(ds, batch_size=None, num_workers=2))
        assert sorted(ids) == list(range(17))


def test_dataset_without_torch_conversion() -> None:
    ds = EValueDataset([encode_list([np.arange(3), "a"])], as_torch=False)
    (values,) = list(ds)
    assert isinstance(values[0], np.ndarray) and values[1] == "a"
    assert decode_list(encode_list(values))[1] == "a"
