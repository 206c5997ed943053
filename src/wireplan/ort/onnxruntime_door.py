"""The one module that imports ``onnxruntime``: it answers what the installed onnxruntime says.

Whether it is installed (:func:`available`) and which release (:func:`version`),
which .ort format versions that release loads (:func:`loadable_format_versions`),
the operator schemas it registers for its own domains (:func:`contrib_op_signature`),
its kernel definitions (:func:`kernel_definitions`), whether it finds the kernels of
an .ort it is given (:func:`finds_kernels`), an ``InferenceSession`` for a model
file (:func:`open_session`), and the optimized graph it saves (:func:`optimize`).
It imports nothing of wireplan's .ort code: the questions that need a model built or read (kernel probes, sessions over external
data) are asked by :mod:`wireplan.ort.kernels` and :mod:`wireplan.ort.sessions`.

``onnxruntime`` is imported when one of these is first called, so importing
this module is cheap.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Mapping
from typing import Any

from wireplan.core.extras import door
from wireplan.errors import ArgumentError, PeerError
from wireplan.ort.signatures import Signature, normal_domain

__all__ = [
    "OPEN_END",
    "ZERO_COPY_OPTIONS",
    "Kernel",
    "available",
    "contrib_op_signature",
    "finds_kernels",
    "kernel_definitions",
    "kernels_known",
    "loadable_format_versions",
    "open_session",
    "optimize",
    "release_of",
    "require",
    "version",
]

# Who needs onnxruntime, in the one line a missing install prints.
_FEATURE = "wireplan.ort's onnxruntime support"

#: Session config entries for loading an .ort from a path without copying its initializers.
ZERO_COPY_OPTIONS: Mapping[str, str] = {
    "session.use_memory_mapped_ort_model": "1",
    "session.use_ort_model_bytes_for_initializers": "1",
}

# onnxruntime 1.31 crashes (SIGSEGV) on this entry together with
# use_ort_model_bytes_for_initializers when the model comes from a Python bytes object.
_DANGEROUS = "session.use_ort_model_bytes_directly"


def available() -> bool:
    """Whether ``onnxruntime`` can be imported."""
    return importlib.util.find_spec("onnxruntime") is not None


def require() -> None:
    """Import onnxruntime: a :class:`~wireplan.MissingExtraError` when it is not installed."""
    with door(_FEATURE, "onnxruntime", "onnxruntime"):
        import onnxruntime  # noqa: F401


def version() -> str:
    """The installed onnxruntime version."""
    with door(_FEATURE, "onnxruntime", "onnxruntime"):
        import onnxruntime

    return str(onnxruntime.__version__)


def release_of(text: str | None = None) -> tuple[int, int]:
    """``(major, minor)`` of an onnxruntime version string (default: the installed release)."""
    given = text is not None
    if text is None:
        text = version()
    parts = text.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except (IndexError, ValueError):
        error = ArgumentError if given else PeerError
        raise error(f"cannot read the onnxruntime version {text!r}") from None


def loadable_format_versions(release: str | None = None) -> tuple[int, ...]:
    """The .ort format versions an onnxruntime release (default: the installed one) loads.

    For the full builds published on PyPI, from onnxruntime's format
    history (:data:`wireplan.ort.schema.FORMAT_RELEASES`) and checked by
    loading files of each version with 1.15.1, 1.20.1 and 1.32.0: 1.16 and
    later load 1 to 6, 1.15 loads 1 to 5 (1 to 4 by rebuilding the kernel
    type string resolver from its operator schemas), 1.14 loads 4 and 5,
    1.13 loads 5, 1.8-1.12 load 4.  Minimal builds load only 5 (and 6 from
    1.16 on).  A release newer than this module knows is assumed to load
    what 1.16+ loads.
    """
    major, minor = release_of(release)
    if (major, minor) >= (1, 16):
        return (1, 2, 3, 4, 5, 6)
    if (major, minor) >= (1, 15):
        return (1, 2, 3, 4, 5)
    if (major, minor) == (1, 14):
        return (4, 5)
    if (major, minor) == (1, 13):
        return (5,)
    if (major, minor) >= (1, 8):
        return (4,)
    return {(1, 7): (1, 2, 3), (1, 6): (1, 2), (1, 5): (1,)}.get((major, minor), ())


def open_session(
    path: str | os.PathLike[str],
    *,
    providers: list[str] | None = None,
    config: Mapping[str, str] | None = None,
    zero_copy: bool = True,
    custom_op_library: str | os.PathLike[str] | None = None,
    **options: Any,
) -> Any:
    """An ``onnxruntime.InferenceSession`` for the model file at ``path``, as onnxruntime opens it.

    :func:`wireplan.ort.session` is the verb (it also runs an .ort with external data);
    the options are described there.  A session config entry or option onnxruntime does
    not take is an :class:`~wireplan.ArgumentError`; onnxruntime refusing the model, a
    :class:`~wireplan.PeerError`.
    """
    with door(_FEATURE, "onnxruntime", "onnxruntime"):
        import onnxruntime as ort

    opts = ort.SessionOptions()
    entries: dict[str, str] = {}
    if zero_copy and os.fspath(path).lower().endswith(".ort"):
        entries.update(ZERO_COPY_OPTIONS)
    entries.update(config or {})
    if entries.get(_DANGEROUS) == "1":
        raise ArgumentError(
            f"{_DANGEROUS} is not supported here: onnxruntime 1.31 crashes on it together "
            "with session.use_ort_model_bytes_for_initializers; open the model from its path"
        )
    for key, value in entries.items():
        opts.add_session_config_entry(key, str(value))
    for name, value in options.items():
        if not hasattr(opts, name):
            raise ArgumentError(f"onnxruntime.SessionOptions has no option {name!r}")
        setattr(opts, name, value)
    _register(opts, custom_op_library)
    try:
        return ort.InferenceSession(
            os.fspath(path), sess_options=opts, providers=providers or ["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        raise PeerError(f"onnxruntime could not load {os.fspath(path)!r}: {exc}") from exc


def _register(opts: Any, library: str | os.PathLike[str] | None) -> None:
    """Register the custom operator library at ``library`` (if any) in the session options
    ``opts``, as onnxruntime's converter does for ``--custom_op_library``."""
    if library is None:
        return
    with open(library, "rb"):  # a missing file: the OSError of opening it, naming it
        pass
    try:
        opts.register_custom_ops_library(os.path.abspath(library))  # not searched for
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        raise PeerError(
            f"onnxruntime {version()} could not load the custom operator library "
            f"{os.fspath(library)!r}: {exc}"
        ) from exc


