"""Writing compiled output into a folder: the Python packages and the C / C++ headers of
:func:`wireplan.dsdl.compile`, staged and swapped in whole, and what may go beside what."""

from __future__ import annotations

import contextlib
import json
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from wireplan.core.atomic import replace_folders, write_bytes
from wireplan.dsdl._layout import TypeLayout
from wireplan.dsdl._pycyphal import MODELS_FILE
from wireplan.errors import ArgumentError, FileError

#: ``progress(done, total)``: DSDL definitions read of those to read.
Progress = Callable[[int, int], None]
LAYOUT_FILE = "_wireplan_layout.json"


def root_name(folder: Path) -> str:
    return folder.resolve().name


def _generated_by_us(folder: Path) -> bool:
    return (folder / LAYOUT_FILE).is_file() or (folder / "_wireplan_impl.py").is_file()


BUILD_FILE = "_wireplan_build.json"


def _existing(folder: Path) -> tuple[str, dict[str, Any]] | None:
    """The generator fingerprint and layouts (by type name) of a package wireplan wrote."""
    try:
        build = json.loads((folder / BUILD_FILE).read_text())
        items = json.loads((folder / LAYOUT_FILE).read_text())
        return str(build["generator"]), {str(item["name"]): item for item in items}
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _check_arrays(output: Path, arrays: str, replaced: set[str]) -> None:
    """Refuse to put packages of one ``arrays`` kind beside wireplan packages of the other
    (they import each other's classes: a message would hold both kinds)."""
    for build in sorted(output.glob(f"*/{BUILD_FILE}")):
        if build.parent.name in replaced:
            continue
        try:
            theirs = str(json.loads(build.read_text()).get("arrays", "auto"))
        except (OSError, ValueError, AttributeError):
            continue  # not readable: not one of ours to keep consistent
        if theirs != arrays:
            raise ArgumentError(
                f"{build.parent}: a package compiled with arrays={theirs!r}; packages with "
                f"arrays={arrays!r} cannot go beside it: compile into another folder, or with "
                f"arrays={theirs!r}"
            )


def _serves(folder: Path, generator: str, needed: Sequence[dict[str, Any]]) -> bool:
    """Whether the package in ``folder`` already holds every type ``needed``, as generated now.

    Same generator (other packages import its internals) and, per type, the
    same layout (a changed DSDL source changes it).
    """
    found = _existing(folder)
    if found is None or found[0] != generator:
        return False
    have = found[1]
    return all(have.get(item["name"]) == item for item in needed)


