"""Field offsets without expanding bit length sets: pydsdl's own sets as the oracle,
and a type whose sets have astronomically many members (as in nunavut's
verification suite, ``CombinatorialExplosion.0.1``) compiled for every language."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pydsdl
import pytest

from wireplan.dsdl.compiler import read
from wireplan.dsdl.compiler.model import Offsets

from ._support import CORNER, REG, UAVCAN

# A bound against a hang, not a timing: the whole script below runs in about 3 s here,
# and before the offsets were computed without expanding the sets it never ended.
HANG_GUARD_S = 300


def _pydsdl_offsets(bls: Any) -> Offsets:
    """The oracle: pydsdl's set expanded member by member (fine for the regulated types)."""
    residues = 0
    for r in bls % 64:
        residues |= 1 << int(r)
    return Offsets(int(bls.min), int(bls.max), residues)


def _composites(types: list[Any]) -> list[Any]:
    """Every composite reachable from ``types`` (services' halves, nested fields, elements)."""
    seen: dict[str, Any] = {}
    todo = list(types)
    while todo:
        t = todo.pop()
        if isinstance(t, pydsdl.ServiceType):
            todo += [t.request_type, t.response_type]
        elif isinstance(t, pydsdl.ArrayType):
            todo.append(t.element_type)
        elif isinstance(t, pydsdl.CompositeType):
            key = f"{t} {type(t).__name__}"
            if key not in seen:
                seen[key] = t
                inner = t.inner_type if isinstance(t, pydsdl.DelimitedType) else t
                todo += [f.data_type for f in inner.fields]
    return list(seen.values())


@pytest.fixture(scope="module")
def every_composite() -> list[Any]:
    types = pydsdl.read_namespace(str(UAVCAN), [])
    types += pydsdl.read_namespace(str(REG), [str(UAVCAN)])
    types += pydsdl.read_namespace(str(CORNER), [])
    return _composites(types)


def test_offsets_and_lengths_are_pydsdls(every_composite: list[Any]) -> None:
    memo: dict[int, tuple[Any, Offsets]] = {}
    fields = 0
    for t in every_composite:
        assert read._lengths(t, memo) == _pydsdl_offsets(t.bit_length_set), str(t)
        inner = t.inner_type if isinstance(t, pydsdl.DelimitedType) else t
        theirs = list(inner.iterate_fields_with_offsets(pydsdl.BitLengthSet(0)))
        mine = list(read._field_offsets(inner, memo))
        assert [f for f, _ in mine] == [f for f, _ in theirs], str(t)
        for (f, off), (_, bls) in zip(mine, theirs, strict=True):
            assert off == _pydsdl_offsets(bls), f"{t}.{f.name}"
            assert read._lengths(f.data_type, memo) == _pydsdl_offsets(
                f.data_type.bit_length_set
            ), f"{t}.{f.name}: {f.data_type}"
            fields += 1
    assert len(every_composite) > 250 and fields > 600


@pytest.mark.parametrize(
    ("member", "count"), [(8, 3), (24, 5), (12, 65536), (2056, 2**20 + 3), (7, 0)]
)
def test_repeat_arithmetic(member: int, count: int) -> None:
    """``repeat``/``repeat_range`` against the sets written out (small members, any count)."""
    one = Offsets.exact(member) | Offsets.exact(member + 16)
    sums = {0}
    upto = {0}
    for _ in range(min(count, 200)):
        sums = {s + m for s in sums for m in (member, member + 16)}
        upto |= sums
    if count <= 200:
        assert one.repeat(count) == _written(sums)
        assert one.repeat_range(count) == _written(upto)
    rep, rng = one.repeat(count), one.repeat_range(count)
    assert (rep.min, rep.max) == (member * count, (member + 16) * count)
    assert (rng.min, rng.max) == (0, (member + 16) * count)
    # every count's sums lie in the range's residues; the range is their union
    assert rep.residues & ~rng.residues == 0