@functools.cache
def _contrib_schemas() -> dict[tuple[str, str], list[tuple[int, Signature]]]:
    with door(_FEATURE, "onnxruntime", "onnxruntime"):
        from onnxruntime.capi import onnxruntime_pybind11_state as C

    table: dict[tuple[str, str], list[tuple[int, Signature]]] = {}
    # Not exported by the PyPI wheel of onnxruntime 1.15.1.
    for s in getattr(C, "get_all_operator_schema", list)():
        domain = normal_domain(str(s.domain))
        sig: Signature = (
            int(s.since_version),
            [(str(p.name), str(p.typeStr)) for p in s.inputs],
            [(str(p.name), str(p.typeStr)) for p in s.outputs],
            [str(c.type_param_str) for c in s.type_constraints],
        )
        table.setdefault((domain, str(s.name)), []).append((int(s.since_version), sig))
    for versions in table.values():
        versions.sort(key=lambda v: v[0])
    return table


def contrib_op_signature(domain: str, op_type: str, opset_version: int) -> Signature | None:
    """The schema onnxruntime registers for ``op_type`` of ``domain`` in force at ``opset_version``.

    Same shape as :func:`wireplan.ort.onnx.schemas.onnx_op_signature`:
    ``(since_version, inputs, outputs, type_params)``; ``None`` when
    onnxruntime is not installed or knows no such operator at that version.
    """
    if not available():
        return None
    key = (normal_domain(domain), op_type)
    best: Signature | None = None
    for since, sig in _contrib_schemas().get(key, ()):
        if since <= opset_version:
            best = sig
        else:
            break
    return best