@contextlib.contextmanager
def _staged(output: Path, durable: bool) -> Iterator[tuple[Path, Callable[[Iterable[str]], None]]]:
    """A staging folder inside ``output``, and ``swap_in(tops)``, which moves its top folders
    into ``output`` in place of those there, all or none (:func:`wireplan.core.atomic.replace_folders`,
    ``durable`` as there).  The staging folder is removed either way."""
    staging = Path(tempfile.mkdtemp(prefix=".wireplan-compile-", dir=output))

    def swap_in(tops: Iterable[str]) -> None:
        replace_folders([(staging / top, output / top) for top in tops], durable=durable)

    try:
        yield staging, swap_in
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def write_package(
    roots: Sequence[Path],
    lookup: Sequence[Path],
    output: Path,
    progress: Progress | None = None,
    durable: bool = True,
    arrays: str = "auto",
) -> dict[str, TypeLayout]:
    """Generate into a staging folder inside ``output``, then swap each root package in whole.

    The root namespaces compiled are replaced whole, so modules of types
    that no longer exist do not linger.  A lookup namespace is generated
    only for the types the roots use; such a package never replaces one in
    ``output`` that already holds those types (a fuller package of the
    same root, e.g. from compiling that namespace itself before), and where
    the one in ``output`` lacks some, that lookup namespace is compiled
    whole instead, so compiling namespaces one by one into one folder keeps
    every type of every namespace.  A folder wireplan did not write is
    never touched (:class:`~wireplan.errors.FileError`).  A failure leaves ``output`` as it
    was: packages already swapped are put back.  ``progress``, ``durable``, ``arrays``: see
    :func:`compile`.
    """
    from wireplan.dsdl import compiler

    _check_arrays(output, arrays, {root_name(r) for r in roots})
    generator = compiler.source_digest([], [])  # the arrays kind: one per folder, checked above
    roots = list(roots)
    shift = 0  # definitions read in earlier rounds, so that the count keeps growing
    last_total = 0

    def report(done: int, total: int) -> None:
        nonlocal last_total
        last_total = total
        assert progress is not None
        progress(shift + done, shift + total)

    while True:  # each round may promote lookup namespaces to roots, each at most once
        types = compiler.read_types(roots, lookup, None if progress is None else report)
        files, layouts = compiler.generate(types, arrays=arrays)
        by_root: dict[str, list[dict[str, Any]]] = {}
        for lay in layouts:
            by_root.setdefault(lay.name.split(".")[0], []).append(lay.to_dict())
        tops = sorted({rel.split("/")[0] for rel in files} | set(by_root))
        compiled = {root_name(r) for r in roots}
        for top in tops:
            dest = output / top
            if dest.exists() and not (dest.is_dir() and _generated_by_us(dest)):
                raise FileError(
                    f"{dest}: exists and was not written by wireplan; not replacing it "
                    "(choose another output folder)",
                    str(dest),
                )
        kept = {
            top
            for top in tops
            if top not in compiled and _serves(output / top, generator, by_root.get(top, []))
        }
        partial = [
            d
            for d in lookup
            if root_name(d) in tops
            and root_name(d) not in compiled | kept
            and (output / root_name(d)).exists()
        ]
        if not partial:
            break
        shift += last_total
        roots += partial  # a lookup package in output lacks types: compile that namespace whole
    models = compiler.models(types)
    with _staged(output, durable) as (staging, swap_in):
        for rel, text in files.items():
            if rel.split("/")[0] in kept:
                continue
            target = staging / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode())
        for root, items in by_root.items():
            if root in kept:
                continue
            (staging / root / LAYOUT_FILE).write_bytes(json.dumps(items, indent=1).encode())
            build = {"generator": generator, "whole": root in compiled, "arrays": arrays}
            (staging / root / BUILD_FILE).write_bytes(json.dumps(build).encode())
            # pycyphal's _MODEL_ of each class in this package (read lazily, see _pycyphal)
            pickled = pickle.dumps(models.get(root, {}), pickle.HIGHEST_PROTOCOL)
            (staging / root / MODELS_FILE).write_bytes(pickled)
        swap_in(top for top in tops if top not in kept)
    return {lay.name: lay for lay in layouts}


C_BUILD_FILE = "_wireplan_c.json"


