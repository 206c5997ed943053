"""The one module that imports ``onnxruntime``: zero-copy sessions and contrib operator schemas.

:func:`session` opens an .ort file from its path with the options that keep
the weights in the file's memory mapping (no copy of the initializers).
:func:`contrib_op_signature` reports the operator schemas onnxruntime
registers for its own domains (``com.microsoft`` ...), in the shape of
:func:`wireplan.ort.onnx.schemas.onnx_op_signature`, for the writer's
``KernelTypeStrResolver``.  :func:`has_kernel`, :func:`has_typed_kernel`
and :func:`needs_expansion` match the installed onnxruntime's kernel
definitions to a node as onnxruntime's kernel registry does (version and
type binding): the writer's decisions on function bodies and float16
Casts follow them.

``onnxruntime`` is imported when one of these is first called, so importing
this module is cheap; :func:`available` says whether it is installed.
"""

from __future__ import annotations

import functools
import importlib.util
import os
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from wireplan.core.extras import door
from wireplan.errors import WireplanError

if TYPE_CHECKING:  # annotations only: kernel_types imports this module when it asks onnxruntime
    from wireplan.ort.kernel_types import Signature

__all__ = [
    "ZERO_COPY_OPTIONS",
    "available",
    "contrib_op_signature",
    "external_onnx",
    "has_kernel",
    "has_typed_kernel",
    "kernels_known",
    "loadable_format_versions",
    "needs_expansion",
    "release_of",
    "session",
    "version",
]


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


def version() -> str:
    """The installed onnxruntime version."""
    with door("wireplan.ort.runtime", "onnxruntime", "onnxruntime"):
        import onnxruntime

    return str(onnxruntime.__version__)


def release_of(text: str | None = None) -> tuple[int, int]:
    """``(major, minor)`` of an onnxruntime version string (default: the installed release)."""
    if text is None:
        text = version()
    parts = text.split(".")
    try:
        return int(parts[0]), int("".join(c for c in parts[1] if c.isdigit()) or 0)
    except (IndexError, ValueError):
        raise WireplanError(f"cannot read the onnxruntime version {text!r}") from None


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


def session(
    path: str | os.PathLike[str],
    *,
    providers: list[str] | None = None,
    config: Mapping[str, str] | None = None,
    zero_copy: bool = True,
    **options: Any,
) -> Any:
    """An ``onnxruntime.InferenceSession`` for the .ort (or .onnx) file at ``path``.

    With ``zero_copy`` (the default) the .ort is memory-mapped
    (``session.use_memory_mapped_ort_model``) and its initializers are used
    in place (``session.use_ort_model_bytes_for_initializers``): the mapping
    must stay valid, which onnxruntime ensures for as long as the session
    lives.  ``config`` adds session config entries; other keyword
    arguments set attributes of ``onnxruntime.SessionOptions``
    (``graph_optimization_level=...``, ``intra_op_num_threads=...``).
    ``providers`` defaults to the CPU provider.  onnxruntime errors become
    :class:`~wireplan.WireplanError`.

    An .ort with external data (``save(..., external_data=True)``) cannot be
    loaded by onnxruntime, whose inference loader has no reader for
    ``Tensor.external_data_offset`` (only training checkpoints have one).
    It is run through an equivalent .onnx instead (:func:`external_onnx`):
    the same graph, the small initializers inline and the large ones as
    ONNX external data pointing at their offsets in the same companion
    file, which onnxruntime maps; no weight is copied or rewritten.  That
    .onnx is a temporary file beside the model (the folder must be
    writable), removed once the session exists.  Only an .ort that has a
    companion file beside it is read here first.
    """
    with door("wireplan.ort.runtime", "onnxruntime", "onnxruntime"):
        import onnxruntime as ort

    if os.fspath(path).lower().endswith(".ort") and os.path.isfile(os.fspath(path) + ".data"):
        proto = external_onnx(path)
        if proto is not None:
            return _session_via_onnx(path, proto, providers, config, options)
    opts = ort.SessionOptions()
    entries: dict[str, str] = {}
    if zero_copy and os.fspath(path).lower().endswith(".ort"):
        entries.update(ZERO_COPY_OPTIONS)
    entries.update(config or {})
    if entries.get(_DANGEROUS) == "1":
        raise WireplanError(
            f"{_DANGEROUS} is not supported here: onnxruntime 1.31 crashes on it together "
            "with session.use_ort_model_bytes_for_initializers; open the model from its path"
        )
    for key, value in entries.items():
        opts.add_session_config_entry(key, str(value))
    for name, value in options.items():
        if not hasattr(opts, name):
            raise WireplanError(f"onnxruntime.SessionOptions has no option {name!r}")
        setattr(opts, name, value)
    try:
        return ort.InferenceSession(
            os.fspath(path), sess_options=opts, providers=providers or ["CPUExecutionProvider"]
        )
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        raise WireplanError(f"onnxruntime could not load {os.fspath(path)!r}: {exc}") from exc