#: onnxruntime's "no end version" for a kernel registered from some operator version on.
OPEN_END = 2**31 - 1

#: ``(start version, end version, type constraints)`` of one kernel definition.
Kernel = tuple[int, int, dict[str, frozenset[str]]]


@functools.cache
def _kernel_table(provider: str) -> dict[tuple[str, str], list[Kernel]] | None:
    """``(domain, op_type) -> [(start, end, type constraints)]`` of ``provider``'s kernels.

    ``None`` when this onnxruntime build does not export its kernel
    definitions to Python (the PyPI wheel of 1.15.1).
    """
    with door(_FEATURE, "onnxruntime", "onnxruntime"):
        from onnxruntime.capi import onnxruntime_pybind11_state as C

    if not hasattr(C, "get_all_opkernel_def"):
        return None
    table: dict[tuple[str, str], list[Kernel]] = {}
    for k in C.get_all_opkernel_def():
        if k.provider != provider:
            continue
        domain = normal_domain(str(k.domain))
        lo, hi = k.version_range
        constraints = {
            str(name): frozenset(map(str, types)) for name, types in k.type_constraints.items()
        }
        table.setdefault((domain, str(k.op_name)), []).append((int(lo), int(hi), constraints))
    return table


def kernels_known(provider: str = "CPUExecutionProvider") -> bool:
    """Whether the installed onnxruntime's kernel definitions are read (False without it).

    Builds that do not export them to Python (``get_all_opkernel_def``:
    the PyPI wheel of onnxruntime 1.15.1) are asked by loading a one-node
    .ort instead (:func:`wireplan.ort.kernels.has_typed_kernel`).
    """
    return available() and _kernel_table(provider) is not None


def kernel_definitions(
    domain: str, op_type: str, provider: str = "CPUExecutionProvider"
) -> list[Kernel] | None:
    """``[(start, end, type constraints)]`` of ``provider``'s kernels for this operator.

    ``end`` is :data:`OPEN_END` for a kernel registered "from ``start`` on";
    a constraint maps a kernel type string to the types it allows, as
    onnxruntime spells them.  ``None`` without onnxruntime, or when its
    build does not export its kernel definitions (:func:`kernels_known`).
    """
    table = _kernel_table(provider) if available() else None
    if table is None:
        return None
    return table.get((normal_domain(domain), op_type), [])


def finds_kernels(ort_bytes: bytes, provider: str = "CPUExecutionProvider") -> bool | None:
    """Whether onnxruntime finds a kernel of ``provider`` for every node of this .ort.

    ``True`` when it loads the model, ``False`` when it says "Could not
    find an implementation", ``None`` when it refuses it for another reason
    (loading an .ort verifies the nodes and looks up their kernels, and
    nothing else: no inlining, no Casts).
    """
    with door(_FEATURE, "onnxruntime", "onnxruntime"):
        import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.log_severity_level = 4
    try:
        ort.InferenceSession(ort_bytes, sess_options=opts, providers=[provider])
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        return False if "Could not find an implementation for" in str(exc) else None
    return True


# onnxruntime's optimization levels: its converter's names, GraphOptimizationLevel's names.
_LEVEL_NAMES = {
    "basic": "ORT_ENABLE_BASIC",
    "extended": "ORT_ENABLE_EXTENDED",
    "layout": "ORT_ENABLE_LAYOUT",
    "all": "ORT_ENABLE_ALL",
}
#: onnxruntime's optimization levels by the names its converter gives them.
LEVELS = tuple(_LEVEL_NAMES)