def write_c(
    roots: Sequence[Path],
    lookup: Sequence[Path],
    output: Path,
    progress: Progress | None = None,
    durable: bool = True,
    language: str = "c",
    standard: str = "c++17",
) -> None:
    """Write the C (or C++) headers of ``roots`` (and of the lookup types they use) into
    ``output``.

    A compiled root's folder is replaced whole (no stale headers); the
    headers of a lookup namespace are written one by one into its folder, so
    the headers already there (from compiling that namespace before) stay.
    The support headers go to ``output/wireplan/dsdl/support.h`` and
    ``output/nunavut/support/serialization.h`` (the name nunavut gives its own).
    A namespace folder that wireplan did not write is never touched.
    """
    from wireplan.dsdl import compiler
    from wireplan.dsdl.compiler.emit_c import SUPPORT_HEADERS, generate_c
    from wireplan.dsdl.compiler.emit_cpp import CPP_SUPPORT_HEADERS, generate_cpp
    from wireplan.dsdl.compiler.plan_c import annotate

    types = compiler.read_types(roots, lookup, progress)
    if language == "cpp":
        files, cplans = generate_cpp(types, standard)
        support = CPP_SUPPORT_HEADERS
    else:
        files, cplans = generate_c(types)
        support = SUPPORT_HEADERS
    layouts: dict[str, list[dict[str, Any]]] = {}
    for plan in compiler.plans(types):
        lay = annotate(compiler.report(plan), cplans[plan.type.key])
        layouts.setdefault(lay.name.split(".")[0], []).append(lay.to_dict())
    for path in support:
        there = output / path
        if there.is_file() and b"wireplan" not in there.read_bytes():
            raise FileError(
                f"{there}: exists and was not written by wireplan's C/C++ backend (nunavut's "
                "output?); not replacing it (choose another output folder)",
                str(there),
            )
    support_tops = {path.split("/")[0] for path in support}
    tops = sorted({rel.split("/")[0] for rel in files} - support_tops)
    compiled = {root_name(r) for r in roots}
    for top in tops:
        dest = output / top
        if dest.exists() and not (dest / C_BUILD_FILE).is_file():
            raise FileError(
                f"{dest}: exists and was not written by wireplan's C/C++ backend; not replacing "
                "it (choose another output folder)",
                str(dest),
            )
    if language == "cpp":
        _check_flavour(output, standard, compiled)
    with _staged(output, durable) as (staging, swap_in):
        for top in tops:
            folder = staging / top
            mine = {rel: text for rel, text in files.items() if rel.split("/")[0] == top}
            items = {item["name"]: item for item in layouts.get(top, [])}
            if top not in compiled and (output / top).exists():
                folder = output / top  # a lookup namespace: add its headers, keep the others
                with contextlib.suppress(OSError, ValueError):
                    old = json.loads((folder / LAYOUT_FILE).read_text())
                    items = {item["name"]: item for item in old} | items
            direct = durable and folder == output / top  # staged files: fsynced by swap_in
            for rel, text in mine.items():
                _put(folder.parent / rel, text.encode(), direct)
            layout_text = json.dumps(list(items.values()), indent=1).encode()
            _put(folder / LAYOUT_FILE, layout_text, direct)
            build = {"generator": compiler.source_digest([], []), "language": language}
            if language == "cpp":
                build["standard"] = standard
            _put(folder / C_BUILD_FILE, json.dumps(build).encode(), direct)
        for path in support:
            _put(output / path, files[path].encode(), durable)
        swap_in(top for top in tops if (staging / top).exists())


def _check_flavour(output: Path, standard: str, replaced: set[str]) -> None:
    """C++ headers of different allocator flavours (std, pmr, cetl) in one folder would not
    compile together (a PMR class gives its allocator to its members): refuse the mix (the
    folders of ``replaced`` namespaces are written anew)."""
    from wireplan.dsdl.compiler.emit_cpp import CPP_STANDARDS

    def flavour(std: str) -> str:
        known = CPP_STANDARDS.get(std)
        return known.family if known is not None else "std"

    for build in sorted(output.glob(f"*/{C_BUILD_FILE}")):
        if build.parent.name in replaced:
            continue
        try:
            there = json.loads(build.read_text())
        except (OSError, ValueError):
            continue  # not readable: the folder is written anew or left as it is
        if not isinstance(there, dict) or there.get("language") != "cpp":
            continue
        theirs = str(there.get("standard", "c++17"))
        if flavour(theirs) != flavour(standard):
            raise ArgumentError(
                f"{build.parent}: holds C++ headers with {flavour(theirs)} allocators "
                f"({theirs}); headers with {flavour(standard)} "
                "allocators cannot go beside them: compile into another folder, or compile "
                "that namespace again with the same language standard"
            )


def _put(path: Path, data: bytes, durable: bool) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes(path, data, durable=durable)
