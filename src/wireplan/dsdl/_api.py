"""The verbs of :mod:`wireplan.dsdl`.  pydsdl is imported lazily, through the compiler."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import pickle
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from wireplan.core.atomic import replace_folders, write_bytes
from wireplan.dsdl import _lookup, runtime
from wireplan.dsdl._layout import TypeLayout
from wireplan.dsdl._pycyphal import MODELS_FILE
from wireplan.errors import ArgumentError, EncodeError, FileError, NotFoundError

__all__ = [
    "compile",
    "decode",
    "deserialize",
    "encode",
    "from_builtin",
    "layout",
    "load",
    "serialize",
    "to_builtin",
]

PathLike = str | os.PathLike[str]
#: ``progress(done, total)``: DSDL definitions read of those to read.
Progress = Callable[[int, int], None]
LAYOUT_FILE = "_wireplan_layout.json"
_LOCK = threading.Lock()


def _paths(dirs: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(dirs, str | os.PathLike):
        return [Path(dirs)]
    return [Path(d) for d in dirs]


def _check_dirs(dirs: Sequence[Path]) -> None:
    for d in dirs:
        if not d.is_dir():
            raise ArgumentError(f"{d}: not a DSDL namespace folder")


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


def _write_package(
    roots: Sequence[Path],
    lookup: Sequence[Path],
    output: Path,
    progress: Progress | None = None,
    durable: bool = True,
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
    was: packages already swapped are put back.  ``progress``, ``durable``: see :func:`compile`.
    """
    from wireplan.dsdl import compiler

    generator = compiler.source_digest([], [])
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
        files, layouts = compiler.generate(types)
        by_root: dict[str, list[dict[str, Any]]] = {}
        for lay in layouts:
            by_root.setdefault(lay.name.split(".")[0], []).append(lay.to_dict())
        tops = sorted({rel.split("/")[0] for rel in files} | set(by_root))
        compiled = {_root_name(r) for r in roots}
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
            if _root_name(d) in tops
            and _root_name(d) not in compiled | kept
            and (output / _root_name(d)).exists()
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
            build = {"generator": generator, "whole": root in compiled}
            (staging / root / BUILD_FILE).write_bytes(json.dumps(build).encode())
            # pycyphal's _MODEL_ of each class in this package (read lazily, see _pycyphal)
            pickled = pickle.dumps(models.get(root, {}), pickle.HIGHEST_PROTOCOL)
            (staging / root / MODELS_FILE).write_bytes(pickled)
        swap_in(top for top in tops if top not in kept)
    return {lay.name: lay for lay in layouts}


C_BUILD_FILE = "_wireplan_c.json"