def _written(values: set[int]) -> Offsets:
    residues = 0
    for v in values:
        residues |= 1 << (v % 64)
    return Offsets(min(values), max(values), residues)


EXPLOSION = """\
# Up to 65536 strings of up to 256 bytes, then 65536 more: offsets past the first
# array have about 2**20 possible values each, and pydsdl's sets would list them.
uavcan.primitive.String.1.0[<=65536] names
uavcan.primitive.String.1.0[65536] more
uint8 tail
@extent 800 * 1024 * 1024
"""

SCRIPT = """\
import sys, pydsdl
from wireplan import dsdl
from wireplan import cli
root, uavcan, out = sys.argv[1:4]
for language in ("python", "c"):
    dsdl.compile(root, lookup=[uavcan], output=f"{out}/{language}", language=language,
                 durable=False)
cli.main(["dsdl", "layout", "--lookup", uavcan, root, "corner.Explosion.0.1"])
sys.path.insert(0, f"{out}/python")
import corner
t = pydsdl.read_namespace(root, [uavcan])[0]
value = {"names": [{"value": [104, 105]}, {"value": []}], "tail": 7,
         "more": [{"value": [i % 251] * (i % 3)} for i in range(65536)]}
ref = pydsdl.serialize(t, value)
cls = corner.Explosion_0_1
assert cls.from_builtin(value).serialize() == ref
back = cls.deserialize(ref)
assert back.tail == 7 and len(back.more) == 65536 and back.serialize() == ref
open(f"{out}/ref.bin", "wb").write(ref)
print("python round trip ok", len(ref))
"""

C_ROUND_TRIP = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "corner/Explosion_0_1.h"

int main(int argc, char** argv) {
    (void) argc;
    FILE* f = fopen(argv[1], "rb");
    static uint8_t in[corner_Explosion_0_1_SERIALIZATION_BUFFER_SIZE_BYTES_];
    size_t n = fread(in, 1, sizeof in, f);
    fclose(f);
    corner_Explosion_0_1* v = malloc(sizeof *v);
    size_t size = n;
    if (v == NULL || corner_Explosion_0_1_deserialize_(v, in, &size) != 0 || size != n) return 1;
    static uint8_t out[corner_Explosion_0_1_SERIALIZATION_BUFFER_SIZE_BYTES_];
    size = sizeof out;
    if (corner_Explosion_0_1_serialize_(v, out, &size) != 0) return 2;
    int same = size == n && memcmp(in, out, n) == 0 && v->tail == 7;
    free(v);
    printf("c round trip %s\n", same ? "ok" : "DIFFERS");
    return same ? 0 : 3;
}
"""


def test_explosion_compiles_and_round_trips(tmp_path: Path) -> None:
    root = tmp_path / "corner"
    root.mkdir()
    (root / "Explosion.0.1.dsdl").write_text(EXPLOSION)
    out = tmp_path / "out"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(root), str(UAVCAN), str(out)],
        capture_output=True,
        text=True,
        timeout=HANG_GUARD_S,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    assert "python round trip ok 196618" in done.stdout
    # the layout names the arrays' offsets by their bounds, from what was computed
    assert "32..135266336" in done.stdout and "1048608..270532640" in done.stdout

    gcc = shutil.which(os.environ.get("CC", "gcc"))
    assert gcc is not None, "gcc is needed (it is on every machine this project supports)"
    src = tmp_path / "explosion.c"
    src.write_text(textwrap.dedent(C_ROUND_TRIP))
    exe = tmp_path / "explosion"
    cc = [gcc, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", f"-I{out / 'c'}"]
    built = subprocess.run([*cc, str(src), "-o", str(exe)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-4000:]
    ran = subprocess.run([exe, out / "ref.bin"], capture_output=True, text=True, timeout=60)
    assert ran.returncode == 0 and "c round trip ok" in ran.stdout, ran.stdout + ran.stderr
