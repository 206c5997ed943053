"""EValue benchmark: wireplan.evalue against numpy.copyto, struct and pickle, in one run.

Run: ``.venv/bin/python benchmarks/bench_evalue.py [--repeat N] [--side 4096]``

Prints a markdown table of medians and ratios.  Every candidate runs in the
same process, on the same data, interleaved round by round so that load
from other processes on the machine hits all of them alike.

Baselines:

- ``numpy.copyto`` of the same array into a new big-endian array
  (``np.empty(shape, '>f4')``, so allocation and page faults count as they do
  for ``encode``/``decode``); also into a preallocated one, the baseline of
  ``encode_into`` (which writes into a preallocated ``bytearray``);
- ``struct``: a precompiled ``struct.Struct`` packing and unpacking the same
  9 (or 2) bytes an EValue scalar is, and the module-level
  ``struct.pack``/``struct.unpack``;
- ``pickle`` protocol 5 (in-band buffers) of the same array and scalars.

Not measured: disk I/O (record files are read from the page cache), torch
conversion, and multi-threaded list encoding.
"""

from __future__ import annotations

import argparse
import pickle
import platform
import statistics
import struct
import sys
import time
from collections.abc import Callable
from pathlib import Path
from timeit import Timer
from typing import Any

import numpy as np

import report
import wireplan
from wireplan.evalue import decode, decode_list, encode, encode_into, encode_list


def _cpu() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _interleaved(cases: dict[str, Callable[[], Any]], repeat: int) -> dict[str, float]:
    """Median seconds per call of each case, running the cases round-robin."""
    times: dict[str, list[float]] = {name: [] for name in cases}
    for fn in cases.values():  # warm up
        fn()
    for _ in range(repeat):
        for name, fn in cases.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _per_call(cases: dict[str, Callable[[], Any]], repeat: int, number: int) -> dict[str, float]:
    """Median seconds per call for fast operations (timeit loops), round-robin."""
    timers = {name: Timer(fn) for name, fn in cases.items()}
    times: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(repeat):
        for name, t in timers.items():
            times[name].append(t.timeit(number) / number)
    return {name: statistics.median(ts) for name, ts in times.items()}


def _fmt(seconds: float) -> str:
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e9:.0f} ns"


def tensor_rows(side: int, repeat: int) -> list[tuple[str, float, str, float]]:
    arr = np.random.default_rng(0).standard_normal((side, side), dtype=np.float32)
    blob = encode(arr)
    listed = encode_list([arr])
    pickled = pickle.dumps(arr, protocol=5)
    prealloc = np.empty(arr.shape, ">f4")
    prealloc_native = np.empty(arr.shape, np.float32)
    be = np.frombuffer(blob, ">f4", offset=11).reshape(arr.shape)
    into = bytearray(len(blob))

    def copy_new() -> None:
        np.copyto(np.empty(arr.shape, ">f4"), arr)

    def copy_new_back() -> None:
        np.copyto(np.empty(arr.shape, np.float32), be)

    cases: dict[str, Callable[[], Any]] = {
        "numpy.copyto into new >f4 array": copy_new,
        "numpy.copyto >f4 -> new native array": copy_new_back,
        "numpy.copyto into preallocated >f4": lambda: np.copyto(prealloc, arr),
        "numpy.copyto >f4 -> preallocated native": lambda: np.copyto(prealloc_native, be),
        "encode": lambda: encode(arr),
        "encode_into(preallocated bytearray)": lambda: encode_into(arr, into),
        "decode(copy=True)": lambda: decode(blob),
        "encode_list([t]) (plan + execute)": lambda: encode_list([arr], threads=1),
        "decode_list(copy=True)": lambda: decode_list(listed),
        "pickle.dumps protocol 5": lambda: pickle.dumps(arr, protocol=5),
        "pickle.loads": lambda: pickle.loads(pickled),
    }
    t = _interleaved(cases, repeat)
    enc_base = t["numpy.copyto into new >f4 array"]
    dec_base = t["numpy.copyto >f4 -> new native array"]
    rows = []
    for name, secs in t.items():
        decoding = "decode" in name or "loads" in name or "-> " in name
        base, label = (
            (dec_base, "copyto >f4 -> new") if decoding else (enc_base, "copyto -> new >f4")
        )
        if name.startswith("encode_into"):  # like for like: both write into memory they got
            base, label = t["numpy.copyto into preallocated >f4"], "copyto -> preallocated >f4"
        rows.append((name, secs, label, secs / base))

    small = encode(np.zeros((4,), np.float32))
    views = _per_call(
        {
            f"decode(copy=False) {side}x{side}": lambda: decode(blob, copy=False),
            "decode(copy=False) 4 elements": lambda: decode(small, copy=False),
            f"decode_list(copy=False) {side}x{side}": lambda: decode_list(listed, copy=False),
        },
        repeat,
        2000,
    )
    for name, secs in views.items():
        rows.append((name, secs, "", float("nan")))
    return rows


