"""Where DSDL types are and what they are called: one lookup for every ``wireplan dsdl`` verb.

``layout``, ``compile``, ``encode`` and ``decode`` take types the same way:

- :func:`namespaces`: the root namespace folders of ``--lookup`` (each a root
  namespace folder such as ``.../uavcan``) and of ``CYPHAL_PATH`` (folders that
  hold root namespaces, as pycyphal and yakut read it);
- :func:`resolve`: a type name as users type it (``uavcan.node.Heartbeat``,
  the newest version; ``...Heartbeat.1``, the newest minor) to its full name
  with version, or one line with a "did you mean" (``difflib`` over the names
  found);
- :func:`hinted` and :func:`parent_hint`: a folder that holds root namespaces
  given where a root namespace folder is wanted gets one line that says which
  folder to pass, instead of pydsdl's words.

Everything here reads file names only (``Heartbeat.1.0.dsdl``,
``7509.Heartbeat.1.0.dsdl``), never pydsdl: a few milliseconds for ``uavcan``.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from wireplan.errors import ArgumentError, CompileError, NotFoundError

__all__ = [
    "check_roots",
    "held_roots",
    "hinted",
    "namespace_dirs",
    "namespaces",
    "parent_hint",
    "parse_name",
    "resolve",
    "type_names",
]

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FILE = re.compile(
    r"(?:\d+\.)?(?P<short>[A-Za-z_][A-Za-z0-9_]*)\.(?P<major>\d+)\.(?P<minor>\d+)\.dsdl"
)
NO_NAMESPACES = "no DSDL namespaces: give --lookup DIR or set CYPHAL_PATH"


def namespace_dirs(lookup: Iterable[str | os.PathLike[str]], cyphal_path: str | None) -> list[Path]:
    """Root namespace folders: each ``lookup`` folder, then those found through ``cyphal_path``.

    ``cyphal_path`` is the ``CYPHAL_PATH`` variable as pycyphal and yakut
    read it: folders separated by ``os.pathsep`` or ``;``, each holding root
    namespaces as subfolders (``public_regulated_data_types`` holds
    ``uavcan`` and ``reg``).  Subfolders that are not identifiers or hold no
    ``.dsdl`` file are left out.
    """
    dirs: list[Path] = []
    for item in lookup:
        folder = Path(item)
        if not folder.is_dir():
            raise ArgumentError(f"--lookup {folder}: not a folder")
        dirs.append(folder)
    for entry in (cyphal_path or "").replace(os.pathsep, ";").split(";"):
        if not entry.strip():
            continue
        parent = Path(entry.strip())
        if not parent.is_dir():
            continue  # as pycyphal: a stale entry is not an error
        for sub in sorted(parent.iterdir()):
            if sub.is_dir() and _IDENT.fullmatch(sub.name) and next(sub.rglob("*.dsdl"), None):
                dirs.append(sub)
    return dirs


def parse_name(name: str) -> tuple[list[str], str, int | None, int | None, str | None]:
    """``(namespace, short name, major, minor, "Request" / "Response" / None)`` of a type name."""
    parts = re.split(r"[./\\]", name)
    if not all(parts):
        raise ArgumentError(f"{name!r}: not a DSDL type name (uavcan.node.Heartbeat.1.0)")
    half = None
    if parts[-1] in ("Request", "Response") and len(parts) > 1 and parts[-2].isdigit():
        half = parts.pop()  # uavcan.register.Access.1.0.Request, as the Python class path reads
    numbers: list[int] = []
    while parts and parts[-1].isdigit() and len(numbers) < 2:
        numbers.insert(0, int(parts.pop()))
    if half is None and len(parts) > 2 and parts[-1] in ("Request", "Response"):
        half = parts.pop()
    if len(parts) < 2 or not all(_IDENT.fullmatch(p) for p in parts):
        raise ArgumentError(f"{name!r}: not a DSDL type name (uavcan.node.Heartbeat.1.0)")
    major = numbers[0] if numbers else None
    minor = numbers[1] if len(numbers) > 1 else None
    return parts[:-1], parts[-1], major, minor, half


def _name(folder: Path) -> str:
    return folder.resolve().name


def _has_dsdl(folder: Path) -> bool:
    return next(folder.rglob("*.dsdl"), None) is not None


def namespaces(
    lookup: Iterable[str | os.PathLike[str]] = (),
    cyphal_path: str | None = None,
    *,
    exclude: Iterable[str] = (),
) -> list[Path]:
    """The root namespace folders of ``--lookup`` then of ``cyphal_path``; one per root name.

    ``cyphal_path`` is ``CYPHAL_PATH`` as :func:`namespace_dirs`
    reads it (``None``: read the environment).  The first folder of a root
    name wins, and root names in ``exclude`` (the roots being compiled) are
    left out.
    """

    if cyphal_path is None:
        cyphal_path = os.environ.get("CYPHAL_PATH")
    seen = set(exclude)
    out: list[Path] = []
    for folder in namespace_dirs(lookup, cyphal_path):
        name = _name(folder)
        if name not in seen:
            seen.add(name)
            out.append(folder)
    return out


def check_roots(roots: Sequence[Path]) -> None:
    """Each root namespace folder to compile exists and holds ``.dsdl`` files (one line if not)."""
    for d in roots:
        if not d.is_dir():
            raise ArgumentError(f"{d}: not a DSDL namespace folder")
        if not _has_dsdl(d):
            raise ArgumentError(
                f"{d}: no .dsdl file in this folder (a root namespace folder holds DSDL "
                "definitions, such as public_regulated_data_types/uavcan)"
            )


def held_roots(folder: Path) -> list[str]:
    """The subfolders of ``folder`` that look like root namespaces (identifiers with ``.dsdl``)."""
    try:
        subs = sorted(folder.iterdir())
    except OSError:
        return []
    return [s.name for s in subs if s.is_dir() and _IDENT.fullmatch(s.name) and _has_dsdl(s)]


def parent_hint(
    folders: Iterable[Path], *, wanted: str | None = None, text: str | None = None
) -> str | None:
    """The hint for a folder of ``folders`` that holds root namespaces instead of being one.

    It names the folder to pass: ``X holds root namespaces (reg, uavcan):
    pass X/uavcan``.  Only a folder that holds the root namespace ``wanted``,
    or one that ``text`` (an error message of pydsdl) names as the start of
    a type name (``uavcan.si.unit...``) or as nested, counts.  ``None`` when
    no folder does.
    """
    for folder in folders:
        held = held_roots(folder)
        if not held:
            continue
        if wanted is not None:
            pick = wanted if wanted in held else None
        elif text is not None:
            named = [h for h in held if re.search(rf"(?<![\w.]){re.escape(h)}\.", text)]
            # pydsdl: "X: The following namespace is nested inside this one ...: X/reg", when
            # X/reg is compiled with X as a lookup: the other roots of X are what X stood for.
            inside = [h for h in held if f"{folder / h}" in text or f"{os.sep}{h}" in text]
            others = [h for h in held if h not in inside]
            nested = "nested" in text and bool(inside)
            pick = named[0] if named else (others or held)[0] if nested else None
        else:
            pick = held[0]
        if pick is not None:
            return f"{folder} holds root namespaces ({', '.join(held)}): pass {folder / pick}"
    return None


@contextlib.contextmanager
def hinted(folders: Sequence[Path]) -> Iterator[None]:
    """Turn pydsdl's error about a folder that holds root namespaces into :func:`parent_hint`."""
    try:
        yield
    except CompileError as exc:
        hint = parent_hint(folders, text=exc.reason)
        if hint is None:
            raise
        raise CompileError(hint) from None


