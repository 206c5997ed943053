"""Cyphal DSDL: wireplan's generated serializers against pycyphal (nunavut) in the same run.

Run: ``.venv/bin/python benchmarks/bench_dsdl.py [--quick]``

Prints a markdown table of objects/s (medians of repeated timing runs)
through the functions the docs show, ``wireplan.dsdl.serialize(obj)`` and
``wireplan.dsdl.deserialize(cls, data)``, their cost over the bound methods
``obj.serialize()`` / ``cls.deserialize(data)``, the ratio to pycyphal's
``pycyphal.dsdl.serialize`` / ``deserialize``, and for the fixed-layout types
the ratio to a hand-written ``struct`` of the same layout that packs from and
unpacks into objects with the same fields; then the compile times of the
public regulated namespaces next to pydsdl's own parse time.

Every contender is timed as the statement a user writes (``timeit`` with a
statement string, so no harness frame is in the timing): ``ser(obj)``,
``obj.serialize()``, ``b"".join(pycyphal_serialize(obj))`` (pycyphal yields
fragments; a transport sends one ``bytes``), ``hand_pack()`` and so on.

What it does not measure: transport framing (pycyphal's serialize returns
fragments, joined here into one ``bytes`` as a user sending a frame would),
object construction (objects are built once, outside the timed loop), and
multi-threaded use.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import struct
import sys
import tempfile
import time
import timeit
from pathlib import Path
from typing import Any

import numpy as np
import pycyphal
import pycyphal.dsdl
import pydsdl

import report
import wireplan
from wireplan.dsdl import compiler, load

REPO = Path(__file__).resolve().parents[1]
PUBLIC = REPO / "tests" / "data" / "dsdl" / "public_regulated_data_types"
UAVCAN = (PUBLIC / "uavcan").resolve()
REG = (PUBLIC / "reg").resolve()
DEMO = (REPO / "src" / "wireplan" / "dsdl" / "example" / "demo").resolve()


def rates(stmts: list[str], names: dict[str, Any], repeat: int, budget: float) -> list[list[float]]:
    """Executions/s of each statement of ``stmts`` in each of ``repeat`` interleaved rounds.

    Each round times every statement once (about ``budget`` seconds each), one
    after the other, so a change of the machine's load hits neighbours alike.
    """
    timers = []
    for stmt in stmts:
        timer = timeit.Timer(stmt, globals=names)
        number, _ = timer.autorange()
        per_call = max(timer.timeit(number) / number, 1e-9)
        timers.append((timer, max(1, int(budget / per_call))))
    rounds: list[list[float]] = [[] for _ in stmts]
    for _ in range(repeat):
        for i, (timer, number) in enumerate(timers):
            rounds[i].append(number / timer.timeit(number))
    return rounds


def paired(mine: list[float], theirs: list[float]) -> float:
    """The median over rounds of one round's ratio ``mine / theirs``.

    The two were timed back to back in each round, so the ratio of a round
    is barely touched by the load changes between rounds that move the
    rates themselves by 10-30% on a shared machine.
    """
    return statistics.median(m / t for m, t in zip(mine, theirs, strict=True))


def geomean(values: list[float]) -> float:
    return math.exp(sum(math.log(v) for v in values) / len(values))


def k(x: float) -> str:
    """A rate, short: 123k or 1.23M."""
    return f"{x / 1000:,.0f}k" if x < 1e6 else f"{x / 1e6:.2f}M"


def build_cases(mine: dict[str, Any], theirs: dict[str, Any]) -> list[dict[str, Any]]:
    """(name, wireplan object, pycyphal object, hand-written pack/unpack or None)."""
    cases = []
    # uavcan.node.Heartbeat.1.0
    w = mine["uavcan"].node
    p = theirs["uavcan"].node
    hb_w = w.Heartbeat_1_0(
        uptime=123456,
        health=w.Health_1_0(value=1),
        mode=w.Mode_1_0(value=2),
        vendor_specific_status_code=77,
    )
    hb_p = p.Heartbeat_1_0(
        uptime=123456,
        health=p.Health_1_0(value=1),
        mode=p.Mode_1_0(value=2),
        vendor_specific_status_code=77,
    )
    hb_s = struct.Struct("<IBBB")

    def hb_pack() -> bytes:
        return hb_s.pack(
            hb_w.uptime, hb_w.health.value, hb_w.mode.value, hb_w.vendor_specific_status_code
        )

    hb_bytes = hb_w.serialize()

    def hb_unpack() -> Any:
        return hb_s.unpack_from(hb_bytes, 0)

    new = object.__new__
    hb_c, he_c, mo_c = type(hb_w), type(hb_w.health), type(hb_w.mode)

    def hb_unpack_objects() -> Any:
        up, h, m, v = hb_s.unpack_from(hb_bytes, 0)
        o = new(hb_c)
        o.uptime = up
        o.health = new(he_c)
        o.health.value = h & 3
        o.mode = new(mo_c)
        o.mode.value = m & 7
        o.vendor_specific_status_code = v
        return o

    cases.append(
        dict(
            name="uavcan.node.Heartbeat.1.0",
            w=hb_w,
            p=hb_p,
            hand=(hb_pack, hb_unpack, hb_unpack_objects),
        )
    )

    # uavcan.primitive.array.Real32.1.0 with 64 elements
    # both get the same float32 numpy array (what each deserializes to, too)
    values = np.array([math.sin(i) * 100 for i in range(64)], dtype=np.float32)
    r_w = mine["uavcan"].primitive.array.Real32_1_0(value=values)
    r_p = theirs["uavcan"].primitive.array.Real32_1_0(value=values)
    cases.append(
        dict(name="uavcan.primitive.array.Real32.1.0 (64 floats)", w=r_w, p=r_p, hand=None)
    )

    # uavcan.register.Value.1.0 holding natural16[3]
    wr = mine["uavcan"].register
    pr = theirs["uavcan"].register
    v_w = wr.Value_1_0(natural16=mine["uavcan"].primitive.array.Natural16_1_0(value=[1, 2, 3]))
    v_p = pr.Value_1_0(natural16=theirs["uavcan"].primitive.array.Natural16_1_0(value=[1, 2, 3]))
    cases.append(dict(name="uavcan.register.Value.1.0 (natural16[3])", w=v_w, p=v_p, hand=None))

    # uavcan.register.Access.Request.1.0
    a_w = wr.Access_1_0.Request(
        name=mine["uavcan"].register.Name_1_0(name=list(b"uavcan.node.id")),
        value=wr.Value_1_0(real32=mine["uavcan"].primitive.array.Real32_1_0(value=[1.5, 2.5])),
    )
    a_p = pr.Access_1_0.Request(
        name=theirs["uavcan"].register.Name_1_0(name="uavcan.node.id"),
        value=pr.Value_1_0(real32=theirs["uavcan"].primitive.array.Real32_1_0(value=[1.5, 2.5])),
    )
    cases.append(dict(name="uavcan.register.Access.Request.1.0", w=a_w, p=a_p, hand=None))

    # uavcan.node.port.List.1.0: nested delimited types
    def port_list(ns: Any) -> Any:
        port = ns.node.port
        pubs = port.SubjectIDList_1_0(
            sparse_list=[port.SubjectID_1_0(value=v) for v in (10, 20, 300, 4000)]
        )
        subs = port.SubjectIDList_1_0(sparse_list=[port.SubjectID_1_0(value=v) for v in (7, 8)])
        clients = port.ServiceIDList_1_0()
        servers = port.ServiceIDList_1_0()
        return port.List_1_0(publishers=pubs, subscribers=subs, clients=clients, servers=servers)

    l_w = port_list(mine["uavcan"])
    l_p = port_list(theirs["uavcan"])
    for idx in (384, 385, 430):
        l_w.servers.mask[idx] = True
        l_p.servers.mask[idx] = True
    cases.append(dict(name="uavcan.node.port.List.1.0 (nested delimited)", w=l_w, p=l_p, hand=None))

    # demo.Telemetry.1.0: bit-packed, fixed layout
    dw = mine["demo"]
    dp = theirs["demo"]
    kw = dict(
        id_=1234,
        flags=5,
        x=-300,
        y=200,
        z=-5,
        quality=2,
        temperature=21.5,
        battery=40,
        rssi=-60,
        valid=True,
    )
    t_w = dw.Telemetry_1_0(status=[True, False, True, True, False, False], **kw)
    t_p = dp.Telemetry_1_0(status=[True, False, True, True, False, False], **kw)
    t_s = struct.Struct("<HI5s")
    f16 = struct.Struct("<e")

    def t_pack() -> bytes:
        # what one would write by hand: one struct, shifts for the packed bytes
        o = t_w
        st = o.status
        bits = st[0] | st[1] << 1 | st[2] << 2 | st[3] << 3 | st[4] << 4 | st[5] << 5
        temp = int.from_bytes(f16.pack(o.temperature), "little")
        a = o.id_ | o.flags << 12
        b = (o.x & 1023) | (o.y & 1023) << 10 | (o.z & 1023) << 20 | o.quality << 30
        c = bits | temp << 6 | o.battery << 22 | (o.rssi & 127) << 28 | o.valid << 35
        return t_s.pack(a, b, c.to_bytes(5, "little"))

    t_bytes = t_w.serialize()
    assert t_pack() == t_bytes, (t_pack().hex(), t_bytes.hex())

    def t_unpack() -> Any:
        a, b, raw = t_s.unpack_from(t_bytes, 0)
        c = int.from_bytes(raw, "little")
        x, y, z = b & 1023, (b >> 10) & 1023, (b >> 20) & 1023
        return (
            a & 4095,
            a >> 12,
            (x ^ 512) - 512,
            (y ^ 512) - 512,
            (z ^ 512) - 512,
            b >> 30,
            [c >> i & 1 != 0 for i in range(6)],
            f16.unpack((c >> 6 & 65535).to_bytes(2, "little"))[0],
            c >> 22 & 63,
            ((c >> 28 & 127) ^ 64) - 64,
            c >> 35 & 1 != 0,
        )

    t_c = type(t_w)

    def t_unpack_objects() -> Any:
        values = t_unpack()
        o = object.__new__(t_c)
        (
            o.id_,
            o.flags,
            o.x,
            o.y,
            o.z,
            o.quality,
            o.status,
            o.temperature,
            o.battery,
            o.rssi,
            o.valid,
        ) = values
        return o

    cases.append(
        dict(
            name="demo.Telemetry.1.0 (bit-packed, ours)",
            w=t_w,
            p=t_p,
            hand=(t_pack, t_unpack, t_unpack_objects),
        )
    )

    # demo.Status.1.0: a fixed, byte-aligned layout (one struct step)
    st_kw = dict(timestamp_us=1_700_000_000, voltage=12.5, current=1.25, mode=3)
    st_w = dw.Status_1_0(temperature_centi=-1234, errors=9, **st_kw)
    st_p = dp.Status_1_0(temperature_centi=-1234, errors=9, **st_kw)
    st_s = struct.Struct("<QffhBB")

    def st_pack() -> bytes:
        o = st_w
        return st_s.pack(
            o.timestamp_us, o.voltage, o.current, o.temperature_centi, o.mode, o.errors
        )

    st_bytes = st_w.serialize()
    assert st_pack() == st_bytes

    def st_unpack() -> Any:
        return st_s.unpack_from(st_bytes, 0)

    st_c = type(st_w)

    def st_unpack_objects() -> Any:
        o = new(st_c)
        (
            o.timestamp_us,
            o.voltage,
            o.current,
            o.temperature_centi,
            o.mode,
            o.errors,
        ) = st_s.unpack_from(st_bytes, 0)
        return o

    cases.append(
        dict(
            name="demo.Status.1.0 (byte-aligned, ours)",
            w=st_w,
            p=st_p,
            hand=(st_pack, st_unpack, st_unpack_objects),
        )
    )
    return cases


# Random values of random lengths (point 7 of issue 23): the shapes that are slow for a
# generated serializer (variable-length float and integer arrays of tens to hundreds of
# elements, unions, nested delimited types) next to the common messages.  Services give
# both halves.
RANDOM_TYPES = (
    "uavcan.primitive.array.Real32.1.0",
    "uavcan.primitive.array.Natural16.1.0",
    "uavcan.primitive.array.Integer8.1.0",
    "uavcan.primitive.String.1.0",
    "uavcan.register.Value.1.0",
    "uavcan.register.Access.1.0",
    "uavcan.register.List.1.0",
    "uavcan.node.port.List.0.1",
    "uavcan.node.port.SubjectIDList.0.1",
    "uavcan.node.GetInfo.1.0",
    "uavcan.node.Heartbeat.1.0",
    "uavcan.node.ExecuteCommand.1.1",
    "uavcan.diagnostic.Record.1.1",
    "uavcan.file.Read.1.1",
    "uavcan.pnp.NodeIDAllocationData.2.0",
    "uavcan.si.sample.velocity.Vector3.1.0",
    "uavcan.time.Synchronization.1.0",
)
RANDOM_VALUES = 30  # per type (per service half)
RANDOM_LENGTHS = (3, 20, 100, 300)  # the longest a value's arrays may be, drawn per value
EVERY_VALUES = 10  # per type (half) in the table of every type
EVERY_ROUNDS = {False: (5, 0.04), True: (3, 0.02)}  # (rounds, seconds per statement)


def random_cases(
    mine: dict[str, Any], types: list[Any], count: int = RANDOM_VALUES, seed: int = 7
) -> list[dict[str, Any]]:
    """Per type (half) of ``types`` (pydsdl's): pydsdl's bytes of ``count`` random values,
    and each side's classes (``mine``: wireplan's root packages by name; pycyphal's are
    imported by their own names).

    The values come from the test suite's generator (``tests/dsdl/_values.py``):
    numbers from their bit patterns with the range ends often, arrays empty, as long
    as the drawn bound allows, or in between.
    """
    import importlib
    import random

    sys.path.insert(0, str(REPO))
    from tests.dsdl._values import random_value

    rng = random.Random(seed)
    cases = []
    for t in types:
        *ns, short = t.full_name.split(".")
        full = f"{t.full_name}.{t.version.major}.{t.version.minor}"
        name = f"{short}_{t.version.major}_{t.version.minor}"
        w = getattr(importlib.import_module(".".join([mine[ns[0]].__name__, *ns[1:]])), name)
        p = getattr(importlib.import_module(".".join(ns)), name)
        halves = [(None, t, w, p)]
        if isinstance(t, pydsdl.ServiceType):
            halves = [(h, getattr(t, f"{h.lower()}_type"), getattr(w, h), getattr(p, h))
                      for h in ("Request", "Response")]  # fmt: skip
        for half, ht, wcls, pcls in halves:
            datas = [
                bytes(pydsdl.serialize(ht, random_value(ht, rng, max_var=rng.choice(RANDOM_LENGTHS))))
                for _ in range(count)
            ]  # fmt: skip
            cases.append(
                dict(name=full + (f".{half}" if half else ""), w=wcls, p=pcls, datas=datas)
            )
    return cases


def public_types() -> list[Any]:
    """Every type of ``uavcan`` and ``reg`` but the one nunavut's classes cannot decode
    (``reg.udral.service.actuator.common._.0.1``: its deserializer raises ``NameError``)."""
    types = pydsdl.read_namespace(str(UAVCAN), []) + pydsdl.read_namespace(str(REG), [str(UAVCAN)])
    return [t for t in types if t.short_name != "_"]


def measure_random(
    cases: list[dict[str, Any]], repeat: int, budget: float
) -> list[tuple[Any, ...]]:
    """``(name, mean bytes, ser x, de x)`` per case: each side's objects as its own
    deserializer makes them, serialized; the bytes deserialized; ratios per round."""
    rows = []
    for case in cases:
        wcls, pcls, datas = case["w"], case["p"], case["datas"]
        frags = [[memoryview(d)] for d in datas]
        wobjs = [wcls.deserialize(d) for d in datas]
        pobjs = [pycyphal.dsdl.deserialize(pcls, f) for f in frags]
        for o, d in zip(wobjs, datas, strict=True):
            assert o.serialize() == d, case["name"]
        assert all(o is not None for o in pobjs), case["name"]
        names = dict(
            wcls=wcls, pcls=pcls, datas=datas, frags=frags, wobjs=wobjs, pobjs=pobjs,
            pser=pycyphal.dsdl.serialize, pdes=pycyphal.dsdl.deserialize, join=b"".join,
        )  # fmt: skip
        stmts = [
            "for o in wobjs: o.serialize()",
            "for o in pobjs: join(pser(o))",
            "for d in datas: wcls.deserialize(d)",
            "for f in frags: pdes(pcls, f)",
        ]
        ws, ps, wd, pd = rates(stmts, names, repeat, budget)
        size = sum(map(len, datas)) / len(datas)
        rows.append((case["name"], size, paired(ws, ps), paired(wd, pd)))
    return rows


def check(case: dict[str, Any]) -> None:
    mine = case["w"].serialize()
    theirs = b"".join(pycyphal.dsdl.serialize(case["p"]))
    assert mine == theirs, f"{case['name']}: {mine.hex()} != {theirs.hex()}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer, shorter repeats")
    parser.add_argument(
        "--markdown", type=Path, metavar="FILE", help="write the dsdl section of FILE"
    )
    args = parser.parse_args(argv)
    load_before = report.loadavg()
    repeat, budget = (3, 0.05) if args.quick else (15, 0.06)

    with tempfile.TemporaryDirectory(prefix="bench-dsdl-") as tmp:
        os.environ.setdefault("WIREPLAN_CACHE_DIR", str(Path(tmp) / "cache"))
        out = Path(tmp) / "pycyphal"
        t0 = time.perf_counter()
        pycyphal.dsdl.compile(str(UAVCAN), [], str(out))
        pycyphal.dsdl.compile(str(REG), [str(UAVCAN)], str(out))
        pycyphal_compile = time.perf_counter() - t0
        pycyphal.dsdl.compile(str(DEMO), [], str(out))
        sys.path.insert(0, str(out))
        import demo as p_demo  # type: ignore[import-not-found]
        import uavcan as p_uavcan  # type: ignore[import-not-found]
        import uavcan.node.port  # type: ignore[import-not-found]
        import uavcan.primitive.array  # type: ignore[import-not-found]
        import uavcan.register  # type: ignore[import-not-found]

        # compile times: pydsdl parse alone, then parse + generate + write
        t0 = time.perf_counter()
        types = compiler.read_types([UAVCAN, REG], [])
        parse = time.perf_counter() - t0
        t0 = time.perf_counter()
        compiler.generate(types)
        generate = time.perf_counter() - t0
        t0 = time.perf_counter()
        w_uavcan, _w_reg = load([UAVCAN, REG])
        first_load = time.perf_counter() - t0
        t0 = time.perf_counter()
        load([UAVCAN, REG])
        cached_load = time.perf_counter() - t0
        w_demo = load(DEMO)

        mine = {"uavcan": w_uavcan, "demo": w_demo}
        theirs = {"uavcan": p_uavcan, "demo": p_demo}
        cases = build_cases(mine, theirs)
        rows = []
        ratios: list[float] = []  # public API over pycyphal, ser and de of every case
        costs: list[float] = []  # public API time over the bound method's
        for case in cases:
            check(case)
            w, p = case["w"], case["p"]
            data = w.serialize()
            names = dict(
                w=w,
                p=p,
                wcls=type(w),
                pcls=type(p),
                data=data,
                frag=[memoryview(data)],
                ser=wireplan.dsdl.serialize,
                des=wireplan.dsdl.deserialize,
                pser=pycyphal.dsdl.serialize,
                pdes=pycyphal.dsdl.deserialize,
                join=b"".join,
            )
            stmts = [
                "ser(w)",
                "w.serialize()",
                "join(pser(p))",
                "des(wcls, data)",
                "wcls.deserialize(data)",
                "pdes(pcls, frag)",
            ]
            if case["hand"] is not None:
                names.update(pack=case["hand"][0], unpack=case["hand"][1], objs=case["hand"][2])
                stmts += ["pack()", "unpack()", "objs()"]
            measured = rates(stmts, names, repeat, budget)
            ws, _, ps, wd, _, pd = (statistics.median(r) for r in measured[:6])
            rs, rd = paired(measured[0], measured[2]), paired(measured[3], measured[5])
            cs, cd = paired(measured[1], measured[0]), paired(measured[4], measured[3])
            ratios += [rs, rd]
            costs += [cs, cd]
            hand = vs = "-"
            if case["hand"] is not None:
                hand = " / ".join(k(statistics.median(r)) for r in measured[6:])
                # wireplan's time over the hand-written one's: ser, de tuple, de objects
                pairs = ((6, 0), (7, 3), (8, 3))
                vs = " / ".join(f"{paired(measured[h], measured[w]):.2f}" for h, w in pairs)
            strategy = type(w)._STRATEGY_
            rows.append(
                (case["name"], len(data), strategy, ws, ps, rs, cs, wd, pd, rd, cd, hand, vs)
            )

        found = {f"{t.full_name}.{t.version.major}.{t.version.minor}": t for t in public_types()}
        roots = {"uavcan": w_uavcan, "reg": _w_reg}
        chosen = [found[name] for name in RANDOM_TYPES]
        randoms = measure_random(random_cases(roots, chosen), repeat, budget)
        # every type: fewer values and rounds (about 340 cases)
        every = measure_random(
            random_cases(roots, list(found.values()), EVERY_VALUES), *EVERY_ROUNDS[args.quick]
        )
    print("random values of random lengths (ser x / de x against pycyphal):", file=sys.stderr)
    for name, size, rs, rd in randoms:
        print(f"  {name:45s} {size:6.0f} B  ser {rs:5.1f}x  de {rd:5.1f}x", file=sys.stderr)
    random_ratios = [(x, f"`{n}` {'ser' if i == 0 else 'de'}") for n, _, *xs in randoms
                     for i, x in enumerate(xs)]  # fmt: skip
    random_ratios.sort()
    every_ratios = sorted(
        (x, f"`{n}` {'ser' if i == 0 else 'de'}") for n, _, *xs in every for i, x in enumerate(xs)
    )
    for x, name in every_ratios[:12]:
        print(f"  every type, slowest: {name} {x:.1f}x", file=sys.stderr)

    result = {
        "command": report.command("bench_dsdl.py", sys.argv[1:] if argv is None else argv),
        "date": report.today(),
        "machine": report.machine((load_before, report.loadavg())),
        "versions": report.versions(
            wireplan=wireplan.__version__,
            pycyphal=pycyphal.__version__,
            pydsdl=pydsdl.__version__,
        ),
        "rounds": repeat,
        "types": [
            (
                _label(n),
                size,
                k(ws),
                k(ps),
                f"**{rs:.0f}x**",
                k(wd),
                k(pd),
                f"**{rd:.0f}x**",
            )
            for n, size, _, ws, ps, rs, _, wd, pd, rd, _, _, _ in rows
        ],
        "geomean": f"{geomean(ratios):.1f}x",
        "lowest": f"{min(ratios):.0f}x",
        "hand": [(_label(n), *vs.split(" / ")) for n, *_, vs in rows if vs != "-"],
        "random": {
            "types": len(randoms),
            "values": RANDOM_VALUES,
            "geomean": f"{geomean([x for x, _ in random_ratios]):.1f}x",
            "slowest": ", ".join(f"{name} {x:.1f}x" for x, name in random_ratios[:3]),
        },
        "every": {
            "types": len(every),
            "values": EVERY_VALUES,
            "geomean": f"{geomean([x for x, _ in every_ratios]):.1f}x",
            "slowest": ", ".join(f"{name} {x:.1f}x" for x, name in every_ratios[:1]),
            "below": sum(x < 8 for x, _ in every_ratios),
        },
        "compile": [
            ("pydsdl parse (`read_namespace`)", f"{parse:.2f}"),
            ("wireplan code generation, after parsing", f"{generate:.2f}"),
            (
                "`wireplan.dsdl.load`, first call (parse + generate + write + import)",
                f"{first_load:.2f}",
            ),
            ("`wireplan.dsdl.load`, cached", f"{cached_load:.3f}"),
            ("pycyphal / nunavut `compile`, for reference", f"{pycyphal_compile:.2f}"),
        ],
    }
    text = render(result)
    print(text)
    if args.markdown is not None:
        report.update(args.markdown, "dsdl", text)


def _label(name: str) -> str:
    """``'T.1.0 (note)'`` as ``'`T.1.0` (note)'``."""
    head, _, note = name.partition(" ")
    return f"`{head}` {note}".rstrip()


TYPES = (
    "type | bytes: | ser wireplan: | ser pycyphal: | ser x: | de wireplan: | de pycyphal: | de x:"
)
HAND = "type | serialize: | deserialize to a tuple: | deserialize to the same objects:"
COMPILE = "step | seconds:"


def render(r: dict[str, Any]) -> str:
    """The page's ``dsdl`` section from a run's ``result``."""
    return report.join(
        report.head(
            "Cyphal DSDL",
            r["command"],
            r["date"],
            {
                "Machine": r["machine"],
                "Versions": r["versions"],
                "Method": f"{r['rounds']} rounds of every contender; objects/s are medians, "
                "`x` the median of per-round ratios",
            },
        ),
        [
            "Objects/s through `serialize(obj)` / `deserialize(cls, data)` and pycyphal's:",
        ],
        report.table(TYPES, r["types"]),
        [f"Geometric mean of the ratios: **{r['geomean']}**; lowest {r['lowest']}."],
        [
            f"Random values of random lengths ({r['random']['values']} per type, arrays up "
            f"to {RANDOM_LENGTHS[-1]}), {r['random']['types']} `uavcan` types and halves: "
            f"geometric mean **{r['random']['geomean']}**; slowest {r['random']['slowest']}.",
        ],
        [
            f"Every `uavcan` and `reg` type ({r['every']['types']} with halves, "
            f"{r['every']['values']} values each): **{r['every']['geomean']}**, "
            f"{r['every']['below']} ratios below 8x, slowest {r['every']['slowest']}.",
        ],
        [
            "wireplan's time over a hand-written `struct` of the same layout (below 1: faster):",
        ],
        report.table(HAND, r["hand"]),
        ["Compile time of `uavcan` + `reg` (266 serializable types):"],
        report.table(COMPILE, r["compile"]),
        [
            "Not measured: transports (next section), object construction, threads.",
        ],
    )


if __name__ == "__main__":
    main()