def scalar_rows(repeat: int) -> list[tuple[str, float, float, float, float]]:
    rows: list[tuple[str, float, float, float, float]] = []
    s_int = struct.Struct(">bq")
    s_double = struct.Struct(">bd")
    s_bool = struct.Struct(">b?")
    cases = {
        "Int": (123456789, s_int, ">bq", (4, 123456789)),
        "Double": (3.25, s_double, ">bd", (3, 3.25)),
        "Bool": (True, s_bool, ">b?", (5, True)),
    }
    for name, (value, st, fmt, args) in cases.items():
        packed = st.pack(*args)
        assert encode(value) == packed and decode(packed) == value

        # Every callee is bound as a default argument: the same local lookup for all.
        def wp(v: Any = value, enc: Any = encode, dec: Any = decode) -> Any:
            return dec(enc(v))

        def precompiled(a: tuple[Any, ...] = args, pk: Any = st.pack, up: Any = st.unpack) -> Any:
            return up(pk(*a))

        def module(
            a: tuple[Any, ...] = args,
            f: str = fmt,
            pk: Any = struct.pack,
            up: Any = struct.unpack,
        ) -> Any:
            return up(f, pk(f, *a))

        def pick(v: Any = value, dumps: Any = pickle.dumps, loads: Any = pickle.loads) -> Any:
            return loads(dumps(v, protocol=5))

        t = _per_call(
            {
                "wireplan": wp,
                "struct.Struct": precompiled,
                "struct module": module,
                "pickle 5": pick,
            },
            repeat,
            20000,
        )
        rows.append((name, t["wireplan"], t["struct.Struct"], t["struct module"], t["pickle 5"]))
    return rows


TENSOR = "operation | median: | ratio: | vs"
SCALARS = (
    "value | wireplan encode+decode: | struct.Struct: | struct.pack+unpack: | pickle 5: "
    "| / Struct: | / pack+unpack:"
)


def render(r: dict[str, Any]) -> str:
    """The page's ``evalue`` section from a run's ``result``."""
    side = r["side"]
    return report.join(
        report.head(
            "EValue",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": f"medians of {r['repeat']} interleaved rounds; a ratio is against the row in `vs`",
            },
        ),
        [f"Tensor: {side}x{side} float32 ({side * side * 4 / 2**20:.0f} MiB)"],
        report.table(TENSOR, r["tensor"]),
        ["Scalars: one EValue encoded then decoded:"],
        report.table(SCALARS, r["scalars"]),
        [
            "The copies allocate as `encode`/`decode` must (new arrays); `encode_into` is",
            "compared with a copy into a preallocated array.  Not measured: disk I/O, torch,",
            "strings, threaded copies.",
        ],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--repeat", type=int, default=15, help="rounds per case (median taken)")
    parser.add_argument("--side", type=int, default=4096, help="the float32 tensor is side x side")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the evalue section of FILE"
    )
    args = parser.parse_args(argv)
    load_before = report.loadavg()
    tensor = []
    for name, secs, label, ratio in tensor_rows(args.side, args.repeat):
        tensor.append((name, _fmt(secs), "" if ratio != ratio else f"{ratio:.2f}x", label))
    scalars = [
        (name, _fmt(wp), _fmt(pre), _fmt(mod), _fmt(pick), f"{wp / pre:.2f}x", f"{wp / mod:.2f}x")
        for name, wp, pre, mod, pick in scalar_rows(args.repeat)
    ]
    machine = report.machine((load_before, report.loadavg())).replace(platform.machine(), _cpu(), 1)
    result = {
        "command": report.command("bench_evalue.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": machine,
        "versions": report.versions(numpy=np.__version__, wireplan=wireplan.__version__),
        "repeat": args.repeat,
        "side": args.side,
        "tensor": tensor,
        "scalars": scalars,
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "evalue", text)


if __name__ == "__main__":
    main()
