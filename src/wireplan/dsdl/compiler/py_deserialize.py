"""The deserializer emitter (one concern): a plan's steps as the body of a decoding routine."""

from __future__ import annotations

from wireplan.dsdl._bits import large_at

from .model import Array, Composite, Primitive
from .plan import Step, uint_wrapper
from .py_module import (
    _GROUP_CODE,
    _INT_CODE,
    SMALL_BOOLS,
    TABLE_CAP,
    ModuleContext,
    _byte_code,
    _Function,
    _is_large,
    attr,
    from_wire,
)

SMALL_UNPACK = 16  # fixed arrays up to this many elements unpack into locals, not ``*a``


class _Deserializer(_Function):
    """Emits the body of ``def f(b, o, n)`` returning ``(value, next_byte_offset)``.

    ``b`` is padded with zeros up to the type's maximum size (so no read is
    out of bounds, which also implements the implicit zero extension), ``n``
    is the real length of the data, used by delimiter header checks.

    Lists are built as ``[*x]``, not ``list(x)``: no global lookup and call.

    Besides the lines it records what the top-level decoder needs to know
    about them: ``unpacks`` (the struct reads, and where the first one is),
    ``other_reads`` (any other use of the buffer), ``slices`` (a read that a
    short buffer cuts silently), ``advance`` (the index of the last line that
    only moves ``o``) and ``read_after`` (whether a line after it reads ``o``: lines
    that only build the result from locals, ``post``, do not).
    """

    def __init__(self, context: ModuleContext, base: int | None = None) -> None:
        super().__init__(context)
        # ``base``: where the data starts when known (0 at the top level): offsets are
        # constants and ``o`` is first assigned, not advanced, where it becomes variable
        self.base = base
        self.lines: list[str] = []
        self.mode = "byte"
        self.so = 0  # static byte offset from `o` (byte mode)
        self.run_start = 0
        self.items: list[tuple[str, str | None, int]] = []  # (code, target, value count)
        self.post: list[str] = []
        self.gvar = ""
        self.gbits = 0
        self.gstart = 0
        self.gx: list[str] = []
        # a group of whole bytes but no struct int, kept open for the next field (see
        # _group_add): where its lines start in ``post``, and its last line unmasked
        self.gwait = False
        self.gfrom = 0
        self.gtop: tuple[int, str] | None = None
        self.unpacks = 0
        self.first_unpack: tuple[int, str, str] | None = None  # (line, targets, struct)
        self.other_reads = False
        self.slices = False
        self.advance = -1
        self.read_after = False

    def emit(self, line: str) -> None:
        self.lines.append("    " * self.indent + line)
        self.read_after = True

    def at(self, k: int) -> str:
        """The expression of byte offset ``o + k``."""
        if self.base is not None:
            return str(self.base + k)
        return f"o + {k}" if k else "o"

    def _advance(self, line: str) -> None:
        self.emit(line)
        if self.indent == 1:
            self.advance = len(self.lines) - 1
            self.read_after = False

    def flush(self) -> None:
        self._settle()
        if self.items:
            codes = "".join(c for c, _, _ in self.items)
            name = self.context.constants.struct("<" + codes)
            targets = [(t, c) for _, t, c in self.items if t is not None]
            at = self.at(self.run_start)
            call = f"{name}_u(b, {at})"
            multi = [t for t, c in targets if c > 1]
            line = len(self.lines)
            if not targets:
                pass
            elif codes == "B" and len(targets) == 1:
                self.other_reads = True
                self.emit(f"{targets[0][0]} = b[{at}]")
            elif multi and all(c <= SMALL_UNPACK for _, c in targets):
                # short fixed arrays: each element to a local, the list from those
                # (``x, *a = ...`` builds the list through an iterator, twice the cost)
                parts = {t: [self.new("e") for _ in range(c)] for t, c in targets if c > 1}
                names = ", ".join(", ".join(parts[t]) if c > 1 else t for t, c in targets)
                self.emit(f"{names} = {call}")
                self.unpacks += 1
                if self.unpacks == 1 and at == "o" and self.indent == 1:
                    self.first_unpack = (line, names, f"{name}_u")
                for t, elements in parts.items():
                    self.emit(f"{t} = [{', '.join(elements)}]")
            elif len(multi) <= 1:
                names = ", ".join(("*" + t) if c > 1 else t for t, c in targets)
                lhs = f"{names}," if len(targets) == 1 else names
                self.emit(f"{lhs} = {call}")
                self.unpacks += 1
                if self.unpacks == 1 and at == "o" and self.indent == 1:
                    self.first_unpack = (line, lhs, f"{name}_u")
            else:
                tup = self.new("t")
                self.emit(f"{tup} = {call}")
                self.unpacks += 1
                if self.unpacks == 1 and at == "o" and self.indent == 1:
                    self.first_unpack = (line, tup, f"{name}_u")
                i = 0
                for t, c in targets:
                    if 1 < c <= SMALL_UNPACK:
                        self.emit(f"{t} = [{', '.join(f'{tup}[{i + k}]' for k in range(c))}]")
                    elif c > 1:
                        self.emit(f"{t} = [*{tup}[{i}:{i + c}]]")
                    else:
                        self.emit(f"{t} = {tup}[{i}]")
                    i += c
            self.items = []
        for line_ in self.post:  # from locals only: not a read of ``o``
            self.lines.append("    " * self.indent + line_)
        self.post = []
        self.run_start = self.so

    def pin(self) -> None:
        """Make the run-time ``o`` the current position (byte mode, aligned)."""
        self.flush()
        if self.base is not None:
            self._advance(f"o = {self.base + self.so}")
            self.base = None
        elif self.so:
            self._advance(f"o += {self.so}")
        self.so = 0
        self.run_start = 0

    def _group_open(self) -> None:
        if self.gbits == 0:
            self.gvar = self.new("g")
            self.gstart = self.so
            self.gx = []

    def _group_add(self, bits: int, top: str | None = None) -> None:
        """Add ``bits`` to the open group; ``top``: the line just added, without its mask,
        used when these bits end the group (its int holds nothing above them).

        A group that ends on 3, 5, 6 or 7 bytes (a 56-bit timestamp) stays open: should
        the next fields be bits too, they fill it to a struct int (7 + 1 bytes: one ``Q``,
        no bytes object and no ``int.from_bytes``).  Its lines go to ``post`` at once (an
        inline composite's construction after them uses them); anything else settles it.
        """
        self.gtop = None  # more bits above the last line: its mask stays
        self.gbits += bits
        if self.gbits % 8:
            return
        k = self.gbits // 8
        if (self.gx or self.gwait) and self.gbits < 64 and k not in _GROUP_CODE:
            if not self.gwait:
                self.gwait, self.gfrom = True, len(self.post)
            if top is not None:
                self.gtop = (len(self.post) + len(self.gx) - 1, top)
            self.post.extend(self.gx)
            self.gx = []
            return
        if top is not None:
            self.gx[-1] = top
        self._group_close()

    def _settle(self) -> None:
        """Close a group kept open at a byte boundary (the next field is not bits)."""
        if self.gwait:
            self._group_close()

    def _group_close(self) -> None:
        k = self.gbits // 8
        if not self.gx and not self.gwait:
            self.items.append((f"{k}x", None, 0))
        elif k in _GROUP_CODE:
            self.items.append((_GROUP_CODE[k], self.gvar, 1))
            self.post.extend(self.gx)
        else:
            raw = self.gvar + "r"
            self.items.append((f"{k}s", raw, 1))
            if self.gtop is not None:  # nothing came after it: unmasked after all
                self.post[self.gtop[0]] = self.gtop[1]
            at = self.gfrom if self.gwait else len(self.post)
            self.post.insert(at, f"{self.gvar} = _ifb({raw}, 'little')")
            self.post.extend(self.gx)
        self.so += k
        self.gbits = 0
        self.gx = []
        self.gwait = False
        self.gtop = None

    def to_bits(self) -> None:
        if self.mode == "bits":
            return
        self._settle()
        self.other_reads = True
        if self.gbits:
            k = (self.gbits + 7) // 8
            gvar, gx, gstart, bits = self.gvar, self.gx, self.gstart, self.gbits
            self.gbits = 0
            self.gx = []
            self.flush()
            if gx:
                self.emit(f"{gvar} = _ifb(b[{self.at(gstart)}:{self.at(gstart + k)}], 'little')")
                for line in gx:
                    self.emit(line)
            if self.base is not None:
                self.emit(f"p = {(self.base + gstart) * 8 + bits}")
            else:
                self.emit(f"p = (o + {gstart}) * 8 + {bits}" if gstart else f"p = o * 8 + {bits}")
        else:
            self.flush()
            if self.base is not None:
                self.emit(f"p = {(self.base + self.so) * 8}")
            else:
                self.emit(f"p = (o + {self.so}) * 8" if self.so else "p = o * 8")
        self.mode = "bits"
        self.base = None  # bit mode reads p; align8 assigns o from it

    def align8(self) -> None:
        if self.mode == "bits":
            self.flush()
            self._advance("o = (p + 7) >> 3")
            self.mode = "byte"
            self.so = 0
            self.run_start = 0
        elif self.gbits % 8:
            self._group_add(8 - self.gbits % 8)

    def _bits_read(self, bits: int) -> str:
        """Expression: ``bits`` bits at run-time bit position ``p``."""
        return f"(_ifb(b[p >> 3:(p + {bits + 7}) >> 3], 'little') >> (p & 7)) & {(1 << bits) - 1}"

    def prim(self, step: Step, target: str | None = None) -> str:
        t = step.type
        assert isinstance(t, Primitive)
        assert (self.mode == "bits") == (step.at is None), step
        kind, bits = t.kind, t.bits
        if kind == "v":
            if self.mode == "bits":
                self.emit(f"p += {bits}")
            elif self.gbits == 0 and bits % 8 == 0:
                self.items.append((f"{bits // 8}x", None, 0))
                self.so += bits // 8
            else:
                self._group_open()
                self._group_add(bits)
            return "None"
        v = target or self.new()
        code = _byte_code(t)
        if step.strategy == "struct" and code is not None:
            self._settle()
            assert self.gbits == 0
            self.items.append((code, v, 1))
            self.so += bits // 8
            return v
        if step.strategy in ("struct", "bit-group"):
            self._group_open()
            shift = self.gbits
            g = self.gvar
            if kind == "b":
                self.gx.append(f"{v} = {g} & {1 << shift} != 0")
            else:
                raw = (
                    f"({g} >> {shift}) & {(1 << bits) - 1}" if shift else f"{g} & {(1 << bits) - 1}"
                )
                self.gx.append(f"{v} = {from_wire(kind, bits, raw)}")
                unmasked = f"({g} >> {shift})" if shift else g
                self._group_add(bits, f"{v} = {from_wire(kind, bits, unmasked)}")
                return v
            self._group_add(bits)
            return v
        if kind == "b":
            self.emit(f"{v} = (b[p >> 3] >> (p & 7)) & 1 != 0")
        else:
            self.emit(f"{v} = {self._bits_read(bits)}")
            if kind != "u":
                self.emit(f"{v} = {from_wire(kind, bits, v)}")
        self.emit(f"p += {bits}")
        return v

    def _from_int(self, el: Primitive, raw: str, count: str, target: str, large: bool) -> list[str]:
        """Lines turning the int ``raw`` holding ``count`` elements into a list ``target``."""
        if el.kind == "b":
            if large:
                fn = "_i2b_np" if count.isdigit() else "_i2b_auto"
                return [f"{target} = {fn}({raw}, {count})"]
            return [f"{target} = _i2b({raw}, {count})"]
        code = _byte_code(el)
        size = el.bits // 8
        if code is not None:
            data = (
                f"({raw}).to_bytes({count} * {size}, 'little')"
                if size != 1
                else f"({raw}).to_bytes({count}, 'little')"
            )
            if large:
                fn = "_np_from" if count.isdigit() else "_numbers"
                return [f"{target} = {fn}({data}, {code!r}, {count}, 0)"]
            if code == "B":
                return [f"{target} = [*{data}]"]
            return [f"{target} = {self._short_numbers(code, count, data, '0')}"]
        return [f"{target} = _i2i_r({raw}, {el.bits}, {count}, {el.kind == 'i'})"]

    def _short_numbers(self, code: str, count: str, buf: str, at: str) -> str:
        """An expression: a list of ``count`` numbers ``code`` read from ``buf`` at ``at``
        (float16 as a numpy array, which keeps NaN payload bits; struct's table otherwise).
        A variable ``count`` of 0 makes ``[]`` without the table's call (45 of 50 ns)."""
        if code == "e":
            return f"_np_from({buf}, 'e', {count}, {at})"
        read = f"[*{self.context.constants.unpacker(code)}[{count}]({buf}, {at})]"
        return read if count.isdigit() else f"({read} if {count} else [])"

    def _finish_special(self, el: Primitive, v: str, path: str, at: str) -> None:
        """utf8 arrays become str, byte arrays bytes (pydsdl's convention)."""
        if el.text == "utf8":
            self.other_reads = True
            self.emit(f"{v} = _utf8({v}, {at}, {('$.' + path)!r})")
        elif el.text == "byte":
            self.emit(f"{v} = bytes({v})")

    def array(self, step: Step) -> str:
        t = step.type
        assert isinstance(t, Array)
        el = t.element
        cap = t.capacity
        path = step.path
        self._settle()
        v = self.new("a")
        large = _is_large(t)
        if t.fixed:
            count = str(cap)
        else:
            assert t.length_type is not None
            # a length prefix whose every value fits the capacity (uint8 before 255) is
            # not checked
            checked = cap < (1 << t.length_type.bits) - 1
            if not checked:
                at = ""
            elif self.mode == "bits":
                self.emit("q = p >> 3")
                at = "q"
            else:
                at = self.at(self.so)
            length = next(s for s in step.steps if s.role == "length")
            count = self.prim(length)
            if self.mode == "byte" and self.gbits:
                self.to_bits()
            else:
                self.flush()
            self.other_reads = True
            if checked:
                self.emit(f"if {count} > {cap}:")
                self.emit(
                    f"    raise _DecodeError(f'array length {{{count}}} exceeds capacity {cap}', "
                    f"{at}, {('$.' + path)!r})"
                )
        if isinstance(el, Composite):
            return self._composite_array(step, el, v, count)
        assert isinstance(el, Primitive)
        code = _byte_code(el)
        size = el.bits // 8
        special = bool(el.text)
        if t.fixed:
            return self._fixed_array(step, t, el, v, code, large, special)
        if step.strategy == "byte-copy":
            assert code is not None
            self.pin()
            # zero-copy from immutable bytes; a copy from a buffer that may change
            view = (
                f"(_frombuffer(b, _DT_{code}, {count}, o) if b.__class__ is bytes "
                f"else _frombuffer(b, _DT_{code}, {count}, o).copy())"
            )
            if code == "e":  # float16: a numpy array at every length
                self.emit(f"{v} = {view}")
            elif large:
                self.emit(f"if {count} >= {large_at(code)}:")
                self.emit(f"    {v} = {view}")
                self.emit("else:")
                # bytes too go through the unpack table: faster than a slice, and a
                # short buffer raises instead of being cut
                self.emit(f"    {v} = {self._short_numbers(code, count, 'b', 'o')}")
            elif code == "B" and cap >= large_at(code):
                self.slices = True  # cut silently by a short buffer
                self.emit(f"{v} = [*b[o:o + {count}]]")  # utf8 / byte text: no table that long
            else:
                self.emit(f"{v} = {self._short_numbers(code, count, 'b', 'o')}")
            if special:
                self._finish_special(el, v, path, "o")
            self._advance(f"o += {count}" if size == 1 else f"o += {count} * {size}")
            return v
        if el.kind == "b" and self.mode == "byte" and not self.gbits:
            # bools from a whole byte: read from the buffer, no integer built; the next
            # field starts count bits later
            self.flush()
            at = self.at(self.so)
            self.emit(f"{v} = _bools_at(b, {at}, {count})")
            self.emit(f"p = ({at}) * 8 + {count}")
            self.mode = "bits"
            self.base = None
            return v
        self.to_bits()
        raw = self.new("r")
        width = f"{count} * {el.bits}" if el.bits != 1 else count
        self.emit(
            f"{raw} = (_ifb(b[p >> 3:(p + {width} + 7) >> 3], 'little') >> (p & 7)) "
            f"& ((1 << ({width})) - 1)"
        )
        for line in self._from_int(el, raw, count, v, large):
            self.emit(line)
        if special:
            self._finish_special(el, v, path, "p >> 3")
        self.emit(f"p += {width}")
        return v

    def _composite_array(self, step: Step, el: Composite, v: str, count: str) -> str:
        self.align8()
        self.pin()
        self.other_reads = True
        cap = step.type.capacity if isinstance(step.type, Array) else 0
        wrapped = uint_wrapper(el) if cap <= TABLE_CAP else None
        if step.strategy == "inline" and wrapped is not None:
            # one unpack of all the integers, an object around each
            esize, ebits, name = wrapped
            ecode = _GROUP_CODE[esize]
            g, r = self.new("g"), self.new("r")
            self.emit(f"{v} = []")
            self.emit(f"for {g} in {self.context.constants.unpacker(ecode, cap)}[{count}](b, o):")
            self.emit(f"    {r} = _new_{self.context.ident(el)}()")
            mask = f" & {(1 << ebits) - 1}" if ebits < esize * 8 else ""
            self.emit(f"    {r}.{attr(name)} = {g}{mask}")
            self.emit(f"    {v}.append({r})")
            self._advance(f"o += {count} * {esize}" if esize > 1 else f"o += {count}")
            return v
        if step.strategy == "inline":
            # the element's steps in the loop (they cannot fail: no tags, no lengths)
            self.emit(f"{v} = []")
            self.emit(f"for _ in range({count}):")
            self.indent += 1
            r = self.structure(el, [s for s in step.steps if s.role != "length"])
            self.flush()
            self.emit(f"{v}.append({r})")
            self.emit(f"o += {self.so}")
            self.so = 0
            self.run_start = 0
            self.indent -= 1
            return v
        fn = self._composite_fn(el)
        e = self.new("e")
        i = self.new("i")
        self.emit(f"{v} = []")
        self.emit("try:")
        self.emit(f"    for {i} in range({count}):")
        self.emit(f"        {e}, o = {fn}(b, o, n)")
        self.emit(f"        {v}.append({e})")
        self.emit("except _DecodeError as exc:")
        self.emit(f"    raise exc.under(f{('.' + step.path + '[{' + i + '}]')!r}) from None")
        self.advance = -1
        return v

    def _fixed_array(
        self,
        step: Step,
        t: Array,
        el: Primitive,
        v: str,
        code: str | None,
        large: bool,
        special: bool,
    ) -> str:
        cap = t.capacity
        size = el.bits // 8
        path = step.path
        count = str(cap)
        if step.strategy == "struct" and code is not None and large:
            self.pin()
            self.other_reads = True
            self.emit(f"{v} = _np_from(b, {code!r}, {cap}, o)")
            self._advance(f"o += {cap * size}")
            return v
        if step.strategy == "struct" and code is not None:
            if code == "B":
                raw = self.new("r")
                self.items.append((f"{cap}s", raw, 1))
                at = self.at(self.so)
                if special:
                    self.post.append(f"{v} = {raw}")
                    self.so += cap
                    self.flush()
                    self._finish_special(el, v, path, at)
                    return v
                self.post.append(f"{v} = [*{raw}]")
            elif code == "e":
                raw = self.new("r")
                self.items.append((f"{cap * 2}s", raw, 1))
                self.post.append(f"{v} = _np_from({raw}, 'e', {cap}, 0)")  # NaN payloads kept
            else:
                self.items.append((f"{cap}{code}", v, cap))
            self.so += cap * size
            return v
        if step.strategy == "struct":
            # packed bools, unpacked by numpy straight from the buffer (no bytes object)
            self.flush()
            self.other_reads = True
            at = self.at(self.so)
            self.emit(
                f"{v} = _frombuffer(_unpackbits(_frombuffer(b, _U8, {cap // 8}, {at}), "
                "None, None, 'little'), _BOOL)"
            )
            self.so += cap // 8
            self.run_start = self.so
            return v
        width = cap * el.bits
        if step.strategy == "bit-group" and el.kind == "b" and cap <= SMALL_BOOLS:
            self._group_open()
            g, shift = self.gvar, self.gbits
            self.gx.append(
                f"{v} = [{', '.join(f'{g} & {1 << (shift + i)} != 0' for i in range(cap))}]"
            )
            self._group_add(width)
            return v
        if step.strategy == "bit-group":
            self._group_open()
            g, shift = self.gvar, self.gbits
            raw = (
                f"(({g} >> {shift}) & {(1 << width) - 1})"
                if shift
                else f"({g} & {(1 << width) - 1})"
            )
            self.gx.extend(self._from_int(el, raw, count, v, large))
            self._group_add(width)
            if special:
                self.flush()
                self._finish_special(el, v, path, self.at(0))
            return v
        raw = self.new("r")
        self.emit(f"{raw} = {self._bits_read(width)}")
        for line in self._from_int(el, raw, count, v, large):
            self.emit(line)
        self.emit(f"p += {width}")
        if special:
            self._finish_special(el, v, path, "p >> 3")
        return v

    def _composite_fn(self, t: Composite) -> str:
        ident = self.context.ident(t)
        return f"_dd_{ident}" if not t.sealed else f"_d_{ident}"

    def composite(self, step: Step) -> str:
        t = step.type
        assert isinstance(t, Composite)
        self.align8()
        if step.strategy == "inline":
            return self.structure(t, list(step.steps))
        self.pin()
        self.other_reads = True
        v = self.new("c")
        self.emit("try:")
        if t.sealed:
            # a sealed union: its tag read here, then straight to the variant
            ident = self.context.ident(t)
            code = _INT_CODE[(t.tag_bits, False)]
            self.lines.extend(
                _tag_read(self.context, code, len(t.fields), "b", "o", "    " * (self.indent + 1))
            )
            self.emit(f"    {v}, o = _DV_{ident}[t](b, o, n)")
        else:
            self.emit(f"    {v}, o = {self._composite_fn(t)}(b, o, n)")
        self.emit("except _DecodeError as exc:")
        self.emit(f"    raise exc.under({('.' + step.path)!r}) from None")
        self.advance = -1
        return v

    def value(self, step: Step) -> str:
        t = step.type
        if t.alignment == 8:
            self.align8()
        if isinstance(t, Array):
            return self.array(step)
        if isinstance(t, Composite):
            return self.composite(step)
        return self.prim(step)

    def structure(self, t: Composite, steps: list[Step]) -> str:
        values: list[tuple[str, str]] = []
        for s in steps:
            if s.role == "padding":
                self.prim(s)
            else:
                values.append((attr(s.name), self.value(s)))
        self.align8()
        r = self.new("r")
        self.post.append(f"{r} = _new_{self.context.ident(t)}()")
        for name, v in values:
            self.post.append(f"{r}.{name} = {v}")
        return r


def _tag_read(
    context: ModuleContext, code: str, fields: int, buf: str, at: str, indent: str
) -> list[str]:
    """Lines reading a union's tag into ``t`` from ``buf`` at ``at``, rejecting a bad one."""
    read = (
        f"t = {buf}[{at}]"
        if code == "B"
        else f"t, = {context.constants.struct('<' + code)}_u({buf}, {at})"
    )
    return [
        indent + read,
        f"{indent}if t >= {fields}:",
        f"{indent}    raise _DecodeError(f'invalid union tag {{t}} (the union has {fields} fields)', {at})",
    ]
