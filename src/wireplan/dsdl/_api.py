"""The verbs of :mod:`wireplan.dsdl`.  pydsdl is imported lazily, through the compiler."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from wireplan.core.atomic import write_bytes
from wireplan.dsdl import _lookup, runtime
from wireplan.dsdl._layout import TypeLayout
from wireplan.dsdl._output import LAYOUT_FILE, Progress, root_name, write_c, write_package
from wireplan.errors import ArgumentError, EncodeError, NotFoundError

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
_LOCK = threading.Lock()


def _paths(dirs: PathLike | Iterable[PathLike]) -> list[Path]:
    if isinstance(dirs, str | os.PathLike):
        return [Path(dirs)]
    return [Path(d) for d in dirs]


def _check_dirs(dirs: Sequence[Path]) -> None:
    for d in dirs:
        if not d.is_dir():
            raise ArgumentError(f"{d}: not a DSDL namespace folder")


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
            f"unknown C++ language standard {standard!r}: choose one of {', '.join(CPP_STANDARDS)}"
        )
    return standard


LANGUAGES = ("python", "c", "cpp")


def compile(
    root_namespace_dirs: PathLike | Iterable[PathLike],
    *,
    lookup: PathLike | Iterable[PathLike] = (),
    output: PathLike,
    language: str = "python",
    language_standard: str | None = None,
    arrays: str = "auto",
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
    text; ``c++14``; ``c++17-pmr`` or ``c++20-pmr`` for classes with PMR allocators;
    ``cetl++14-17`` for CETL's containers and allocator (C++14; libcyphal's).
    The C++ headers in one ``output`` share one allocator flavour.

    ``arrays`` (Python only): ``"auto"`` reads arrays as lists (numpy arrays for
    float16, from 16 numbers on, from 64 for bools and ``uint8``), ``utf8`` as ``str`` and
    ``byte`` as ``bytes``; ``"numpy"`` reads every array as a numpy array, as nunavut's
    classes do (code written for them runs unchanged).  Packages of the two kinds never share ``output``.

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
    _arrays(language, arrays)
    roots, lookups = _paths(root_namespace_dirs), _paths(lookup)
    _check_dirs([*roots, *lookups])
    _lookup.check_roots(roots)  # an empty folder is an error, not an empty package
    out = Path(output)
    out.mkdir(parents=True, exist_ok=True)
    with _lookup.hinted([*roots, *lookups]):  # a folder that holds the namespaces: say which
        if language in ("c", "cpp"):
            write_c(roots, lookups, out, progress, durable, language, standard)
        else:
            write_package(roots, lookups, out, progress, durable, arrays)
    return out


def _arrays(language: str, arrays: str) -> None:
    from wireplan.dsdl.compiler.package import ARRAYS

    if arrays not in ARRAYS:
        raise ArgumentError(f"unknown arrays {arrays!r}: choose one of {', '.join(ARRAYS)}")
    if language != "python" and arrays != "auto":
        raise ArgumentError(f"arrays={arrays!r} is for Python classes, not language {language!r}")


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
    arrays: str = "auto",
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
    never when the cache has them.  ``arrays``: as in :func:`compile`.
    """
    _arrays("python", arrays)
    roots, lookups = _paths(root_namespace_dirs), _paths(lookup)
    _check_dirs([*roots, *lookups])
    _lookup.check_roots(roots)
    from wireplan.dsdl import compiler

    digest = compiler.source_digest(roots, lookups) + ("" if arrays == "auto" else f"_{arrays}")
    base = cache_dir()
    entry = base / digest
    with _LOCK:
        if not (entry / "__init__.py").exists():
            base.mkdir(parents=True, exist_ok=True)
            tmp = Path(tempfile.mkdtemp(prefix=f".{digest}.", dir=base))
            try:
                with _lookup.hinted([*roots, *lookups]):
                    write_package(roots, lookups, tmp, progress, False, arrays)  # a cache
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
        mods = tuple(importlib.import_module(f"{package}.{root_name(r)}") for r in roots)
    return mods[0] if isinstance(root_namespace_dirs, str | os.PathLike) else mods


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
    mine = next(d for d in pool if root_name(d) == root)
    others = [d for d in pool if root_name(d) != root]
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
