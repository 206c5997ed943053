"""``required_operators`` against onnxruntime's own config writer, over the conformance corpus.

The oracle is the installed onnxruntime's
``tools.ort_format_model.create_config_from_models``: for each .ort file,
with and without type reduction, its text (comment lines dropped) must
equal :func:`wireplan.ort.required_operators`'s.  Where onnxruntime's tool
fails (a type it has no C++ name for), ours must raise a ``WireplanError``.

The .ort files: the ones onnxruntime writes for the corpus of
:mod:`ort_corpus` (node cases and the models under ``onnx/backend/test/data``)
at optimization levels basic and extended, and the ones our writer
(:func:`wireplan.ort.save`) makes of the same sources; for the latter the
.onnx route (``required_operators(model_proto)``, the conversion the writer
makes, no file) must give the same text too.  Finally every file of a kind
goes into one merged config on both sides.

Run the whole corpus with ``.venv/bin/python tests/ort/operators_corpus.py``
(``--every N`` for every N-th source); the test suite runs a sample.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import onnxruntime as ort
from onnxruntime.tools.ort_format_model import create_config_from_models

from ort import ort_corpus
from ort_write.peer import FORMAT_VERSION
from wireplan.errors import WireplanError
from wireplan.ort import required_operators, save

#: The kinds of .ort file compared: onnxruntime's at two levels, and ours.
KINDS = ("basic", "extended", "wireplan")


def sources() -> list[ort_corpus.Source]:
    """The node cases and data models."""
    return ort_corpus.node_sources() + ort_corpus.data_sources()


def strip_comments(text: str) -> str:
    return "".join(line for line in text.splitlines(True) if not line.startswith("#"))


def theirs(paths: Sequence[str], type_reduction: bool, folder: str) -> str:
    """onnxruntime's config for ``paths``, comments dropped (raises what its tool raises)."""
    out = Path(folder) / "required_operators.config"
    create_config_from_models([Path(p) for p in paths], out, type_reduction)
    return strip_comments(out.read_text())


@dataclass
class Outcome:
    name: str
    kind: str
    type_reduction: bool
    # identical | both-refuse | different | ours-refuses | theirs-refuses | onnx-route-differs
    status: str
    detail: str = ""


def compare(path: str, type_reduction: bool, folder: str, proto: object = None) -> tuple[str, str]:
    """(status, detail) of one file; ``proto`` also checks the .onnx route against the oracle."""
    try:
        expected: str | None = theirs([path], type_reduction, folder)
        failure = ""
    except Exception as exc:
        expected, failure = None, f"{type(exc).__name__}: {exc}"
    try:
        got: str | None = strip_comments(required_operators(path, type_reduction=type_reduction))
        refusal = ""
    except WireplanError as exc:
        got, refusal = None, str(exc)
    if expected is None:
        return (
            ("both-refuse", f"{failure} | {refusal}")
            if got is None
            else ("theirs-refuses", failure)
        )
    if got is None:
        return "ours-refuses", refusal
    if got != expected:
        return "different", _first_difference(expected, got)
    if proto is not None:
        via_onnx = strip_comments(required_operators(proto, type_reduction=type_reduction))
        if via_onnx != expected:
            return "onnx-route-differs", _first_difference(expected, via_onnx)
    return "identical", ""


def _first_difference(a: str, b: str) -> str:
    for x, y in zip(a.splitlines(), b.splitlines(), strict=False):
        if x != y:
            return f"theirs {x[:150]!r} ours {y[:150]!r}"
    return f"{len(a.splitlines())} lines vs {len(b.splitlines())}"


def check_all(
    sources: Sequence[ort_corpus.Source], kinds: Sequence[str] = KINDS, merged: bool = True
) -> Iterator[Outcome]:
    """Compare every file of ``kinds`` for each source, then (``merged``) one config per kind."""
    with tempfile.TemporaryDirectory(prefix="wireplan-operators-") as folder:
        written: dict[str, list[str]] = collections.defaultdict(list)
        for i, src in enumerate(sources):
            for kind in kinds:
                path = os.path.join(folder, f"{i}.{kind}.ort")
                try:
                    if kind == "wireplan":  # in the format the installed onnxruntime reads
                        save(src.model, path, durable=False, format_version=FORMAT_VERSION)
                    else:
                        ort_corpus.save_ort(src.model, path, kind)
                except Exception:  # not an .ort of this kind: nothing to compare
                    continue
                written[kind].append(path)
                for tr in (False, True):
                    proto = src.model if kind == "wireplan" else None
                    status, detail = compare(path, tr, folder, proto)
                    yield Outcome(src.name, kind, tr, status, detail)
        if merged:
            for kind, paths in written.items():
                for tr in (False, True):
                    ok = [p for p in paths if _oracle_accepts(p, tr, folder)]
                    expected = theirs(ok, tr, folder)
                    got = strip_comments(required_operators(ok, type_reduction=tr))
                    status = "identical" if got == expected else "different"
                    detail = "" if got == expected else _first_difference(expected, got)
                    yield Outcome(f"<{len(ok)} files merged>", kind, tr, status, detail)


def _oracle_accepts(path: str, type_reduction: bool, folder: str) -> bool:
    try:
        theirs([path], type_reduction, folder)
    except Exception:
        return False
    return True


def summary(outcomes: Sequence[Outcome]) -> str:
    lines = [f"onnxruntime {ort.__version__}"]
    for kind in KINDS:
        for tr in (False, True):
            sel = [o for o in outcomes if o.kind == kind and o.type_reduction == tr]
            if not sel:
                continue
            files = [o for o in sel if not o.name.endswith("files merged>")]
            merged = [f"{o.name[1:-1]}: {o.status}" for o in sel if o not in files]
            counts = collections.Counter(o.status for o in files)
            label = "with type reduction" if tr else "operators only"
            lines.append(
                f"{kind:9} {label:20} {len(files)} files: "
                + ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
                + (f"; {merged[0]}" if merged else "")
            )
    misses = collections.Counter(
        (o.kind, o.type_reduction, o.status, o.detail[:200])
        for o in outcomes
        if o.status != "identical"
    )
    for (kind, tr, status, detail), n in sorted(misses.items()):
        names = [
            o.name
            for o in outcomes
            if (o.kind, o.type_reduction, o.status, o.detail[:200]) == (kind, tr, status, detail)
        ][:3]
        lines.append(f"  {status} [{kind}, tr={tr}] x{n}: {detail} (e.g. {', '.join(names)})")
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--every", type=int, default=1, help="every N-th source (default 1)")
    parser.add_argument(
        "--kinds", default=",".join(KINDS), help="comma-separated: " + ",".join(KINDS)
    )
    args = parser.parse_args(argv[1:])
    start = time.perf_counter()
    chosen = sources()[:: args.every]
    outcomes = []
    for n, o in enumerate(check_all(chosen, args.kinds.split(","))):
        outcomes.append(o)
        if n % 500 == 0:
            print(f"... {n} comparisons, {time.perf_counter() - start:.0f} s", file=sys.stderr)
    print(f"{len(chosen)} sources")
    print(summary(outcomes))
    print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv))
