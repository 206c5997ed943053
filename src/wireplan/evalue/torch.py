"""torch support for EValue: tensors in and out, and ``EValueDataset``.

This is the only wireplan module that imports torch.  It sits above the
codec and the record files: ``EValueDataset`` is the torch-free
:class:`~wireplan.evalue._dataset.DatasetCore` made a torch
``IterableDataset`` (``wireplan.evalue.dataset`` names it too).  The codec
calls :func:`tensor_to_numpy` when it meets a torch tensor: it recognises
one by its type's module and loads this module by name, without importing
it or torch, so ``encode`` and ``encode_list`` accept tensors whenever torch
is installed and nothing imports in a circle.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from wireplan.core.extras import door

# From PyPI, the torch extra resolves to a CUDA build of several GB; the hint names the CPU one.
with door(
    "wireplan.evalue.torch",
    "torch",
    "torch",
    "for the CPU build, first: pip install torch --index-url https://download.pytorch.org/whl/cpu",
):
    import torch
    from torch.utils.data import IterableDataset, get_worker_info

from wireplan.errors import EncodeError
from wireplan.evalue._dataset import STATE_VERSION, DatasetCore
from wireplan.evalue._types import RawTensor

__all__ = [
    "STATE_VERSION",
    "EValueDataset",
    "distributed_rank",
    "tensor_to_numpy",
    "to_torch",
]

# torch dtypes numpy has no type for, viewed through an integer of their size;
# the name is the ml_dtypes type that holds them.
_VIA_BITS: dict[torch.dtype, tuple[torch.dtype, str, int]] = {
    torch.bfloat16: (torch.uint16, "bfloat16", 15),
    torch.float8_e5m2: (torch.uint8, "float8_e5m2", 23),
    torch.float8_e4m3fn: (torch.uint8, "float8_e4m3fn", 24),
    torch.float8_e5m2fnuz: (torch.uint8, "float8_e5m2fnuz", 25),
    torch.float8_e4m3fnuz: (torch.uint8, "float8_e4m3fnuz", 26),
}
_TORCH_BY_ML_NAME: dict[str, torch.dtype] = {name: dt for dt, (_, name, _) in _VIA_BITS.items()}
_VIA_BITS_BY_CODE: dict[int, tuple[torch.dtype, torch.dtype]] = {
    code: (dt, bits) for dt, (bits, _, code) in _VIA_BITS.items()
}
_TORCH_MAX_RANK = 64


def tensor_to_numpy(tensor: Any) -> np.ndarray[Any, Any] | RawTensor:
    """The elements of a torch tensor as a numpy array (no copy where torch allows).

    bfloat16 and float8 tensors become ``ml_dtypes`` arrays, or a
    :class:`RawTensor` when ml_dtypes is missing; ``complex32`` becomes a
    :class:`RawTensor`.  Quantized and sparse tensors raise :class:`EncodeError`.
    """
    t: torch.Tensor = tensor.detach()
    if t.is_nested:
        raise EncodeError("cannot encode a nested torch tensor; encode its components one by one")
    if t.is_meta:
        raise EncodeError("cannot encode a torch tensor on the meta device: it has no data")
    if t.layout != torch.strided:
        raise EncodeError(f"cannot encode a {t.layout} torch tensor; make it dense first")
    if t.is_quantized:
        raise EncodeError(
            "cannot encode a quantized torch tensor: its scale and zero point have no place on the wire"
        )
    if t.device.type != "cpu":
        t = t.cpu()
    t = t.resolve_conj().resolve_neg()
    via = _VIA_BITS.get(t.dtype)
    if via is not None:
        bits_dtype, name, code = via
        bits = t.contiguous().view(bits_dtype).numpy()
        try:
            import ml_dtypes
        except ImportError:
            return RawTensor(
                code, tuple(t.shape), bits.astype(bits.dtype.newbyteorder(">")).tobytes()
            )
        typed: np.ndarray[Any, Any] = bits.view(getattr(ml_dtypes, name))
        return typed
    if t.dtype == torch.complex32:
        parts = torch.view_as_real(t.contiguous()).numpy()
        return RawTensor(8, tuple(t.shape), parts.astype(">f2").tobytes())
    arr: np.ndarray[Any, Any] = t.numpy()
    return arr


def to_torch(value: Any) -> Any:
    """``value`` with numpy arrays turned into torch tensors; other values as they are.

    Native-endian, writable arrays (``decode(copy=True)``) share memory
    with the tensor; big-endian views (``copy=False``) are copied, as torch
    holds native byte order only.  A :class:`RawTensor` of bfloat16 or
    float8 (a zero-copy bfloat16 view; no ml_dtypes) becomes a tensor of that
    type, copied; other RawTensors stay as they are.  Lists are converted
    element by element.
    """
    if isinstance(value, list):
        return [to_torch(v) for v in value]
    if isinstance(value, RawTensor):
        return _raw_to_torch(value)
    if not isinstance(value, np.ndarray):
        return value
    arr = value
    if not arr.dtype.isnative:
        arr = arr.astype(arr.dtype.newbyteorder("="))
    elif not arr.flags.writeable:
        arr = arr.copy()
    target = _TORCH_BY_ML_NAME.get(arr.dtype.name) if arr.dtype.isbuiltin == 2 else None
    if target is not None:
        bits = np.dtype(f"u{arr.dtype.itemsize}")
        return torch.from_numpy(np.ascontiguousarray(arr).view(bits)).view(target)
    return torch.from_numpy(arr)


def _raw_to_torch(raw: RawTensor) -> Any:
    # bfloat16 and float8 held as wire bits (a zero-copy bfloat16 view, or no
    # ml_dtypes): a native copy of the bits, viewed as the torch type.
    via = _VIA_BITS_BY_CODE.get(raw.scalar_type)
    if via is None:
        return raw
    target, bits_dtype = via
    if len(raw.shape) > _TORCH_MAX_RANK:  # torch holds at most 64 dimensions, as numpy
        return raw
    size = bits_dtype.itemsize
    bits = np.frombuffer(raw.data, f">u{size}").astype(f"=u{size}").reshape(raw.shape)
    return torch.from_numpy(bits).view(target)


def distributed_rank() -> tuple[int, int] | None:
    """``(rank, world_size)`` of ``torch.distributed`` when it is initialized, else None."""
    dist = torch.distributed
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return None


class EValueDataset(DatasetCore, IterableDataset[list[Any]]):
    """A torch ``IterableDataset`` of EValue records: each item is one decoded list.

    ``source`` is one or more record files: a path, a folder, a glob
    (``"data/train-*.evr"``) or a list of these (see
    :func:`~wireplan.evalue.shard_paths`), read through mmap.  Or it is a
    stream: an iterable of byte strings each holding one
    :func:`~wireplan.evalue.encode_list` payload, or a zero-argument
    callable returning one (called once per pass and worker).

    Record files make one sequence per epoch: shards in order, or with
    ``shuffle=True`` in an order drawn from ``(seed, epoch)``, each shard's
    records shuffled within windows of ``window`` consecutive records.
    :meth:`set_epoch` picks the epoch.  The sequence is split over
    ``world_size`` ranks (from ``torch.distributed`` when it is initialized,
    else 0 of 1, unless given) as contiguous ranges sized by ``balance``:
    ``"split"`` (every record once, ranks differ by at most one record),
    ``"drop"`` (equal ranks, the epoch's last ``N % world_size`` records left
    out) or ``"pad"`` (equal ranks, the epoch's first records read twice).
    Within a rank, DataLoader worker ``w`` of ``n`` takes the blocks of
    ``batch_size`` consecutive records whose index modulo ``n`` is ``w``, so
    a ``DataLoader(batch_size=batch_size)`` (or ``batch_size=None`` with the
    default 1) delivers the rank's records in sequence order.

    :meth:`state_dict` / :meth:`load_state_dict` resume mid-epoch without
    repeating or skipping a record: in a DataLoader worker (as torchdata's
    ``StatefulDataLoader`` calls them) they hold that worker's place; in the
    main process ``state_dict(consumed=k)`` is the place after the first
    ``k`` records a DataLoader delivered.  Tensors come out as torch tensors
    unless ``as_torch=False``.
    """

    def _world(self) -> tuple[int, int] | None:
        return distributed_rank()

    def _split(self) -> tuple[int, int]:
        info = get_worker_info()
        return (0, 1) if info is None else (info.id, info.num_workers)

    def _finish(self, values: list[Any]) -> list[Any]:
        return [to_torch(v) for v in values] if self.as_torch else values