def _write_c(
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
    compiled = {_root_name(r) for r in roots}
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


def _standard(language: str, standard: str | None) -> str:
    """The C++ standard to write (``c++17`` by default); an error for another language."""
    from wireplan.dsdl.compiler.emit_cpp import CPP_STANDARDS

    if language != "cpp":
        if standard is not None:
            raise ArgumentError(
                f"a language standard ({standard!r}) is for C++ only (language 'cpp'); the C "
                "headers are C11, for C11 and later compilers"
            )
        return "c++17"
    if standard is None:
        return "c++17"
    if standard not in CPP_STANDARDS:
        raise ArgumentError(
            f"unknown C++ language standard {standard!r}: choose one of "
            f"{', '.join(CPP_STANDARDS)} (nunavut's cetl++14-17, CETL's containers, is not "
            "written)"
        )
    return standard


def _check_flavour(output: Path, standard: str, replaced: set[str]) -> None:
    """C++ headers of both allocator flavours in one folder would not compile together (a PMR
    class gives its allocator to its members): refuse the mix (the folders of ``replaced``
    namespaces are written anew)."""
    from wireplan.dsdl.compiler.emit_cpp import CPP_STANDARDS

    def flavour(std: str) -> str:
        return "pmr" if CPP_STANDARDS.get(std, False) else "std"

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


LANGUAGES = ("python", "c", "cpp")


def compile(
    root_namespace_dirs: PathLike | Iterable[PathLike],
    *,
    lookup: PathLike | Iterable[PathLike] = (),
    output: PathLike,
    language: str = "python",
    language_standard: str | None = None,
    progress: Progress | None = None,
    durable: bool = True,
) -> Path:
    """Compile the DSDL root namespaces into an importable package under ``output``.

    ``language="c"`` writes C11 headers instead, a drop-in for nunavut 3.1's
    (``nnvg --target-language c``): ``output/uavcan/node/Heartbeat_1_0.h``
    and the support header ``output/wireplan/dsdl/support.h``; ``language="cpp"``
    C++17 headers with nunavut 3.1's C++ API (``nnvg --target-language cpp
    --language-standard c++17``): ``output/uavcan/node/Heartbeat_1_0.hpp`` and
    ``output/nunavut/support/serialization.hpp`` (see docs/dsdl-c.md); the same
    rules for roots, lookups and folders apply.  ``language_standard`` (C++ only) is
    nnvg's ``--language-standard``: ``c++17`` (the default) or ``c++20``, the same
    text; ``c++14``; ``c++17-pmr`` or ``c++20-pmr`` for classes with PMR allocators.
    The C++ headers in one ``output`` share one allocator flavour.

    Writes one package per root namespace (``output/uavcan/...``), a module
    per namespace with a class per type and version (``Heartbeat_1_0``);
    types of ``lookup`` namespaces that the roots use are generated too.
    Put ``output`` on ``sys.path`` to import them.  Returns ``output``.
    Compiling again replaces each root package folder whole (nothing stale
    is left).  Namespaces can be compiled one by one into one folder (each
    with ``lookup`` for what it uses): a package generated for lookup types
    never replaces a fuller one of the same namespace already there, so
    every type of every namespace stays importable.  A folder that wireplan
    did not write is never touched, and a failed compile leaves the
    previous packages in place.
    ``progress(done, total)``, when given, is called on this thread as the
    definitions (``.dsdl`` files: types and services) of the roots are read,
    first with ``done`` 0, last with ``done == total``; reading them (pydsdl)
    is most of a compile's time (``wireplan dsdl`` draws it on a terminal).
    ``durable=True``: every file written is on disk (fsync) before the
    packages are swapped in; ``durable=False`` skips the fsyncs, still
    all-or-none short of a power loss or an OS crash (as for
    :func:`wireplan.core.atomic.write_bytes`).
    Raises :class:`~wireplan.errors.CompileError` on DSDL that pydsdl
    rejects (for a folder that holds root namespaces instead of being one, a
    line that names the folder to pass), :class:`~wireplan.errors.ArgumentError`
    for an unknown ``language`` and for a root folder that is missing or holds
    no ``.dsdl`` file, and :class:`~wireplan.errors.FileError` for an output
    namespace folder that wireplan did not write.
    """
    if language not in LANGUAGES:
        raise ArgumentError(f"unknown language {language!r}: choose one of {', '.join(LANGUAGES)}")
    standard = _standard(language, language_standard)
    roots, lookups = _paths(root_namespace_dirs), _paths(lookup)
    _check_dirs([*roots, *lookups])
    _lookup.check_roots(roots)  # an empty folder is an error, not an empty package
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    with _lookup.hinted([*roots, *lookups]):  # a folder that holds the namespaces: say which
        if language in ("c", "cpp"):
            _write_c(roots, lookups, out, progress, durable, language, standard)
        else:
            _write_package(roots, lookups, out, progress, durable)
    return out


def cache_dir() -> Path:
    """Where :func:`load` keeps compiled packages: ``$WIREPLAN_CACHE_DIR``, else the XDG cache."""
    explicit = os.environ.get("WIREPLAN_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg) if xdg else Path.home() / ".cache"
    return base / "wireplan" / "dsdl"


def _import_package(folder: Path, name: str) -> ModuleType:
    existing = sys.modules.get(name)
    if existing is not None:
        return existing
    spec = importlib.util.spec_from_file_location(
        name, folder / "__init__.py", submodule_search_locations=[str(folder)]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def load(
    root_namespace_dirs: PathLike | Iterable[PathLike],
    *,
    lookup: PathLike | Iterable[PathLike] = (),
    progress: Progress | None = None,
) -> Any:
    """Compile (only if a source changed) into the cache and import.

    Returns the root namespace package (``uavcan`` with ``uavcan.node``
    etc. as attributes) for one folder, a tuple of them for several.  The
    packages are imported under a private parent package named after the
    source hash, so they do not clash with other ``uavcan`` packages (such
    as pycyphal's) in the same process.  The cache folder is
    ``$WIREPLAN_CACHE_DIR`` or ``$XDG_CACHE_HOME/wireplan/dsdl`` (default
    ``~/.cache/wireplan/dsdl``); an entry is written in a temporary folder
    and renamed into place, so a crash never leaves a half-written entry.
    ``progress(done, total)``: called only when the namespaces are compiled
    (a cache miss, a first use: seconds for ``uavcan``), as in :func:`compile`;
    never when the cache has them.
    """
    roots, lookups = _paths(root_namespace_dirs), _paths(lookup)
    _check_dirs([*roots, *lookups])
    _lookup.check_roots(roots)
    from wireplan.dsdl import compiler

    digest = compiler.source_digest(roots, lookups)
    base = cache_dir()
    entry = base / digest
    with _LOCK:
        if not (entry / "__init__.py").exists():
            base.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{digest}.", dir=base))
            try:
                with _lookup.hinted([*roots, *lookups]):
                    _write_package(roots, lookups, tmp, progress, durable=False)  # a cache
                write_bytes(tmp / "__init__.py", b'"""wireplan DSDL cache entry."""\n')
                try:
                    os.rename(tmp, entry)
                except OSError:
                    if not (entry / "__init__.py").exists():
                        raise
            finally:
                if tmp.exists():
                    shutil.rmtree(tmp, ignore_errors=True)
        package = f"_wireplan_dsdl_{digest}"
        _import_package(entry, package)
        mods = tuple(importlib.import_module(f"{package}.{_root_name(r)}") for r in roots)
    return mods[0] if isinstance(root_namespace_dirs, str | os.PathLike) else mods


def _root_name(folder: Path) -> str:
    return folder.resolve().name


def _is_generated(cls: Any) -> bool:
    return isinstance(cls, type) and hasattr(cls, "_FIELDS_") and hasattr(cls, "_FULL_NAME_")


def layout(
    type_: Any,
    root_namespace_dirs: PathLike | Iterable[PathLike] | None = None,
    *,
    lookup: PathLike | Iterable[PathLike] = (),
) -> TypeLayout:
    """The layout of a type: per field, its offset set (min, max, alignment) and strategy
    (from a name: the C backend's strategy too).

    ``type_`` is a generated class (the report compiled with it is read, no
    pydsdl needed), or a full name such as ``"uavcan.node.Heartbeat.1.0"``
    together with the namespace folders to read it from.  A name is read as
    ``wireplan dsdl`` reads it: without a version the newest
    (``"uavcan.node.Heartbeat"``), without a minor the newest of that major;
    a name not found is one line with the closest known name ("did you
    mean").  The type's root namespace may be among ``lookup`` too: the
    first folder of that root name is read, the others are its lookups.
    """
    if _is_generated(type_):
        module = sys.modules[type_.__module__]
        folder = Path(module.__file__ or ".").parent
        while folder.parent != folder and not (folder / LAYOUT_FILE).exists():
            folder = folder.parent
        with contextlib.suppress(OSError):
            items = json.loads((folder / LAYOUT_FILE).read_text())
            for item in items:
                if item["name"] == type_._FULL_NAME_:
                    return TypeLayout.from_dict(item)
        raise NotFoundError(f"no layout report for {type_._FULL_NAME_}")
    if not isinstance(type_, str) or root_namespace_dirs is None:
        raise ArgumentError("layout() takes a generated class, or a type name and the DSDL folders")
    from wireplan.dsdl import compiler

    roots, lookups = _paths(root_namespace_dirs), _paths(lookup)
    _check_dirs([*roots, *lookups])
    pool = [*roots, *lookups]
    name = _lookup.resolve(type_, pool)  # the newest version, or "did you mean"
    root = name.split(".")[0]
    mine = next(d for d in pool if _root_name(d) == root)
    others = [d for d in pool if _root_name(d) != root]
    with _lookup.hinted(pool):
        types = compiler.read_types([mine], others)
    wanted = compiler.find_type(types, name)
    for lay in compiler.analyse([wanted], c=True):
        if lay.name == name:
            return lay
    raise ArgumentError(f"{name} is a service: ask for its Request or Response")


def encode(obj: Any) -> bytes:
    """The bytes of a generated object: the same as ``obj.serialize()``.

    :func:`serialize` is this same function under pycyphal's name.  Raises
    :class:`~wireplan.EncodeError` (with the field path) for a value the
    type cannot hold, and for an object that is not a generated DSDL
    object.  The call costs one function frame over the method (no other
    check on the way: it is on every message's path).
    """
    try:
        data: bytes = obj.serialize()  # one method call: no bound method is made
    except AttributeError:
        if hasattr(type(obj), "serialize"):
            raise  # from inside the serializer
        raise EncodeError(f"not a DSDL object: {type(obj).__name__}") from None
    return data


def decode(cls: type, data: Any) -> Any:
    """Decode ``data`` (bytes-like) as ``cls``: the same as ``cls.deserialize(data)``.

    :func:`deserialize` is this same function under pycyphal's name.  Short
    input is zero-extended and extra bytes are ignored, as the Cyphal
    specification asks; raises :class:`~wireplan.DecodeError` with the byte
    offset for input no value of ``cls`` can have (a bad union tag, an array
    length past its capacity, a delimiter header past the end), and
    :class:`~wireplan.ArgumentError` (also a ``TypeError``) for a ``cls``
    that is not a generated DSDL class.
    """
    try:
        return cls.deserialize(data)  # type: ignore[attr-defined]
    except AttributeError:
        if hasattr(cls, "deserialize"):
            raise  # from inside the decoder
        raise ArgumentError(f"not a generated DSDL class: {cls!r}") from None


serialize = encode  # pycyphal's name: the same function
deserialize = decode  # pycyphal's name: the same function


def to_builtin(obj: Any) -> dict[str, Any]:
    """Plain data as ``pydsdl.deserialize`` gives it (dicts, one-key dicts for unions, lists)."""
    return runtime.to_builtin(obj)


def from_builtin(cls: type, data: dict[str, Any]) -> Any:
    """Build a ``cls`` object from plain data as ``pydsdl.serialize`` takes it."""
    return runtime.from_builtin(cls, data)