def type_names(dirs: Sequence[Path]) -> dict[str, list[tuple[int, int]]]:
    """Every type under the root folders ``dirs``: full name (no version) -> sorted versions.

    The first folder of a root name wins, as in :func:`namespaces`.
    """
    names: dict[str, set[tuple[int, int]]] = {}
    seen: set[str] = set()
    for d in dirs:
        root = _name(d)
        if root in seen:
            continue
        seen.add(root)
        for f in d.rglob("*.dsdl"):
            m = _FILE.fullmatch(f.name)
            parts = f.parent.relative_to(d).parts
            if m is None or not all(_IDENT.fullmatch(p) for p in parts):
                continue
            full = ".".join([root, *parts, m["short"]])
            names.setdefault(full, set()).add((int(m["major"]), int(m["minor"])))
    return {k: sorted(v) for k, v in sorted(names.items())}


def _did_you_mean(name: str, known: Iterable[str]) -> str:
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def resolve(name: str, dirs: Sequence[Path]) -> str:
    """The full name with version of the type ``name`` under the root folders ``dirs``.

    ``name`` is read as :func:`wireplan.dsdl.values.find_class` reads it:
    ``uavcan.node.Heartbeat.1.0``, ``uavcan.node.Heartbeat.1`` (the newest
    minor of 1), ``uavcan.node.Heartbeat`` (the newest version); a service
    half as ``uavcan.register.Access.Request[.1.0]`` or
    ``uavcan.register.Access.1.0.Request``.  The result is pydsdl's name:
    ``uavcan.node.Heartbeat.1.0``, ``uavcan.register.Access.Request.1.0``.
    A name that is not there is one line, with the closest known name.
    """

    namespace, short, major, minor, half = parse_name(name)
    if not dirs:
        raise ArgumentError(NO_NAMESPACES)
    known = type_names(dirs)
    base = ".".join([*namespace, short])
    root = namespace[0]
    have = sorted({_name(d) for d in dirs})
    if root not in have:
        hint = parent_hint(dirs, wanted=root)
        if hint is not None:
            raise NotFoundError(hint)
        inside = [d for d in dirs if d.resolve().parent.name == root]
        if inside:
            up = inside[0].parent  # the CYPHAL_PATH entry, as given
            if up.name != root:
                up = up.resolve()
            raise NotFoundError(
                f"no root namespace {root!r}: {up} is that root namespace, and CYPHAL_PATH "
                f"takes the folder that holds it: set CYPHAL_PATH={up.parent} or give "
                f"--lookup {up}"
            )
        raise NotFoundError(
            f"no root namespace {root!r} in --lookup or CYPHAL_PATH (have {', '.join(have)})"
            + _did_you_mean(base, known)
        )
    versions = known.get(base)
    if versions is None:
        spaces = {k.rsplit(".", i)[0] for k in known for i in range(1, k.count(".") + 1)}
        for i in range(2, len(namespace) + 1):
            if ".".join(namespace[:i]) not in spaces:
                raise NotFoundError(
                    f"no namespace {'.'.join(namespace[:i])!r}" + _did_you_mean(base, known)
                )
        raise NotFoundError(f"no type {base}" + _did_you_mean(base, known))
    chosen = [
        v for v in versions if (major is None or v[0] == major) and (minor is None or v[1] == minor)
    ]
    if not chosen:
        wanted = f"{major}" + (f".{minor}" if minor is not None else "")
        listed = ", ".join(f"{a}.{b}" for a, b in versions)
        raise NotFoundError(f"no version {wanted} of {base} (have {listed})")
    a, b = chosen[-1]
    return f"{base}.{half}.{a}.{b}" if half is not None else f"{base}.{a}.{b}"
