"""Cyphal DSDL over pycyphal's loopback transport: publish -> receive with both class sets.

Run: ``.venv/bin/python benchmarks/bench_dsdl_loopback.py [--quick]``

One asyncio loop, one ``Presentation`` over a ``LoopbackTransport``; per
type, a Publisher and a Subscriber of wireplan's class and of pycyphal's
(nunavut's) class on their own subjects, and the same bytes moved through
the transport's own sessions without the presentation layer (what a
raw-bytes transport such as pycyphal 2 leaves: wireplan ``serialize`` ->
send -> receive -> ``deserialize``).  A round publishes and receives
``count`` messages one after the other per contender; contenders alternate
within each round, and the table gives the medians over rounds of messages/s
and of the per-round ratio.  A second table times the codec part of the same
path alone: ``pycyphal.dsdl.serialize`` (fragments joined) and
``pycyphal.dsdl.deserialize`` on both class sets.

What it does not measure: a real network (the loopback hands a transfer to
the local input session in the same process), several nodes, message loss,
and queueing (each message is received before the next is published).
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import math
import statistics
import sys
import tempfile
import time
import timeit
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pycyphal
import pycyphal.dsdl
import pydsdl
from pycyphal.presentation import Presentation
from pycyphal.transport import (
    InputSessionSpecifier,
    MessageDataSpecifier,
    OutputSessionSpecifier,
    PayloadMetadata,
    Priority,
    Timestamp,
    Transfer,
)
from pycyphal.transport.loopback import LoopbackTransport

import report
import wireplan
from wireplan.dsdl import load as load_types

REPO = Path(__file__).resolve().parents[1]
UAVCAN = (REPO / "tests" / "data" / "dsdl" / "public_regulated_data_types" / "uavcan").resolve()


def cases(mine: Any, theirs: Any) -> list[tuple[str, Any, Any]]:
    """(name, wireplan message, pycyphal message) with the same value."""
    out = []
    w, p = mine.node, theirs.node
    out.append(
        (
            "uavcan.node.Heartbeat.1.0",
            w.Heartbeat_1_0(uptime=123456, health=w.Health_1_0(value=1), mode=w.Mode_1_0(value=2)),
            p.Heartbeat_1_0(uptime=123456, health=p.Health_1_0(value=1), mode=p.Mode_1_0(value=2)),
        )
    )
    values = np.array([math.sin(i) * 100 for i in range(64)], dtype=np.float32)
    out.append(
        (
            "uavcan.primitive.array.Real32.1.0 (64)",
            mine.primitive.array.Real32_1_0(value=values),
            theirs.primitive.array.Real32_1_0(value=values),
        )
    )

    def port_list(ns: Any) -> Any:
        port = ns.node.port
        pubs = port.SubjectIDList_1_0(
            sparse_list=[port.SubjectID_1_0(value=v) for v in (10, 20, 300, 4000)]
        )
        subs = port.SubjectIDList_1_0(sparse_list=[port.SubjectID_1_0(value=v) for v in (7, 8)])
        return port.List_1_0(
            publishers=pubs,
            subscribers=subs,
            clients=port.ServiceIDList_1_0(),
            servers=port.ServiceIDList_1_0(),
        )

    out.append(("uavcan.node.port.List.1.0", port_list(mine), port_list(theirs)))
    return out


Round = Callable[[int], Awaitable[None]]


def via_presentation(pres: Presentation, msg: Any, subject: int) -> Round:
    pub = pres.make_publisher(type(msg), subject)
    sub = pres.make_subscriber(type(msg), subject)

    async def run(count: int) -> None:
        for _ in range(count):
            await pub.publish(msg)
            got = await sub.receive_for(1.0)
            assert got is not None

    return run


def via_raw_bytes(tr: LoopbackTransport, msg: Any, subject: int) -> Round:
    """wireplan's bytes through the transport's sessions: no presentation layer."""
    cls = type(msg)
    meta = PayloadMetadata(cls._EXTENT_BYTES_)
    out = tr.get_output_session(OutputSessionSpecifier(MessageDataSpecifier(subject), None), meta)
    inp = tr.get_input_session(InputSessionSpecifier(MessageDataSpecifier(subject), None), meta)
    loop = asyncio.get_running_loop()
    transfer_id = 0

    async def run(count: int) -> None:
        nonlocal transfer_id
        for _ in range(count):
            transfer_id += 1
            sent = Transfer(
                timestamp=Timestamp.now(),
                priority=Priority.NOMINAL,
                transfer_id=transfer_id,
                fragmented_payload=[memoryview(msg.serialize())],
            )
            assert await out.send(sent, loop.time() + 1.0)
            got = await inp.receive(loop.time() + 1.0)
            assert got is not None
            payload = got.fragmented_payload
            cls.deserialize(payload[0] if len(payload) == 1 else b"".join(payload))

    return run


async def measure(mine: Any, theirs: Any, rounds: int, budget: float) -> list[dict[str, Any]]:
    tr = LoopbackTransport(local_node_id=1)
    pres = Presentation(tr)
    rows = []
    try:
        subject = 100
        for name, w, p in cases(mine, theirs):
            contenders = {
                "pycyphal": via_presentation(pres, p, subject),
                "wireplan": via_presentation(pres, w, subject + 1),
                "raw": via_raw_bytes(tr, w, subject + 2),
            }
            subject += 3
            counts = {}
            for key, run in contenders.items():  # calibrate: about `budget` seconds a round
                await run(20)
                t0 = time.perf_counter()
                await run(200)
                per = (time.perf_counter() - t0) / 200
                counts[key] = max(50, int(budget / per))
            rates: dict[str, list[float]] = {key: [] for key in contenders}
            for _ in range(rounds):
                for key, run in contenders.items():
                    t0 = time.perf_counter()
                    await run(counts[key])
                    rates[key].append(counts[key] / (time.perf_counter() - t0))
            rows.append(
                dict(
                    name=name,
                    size=len(w.serialize()),
                    **{key: statistics.median(r) for key, r in rates.items()},
                    ratio=statistics.median(
                        a / b for a, b in zip(rates["wireplan"], rates["pycyphal"], strict=True)
                    ),
                    raw_ratio=statistics.median(
                        a / b for a, b in zip(rates["raw"], rates["wireplan"], strict=True)
                    ),
                )
            )
    finally:
        pres.close()
    return rows


def codec(mine: Any, theirs: Any, rounds: int, budget: float) -> list[dict[str, Any]]:
    """pycyphal.dsdl.serialize / deserialize per class set, interleaved rounds (objects/s)."""
    ser, des = pycyphal.dsdl.serialize, pycyphal.dsdl.deserialize
    rows = []
    for name, w, p in cases(mine, theirs):
        fns: dict[str, Callable[[], Any]] = {}
        for key, obj in (("w", w), ("p", p)):
            frags = [memoryview(b"".join(ser(obj)))]
            fns[f"ser_{key}"] = lambda obj=obj: b"".join(ser(obj))
            fns[f"des_{key}"] = partial(des, type(obj), frags)
        timers = {}
        for key, fn in fns.items():
            timer = timeit.Timer(fn)
            number, spent = timer.autorange()
            timers[key] = (timer, max(1, int(budget * number / max(spent, 1e-9))))
        rates: dict[str, list[float]] = {key: [] for key in fns}
        for _ in range(rounds):
            for key, (timer, number) in timers.items():
                rates[key].append(number / timer.timeit(number))
        row: dict[str, Any] = {"name": name}
        for op in ("ser", "des"):
            row[op] = {key: statistics.median(rates[f"{op}_{key}"]) for key in ("w", "p")}
            row[op]["ratio"] = statistics.median(
                a / b for a, b in zip(rates[f"{op}_w"], rates[f"{op}_p"], strict=True)
            )
        rows.append(row)
    return rows


E2E = (
    "type | bytes: | pycyphal classes (msg/s): | wireplan classes (msg/s): | ratio: "
    "| wireplan bytes, transport sessions (msg/s): | ratio to wireplan classes:"
)
CODEC = (
    "type | serialize: pycyphal classes: | wireplan classes: | ratio: "
    "| deserialize: pycyphal classes: | wireplan classes: | ratio:"
)


def render(r: dict[str, Any]) -> str:
    """The page's ``dsdl-loopback`` section from a run's ``result``."""
    return report.join(
        report.head(
            "Cyphal DSDL over pycyphal's loopback transport",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": "a Publisher and a Subscriber per class set over a "
                "`LoopbackTransport`, one message in flight; "
                f"{r['rounds']} rounds; medians, ratios per round",
            },
            level=3,
        ),
        report.table(E2E, r["e2e"]),
        ["The codec part alone (`pycyphal.dsdl.serialize` / `deserialize`), objects/s:"],
        report.table(CODEC, r["codec"]),
        [
            "Not measured: real networks, several nodes, loss, queueing.",
        ],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 short rounds (a smoke test)")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the dsdl-loopback section of FILE"
    )
    args = parser.parse_args(argv)
    rounds, budget = (3, 0.05) if args.quick else (15, 0.25)
    load_before = report.loadavg()

    out = Path(tempfile.mkdtemp(prefix="bench-dsdl-loopback-"))
    pycyphal.dsdl.compile(str(UAVCAN), [], str(out))
    sys.path.insert(0, str(out))
    theirs = importlib.import_module("uavcan")
    for sub in ("node", "node.port", "primitive.array"):
        importlib.import_module(f"uavcan.{sub}")
    mine = load_types(UAVCAN)

    rows = asyncio.run(measure(mine, theirs, rounds, budget))
    codec_rows = codec(mine, theirs, rounds, budget / 3)
    result = {
        "command": report.command("bench_dsdl_loopback.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((load_before, report.loadavg())),
        "versions": report.versions(
            wireplan=wireplan.__version__,
            pycyphal=pycyphal.__version__,
            pydsdl=pydsdl.__version__,
            numpy=np.__version__,
        ),
        "rounds": rounds,
        "e2e": [
            (
                r["name"],
                r["size"],
                f"{r['pycyphal']:,.0f}",
                f"{r['wireplan']:,.0f}",
                f"{r['ratio']:.2f}x",
                f"{r['raw']:,.0f}",
                f"{r['raw_ratio']:.2f}x",
            )
            for r in rows
        ],
        "codec": [
            (
                c["name"],
                f"{c['ser']['p']:,.0f}",
                f"{c['ser']['w']:,.0f}",
                f"{c['ser']['ratio']:.2f}x",
                f"{c['des']['p']:,.0f}",
                f"{c['des']['w']:,.0f}",
                f"{c['des']['ratio']:.2f}x",
            )
            for c in codec_rows
        ],
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "dsdl-loopback", text)


if __name__ == "__main__":
    main()