def external_onnx(path: str | os.PathLike[str]) -> Any:
    """For an .ort with external data, the equivalent ``onnx.ModelProto`` (else ``None``).

    Its large initializers are ONNX external data (``location`` = the
    companion's file name, ``offset``, ``length``) at the offsets the .ort
    gives, so an .onnx saved beside the .ort runs on the same data file.
    """
    from wireplan.ort.reader import external_offsets, load

    with load(path) as om:
        if not external_offsets(om):
            return None
        from wireplan.ort.onnx.to_proto import to_onnx
        from wireplan.ort.writer import companion_path

        return to_onnx(om, companion=companion_path(path).name)


def _session_via_onnx(
    path: str | os.PathLike[str],
    proto: Any,
    providers: list[str] | None,
    config: Mapping[str, str] | None,
    options: Mapping[str, Any],
) -> Any:
    """A session for ``proto`` saved as a temporary .onnx beside the .ort at ``path``."""
    import tempfile

    folder, name = os.path.split(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{name}.", suffix=".onnx", dir=folder)
    except OSError as exc:
        raise WireplanError(
            f"{os.fspath(path)!r} keeps its weights in external data, which onnxruntime reads "
            f"only from an .onnx beside it, and {folder!r} is not writable: {exc}"
        ) from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(proto.SerializeToString())
        return session(tmp, providers=providers, config=config, zero_copy=False, **options)
    finally:
        os.unlink(tmp)


@functools.cache
def _contrib_schemas() -> dict[tuple[str, str], list[tuple[int, Signature]]]:
    with door("wireplan.ort.runtime", "onnxruntime", "onnxruntime"):
        from onnxruntime.capi import onnxruntime_pybind11_state as C

    table: dict[tuple[str, str], list[tuple[int, Signature]]] = {}
    # Not exported by the PyPI wheel of onnxruntime 1.15.1.
    for s in getattr(C, "get_all_operator_schema", list)():
        domain = "" if s.domain in ("", "ai.onnx") else str(s.domain)
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
    key = ("" if domain in ("", "ai.onnx") else domain, op_type)
    best: Signature | None = None
    for since, sig in _contrib_schemas().get(key, ()):
        if since <= opset_version:
            best = sig
        else:
            break
    return best


#: onnxruntime's "no end version" for a kernel registered from some operator version on.
_OPEN_END = 2**31 - 1

Kernel = tuple[int, int, dict[str, frozenset[str]]]


@functools.cache
def _kernel_table(provider: str) -> dict[tuple[str, str], list[Kernel]] | None:
    """``(domain, op_type) -> [(start, end, type constraints)]`` of ``provider``'s kernels.

    ``None`` when this onnxruntime build does not export its kernel
    definitions to Python (the PyPI wheel of 1.15.1).
    """
    with door("wireplan.ort.runtime", "onnxruntime", "onnxruntime"):
        from onnxruntime.capi import onnxruntime_pybind11_state as C

    if not hasattr(C, "get_all_opkernel_def"):
        return None
    table: dict[tuple[str, str], list[Kernel]] = {}
    for k in C.get_all_opkernel_def():
        if k.provider != provider:
            continue
        domain = "" if k.domain in ("", "ai.onnx") else str(k.domain)
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
    .ort instead (:func:`has_typed_kernel`).
    """
    return available() and _kernel_table(provider) is not None


def _type_info(spelled: str) -> Any:
    """A ``wireplan.ort.model.TypeInfo`` for ``"tensor(float16)"`` / ``"seq(tensor(int64))"``."""
    from wireplan.ort import model as m
    from wireplan.ort.schema import TENSOR_DATA_TYPE

    if spelled.startswith("tensor(") and spelled.endswith(")"):
        code = TENSOR_DATA_TYPE.get(spelled[7:-1].upper())
        return None if code is None else m.TypeInfo(value=m.TensorTypeAndShape(elem_type=code))
    if spelled.startswith("seq(") and spelled.endswith(")"):
        inner = _type_info(spelled[4:-1])
        return None if inner is None else m.TypeInfo(value=m.SequenceType(elem_type=inner))
    return None


# Conclusive answers of _probe: (domain, op_type, since_version, binding, provider) -> bool.
_PROBED: dict[tuple[str, str, int, tuple[tuple[str, str], ...], str], bool] = {}

#: What a probe needs of the node it stands for, built on demand: its attributes
#: (``wireplan.ort.model.Attribute`` objects: onnxruntime verifies required ones) and its
#: numbers of inputs and outputs (a variadic formal may take several).
NodeThunk = Callable[[], "tuple[list[Any], int, int]"]


def _probe(
    domain: str,
    op_type: str,
    since_version: int,
    binding: tuple[tuple[str, str], ...],
    provider: str,
    attributes: NodeThunk | None = None,
) -> bool:
    """Whether onnxruntime finds a kernel for a one-node .ort of this operator and binding.

    For builds without exported kernel definitions.  The node gets an
    argument for each formal whose type the binding (or the schema, for a
    fixed type) gives and none for the others, so onnxruntime checks
    exactly the bound types; given ``node()``, it also gets the attributes
    of the node asked about, since onnxruntime verifies required ones (a
    SequenceMap's ``body``) before it looks for a kernel, and as many
    arguments as that node (a variadic formal repeats); loading an .ort
    runs that check and the kernel lookup and nothing else (no inlining, no
    Casts).  Only "Could not find an implementation" means no kernel.
    Anything that cannot be asked (an operator no schema source knows, a
    type or attribute .ort cannot hold, a release that loads neither format
    5 nor 6, a graph onnxruntime finds invalid for another reason) answers
    True, and only conclusive answers are remembered.
    """
    key = (domain, op_type, since_version, binding, provider)
    known = _PROBED.get(key)
    if known is not None:
        return known
    answer = _ask(domain, op_type, since_version, binding, provider, attributes)
    if answer is not None:
        _PROBED[key] = answer
    return True if answer is None else answer


def _ask(
    domain: str,
    op_type: str,
    since_version: int,
    binding: tuple[tuple[str, str], ...],
    provider: str,
    attributes: NodeThunk | None,
) -> bool | None:
    """:func:`_probe`'s question put to onnxruntime: True, False, or None (inconclusive)."""
    with door("wireplan.ort.runtime", "onnxruntime", "onnxruntime"):
        import onnxruntime as ort

    from wireplan.errors import EncodeError
    from wireplan.ort import kernel_types, writer
    from wireplan.ort import model as m

    sig = kernel_types.signature(domain, op_type, since_version)
    formats = [v for v in loadable_format_versions() if v in (5, 6)]
    if sig is None or sig[0] != since_version or not formats:
        return None
    try:
        node_attributes, n_in, n_out = (
            attributes() if attributes is not None else ([], len(sig[1]), len(sig[2]))
        )
    except WireplanError:  # an attribute .ort cannot hold (or that the bridge cannot convert)
        return None
    _, formal_in, formal_out, params = sig
    bound = dict(binding)
    args: list[Any] = []

    def arg(prefix: str, k: int, fname: str, type_str: str) -> str:
        spelled = bound.get(type_str if type_str in params else fname)
        if spelled is None and type_str not in params:
            spelled = type_str  # a fixed type, e.g. tensor(int64)
        t = _type_info(spelled) if spelled is not None else None
        if t is None:
            return ""
        args.append(m.ValueInfo(name=f"{prefix}{k}", type=t))
        return f"{prefix}{k}"

    # Argument k of the node binds formal k, or the last (variadic) one past the formals.
    inputs = [arg("i", k, *formal_in[min(k, len(formal_in) - 1)]) for k in range(n_in)]
    outputs = [arg("o", k, *formal_out[min(k, len(formal_out) - 1)]) for k in range(n_out)]
    while inputs and not inputs[-1]:
        inputs.pop()
    if "" in inputs or "" in outputs:
        args.append(m.ValueInfo(name=""))  # an absent argument, as onnxruntime lists it
    node = m.Node(
        domain=domain,
        since_version=since_version,
        op_type=op_type,
        inputs=inputs,
        outputs=outputs,
        input_arg_counts=np.ones(len(inputs), dtype="<i4"),
        attributes=node_attributes,
    )
    opsets = [m.OperatorSetId(domain, since_version)]
    graph = m.Graph(
        node_args=args,
        nodes=[node],
        max_node_index=1,
        inputs=[x for x in inputs if x],
        outputs=[y for y in outputs if y],
    )
    probe = m.OrtModel(model=m.Model(ir_version=8, opset_import=opsets, graph=graph))
    try:
        buf = writer.to_bytes(probe, float16_casts=False, format_version=formats[-1])
    except EncodeError:
        return None
    opts = ort.SessionOptions()
    opts.log_severity_level = 4
    try:
        ort.InferenceSession(bytes(buf), sess_options=opts, providers=[provider])
    except Exception as exc:  # onnxruntime raises its own pybind exception types
        return False if "Could not find an implementation for" in str(exc) else None
    return True


def _version_matches(start: int, end: int, since_version: int) -> bool:
    """onnxruntime's rule: the kernel's start version, or inside a range that has an end.

    A kernel registered "from ``start`` on" (no end version) does not serve
    a later operator version: it was written before that version existed.
    """
    return start == since_version or (end != _OPEN_END and start <= since_version <= end)


def _kernels_for(domain: str, op_type: str, provider: str) -> list[Kernel] | None:
    table = _kernel_table(provider) if available() else None
    if table is None:
        return None
    return table.get(("" if domain in ("", "ai.onnx") else domain, op_type), [])


def has_kernel(
    domain: str, op_type: str, since_version: int, provider: str = "CPUExecutionProvider"
) -> bool:
    """Whether onnxruntime registers a kernel of ``provider`` for this operator version.

    Versions match as onnxruntime matches them: the kernel's start version,
    or a version inside a range that has an end (a kernel registered "from
    version 24 on" does not serve version 25).  ``True`` without
    onnxruntime; a build that does not export its kernel definitions
    (:func:`kernels_known`) is asked by loading a one-node .ort.
    """
    if not available():
        return True
    kernels = _kernels_for(domain, op_type, provider)
    if kernels is None:
        return _probe(domain, op_type, since_version, (), provider)
    return any(_version_matches(lo, hi, since_version) for lo, hi, _ in kernels)


def has_typed_kernel(
    domain: str,
    op_type: str,
    since_version: int,
    binding: Mapping[str, str],
    provider: str = "CPUExecutionProvider",
    attributes: NodeThunk | None = None,
) -> bool:
    """Whether ``provider`` registers a kernel for this operator version and type binding.

    ``binding`` maps a kernel type string (``"T"``, ``"T1"``: the schema's
    type parameters, or a formal parameter's name where its type is fixed)
    to the type of the node's first argument bound to it, as onnxruntime
    spells types (``"tensor(float16)"``).  A kernel matches when its version
    matches (see :func:`has_kernel`) and, for each of its type constraints,
    the bound type (when ``binding`` has one) is among the allowed types;
    parameters ``binding`` leaves out are not checked, as onnxruntime skips
    a constraint none of the node's arguments present binds.  ``True``
    without onnxruntime; a build that does not export its kernel
    definitions (:func:`kernels_known`) is asked by loading a one-node .ort
    with an argument of each bound type and, given ``attributes``, the
    node's attributes and arity (:data:`NodeThunk`).
    """
    if not available():
        return True
    kernels = _kernels_for(domain, op_type, provider)
    if kernels is None:
        bound = tuple(sorted(binding.items()))
        return _probe(domain, op_type, since_version, bound, provider, attributes)
    for lo, hi, constraints in kernels:
        if _version_matches(lo, hi, since_version) and all(
            binding.get(name) is None or binding[name] in allowed
            for name, allowed in constraints.items()
        ):
            return True
    return False


def needs_expansion(
    domain: str,
    op_type: str,
    since_version: int,
    binding: Mapping[str, str] | None = None,
    attributes: NodeThunk | None = None,
) -> bool:
    """Whether a node of a function operator must be replaced by its function body in an .ort.

    When onnxruntime loads an .onnx, a node that no CPU kernel matches (by
    operator version *and* the types ``binding`` gives, see
    :func:`has_typed_kernel`) and that has a function body is replaced by
    the body (a context-dependent body is built for the node's types); the
    float16 Casts come after that.  When it loads an .ort it does neither,
    so the writer expands those nodes (it asks this only for nodes that
    have a function body).  ``Constant`` has no kernel either, but
    onnxruntime turns it into an initializer instead (and so does the
    writer).  ``False`` without onnxruntime.  ``attributes()`` gives the
    node's attributes and arity, which only a release without exported
    kernel definitions needs (:func:`has_typed_kernel`).
    """
    if op_type == "Constant" and domain in ("", "ai.onnx"):
        return False
    return not has_typed_kernel(
        domain, op_type, since_version, binding or {}, attributes=attributes
    )