def optimize(
    src: str | os.PathLike[str],
    dst: str | os.PathLike[str],
    *,
    level: str,
    runtime_records: bool,
    target_platform: str | None,
    as_ort: bool,
    external_file: str | None = None,
    external_threshold: int = 1024,
    custom_op_library: str | os.PathLike[str] | None = None,
) -> None:
    """Have onnxruntime optimize the .onnx ``src`` and save the graph at ``dst``, with the
    session settings of its converter (``convert_onnx_models_to_ort``).

    ``level``: one of :data:`LEVELS`; ``NchwcTransformer`` is disabled at ``layout`` and
    ``all`` unless ``target_platform`` is ``"amd64"`` (its layouts fit x86-64 only);
    ``session.qdqisint8allowed`` is ``"1"`` for ``"arm"``, ``"0"`` otherwise.
    ``runtime_records``: the optimizations beyond ``basic`` are saved as runtime
    optimization records instead of applied (an .ort only).  ``as_ort``: onnxruntime
    writes the .ort itself (its limit: 2 GiB); otherwise an .onnx whose initializers of
    ``external_threshold`` bytes or more go to ``external_file`` beside it.
    ``custom_op_library``: a library of custom operators the session registers first.
    """
    hint = "or convert with --optimization none (optimization='none'), which needs only onnx"
    with door("optimizing a model for .ort (as onnxruntime's converter does)", "onnxruntime",
              "onnxruntime", hint):  # fmt: skip
        import onnxruntime as ort

    if level not in _LEVEL_NAMES:
        raise ArgumentError(f"optimization level {level!r}: use one of {', '.join(LEVELS)}")
    value = getattr(ort.GraphOptimizationLevel, _LEVEL_NAMES[level], None)
    if value is None:
        raise ArgumentError(
            f"optimization level {level!r} is not in onnxruntime {version()} (newer releases "
            "have it); use basic, extended or all"
        )
    if target_platform not in (None, "arm", "amd64"):
        raise ArgumentError(f"target platform {target_platform!r}: use 'arm' or 'amd64'")
    if runtime_records and not as_ort:
        raise ArgumentError("runtime optimization records are only saved in an .ort")
    opts = ort.SessionOptions()
    opts.graph_optimization_level = value
    opts.optimized_model_filepath = os.fspath(dst)
    opts.log_severity_level = 4  # its errors reach the PeerError raised below, once
    # What the saved graph does not depend on, and the session would only spend time on:
    # pre-packed weights (kept unpacked in the saved file anyway), a thread pool, an arena.
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.enable_cpu_mem_arena = False
    opts.enable_mem_pattern = False
    entries = {
        "session.qdqisint8allowed": "1" if target_platform == "arm" else "0",
        "session.disable_prepacking": "1",
    }
    if as_ort:
        entries["session.save_model_format"] = "ORT"
        if runtime_records:
            entries["optimization.minimal_build_optimizations"] = "save"
    elif external_file is not None:
        entries["session.optimized_model_external_initializers_file_name"] = external_file
        entries["session.optimized_model_external_initializers_min_size_in_bytes"] = str(
            external_threshold
        )
    for key, entry in entries.items():
        opts.add_session_config_entry(key, entry)
    _register(opts, custom_op_library)
    disabled = None
    if level in ("layout", "all") and target_platform != "amd64":
        disabled = ["NchwcTransformer"]
    try:
        ort.InferenceSession(
            os.fspath(src),
            sess_options=opts,
            providers=["CPUExecutionProvider"],
            disabled_optimizers=disabled,
        )
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        custom = ""
        if "is not a registered function/op" in str(exc):
            custom = (
                " (a custom operator's library is given as custom_op_library, --custom-op-library)"
            )
        raise PeerError(
            f"onnxruntime {version()} could not optimize {os.fspath(src)!r}: {exc}{custom}"
        ) from exc
