"""DSDL C and C++ backends on microcontrollers: code size of serialize + deserialize,
wireplan's headers against nunavut 3.1's, for Cortex-M0 and Cortex-M4 at ``-Os``.

Run: ``python3 dev.py bench dsdl_c_size`` (needs Debian's gcc-arm-none-eabi and
libnewlib-arm-none-eabi, and nunavut 3.1's nnvg, which dev.py provides).

For every type of ``bench_dsdl_c.CASES`` and each generator, one translation unit holds two
functions with external linkage that call ``T_serialize_`` and ``T_deserialize_``; it is
compiled with ``arm-none-eabi-gcc -std=c11 -mthumb -mcpu=CPU -Os -ffunction-sections``
and the size of its code and read-only data (``.text*`` and ``.rodata*`` sections of the
object file) is the type's size: everything the two calls need, the nested types' routines
and the support code included.  The C library functions they call (``memcpy``,
``memset``, ...) are not counted; the table names them.  A size is a count of bytes, the
same on every run: no rounds, no noise.

C++: the same with ``arm-none-eabi-g++ -std=c++17 -fno-exceptions -fno-rtti`` (as firmware
builds; Debian's libstdc++-arm-none-eabi-newlib), through nunavut's C++ API
(``serialize(obj, bitspan)``, ``deserialize(obj, const_bitspan)``) on both producers' C++
headers (``nnvg ... --target-language cpp --language-standard c++17``; the CETL stand-in of
tests/dsdl/c/shim for nunavut's unions).  Inline functions land in their own ``.text.*``
sections and are counted.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_dsdl_c as speed
import report
from wireplan.dsdl.compiler.c_names import c_name, header_path
from wireplan.dsdl.compiler.cpp_names import cpp_header_path, cpp_name, cpp_namespace

CPUS = ("cortex-m0", "cortex-m4")
CC = "arm-none-eabi-gcc"
FLAGS = ["-std=c11", "-mthumb", "-Os", "-ffunction-sections", "-fdata-sections"]
FLAGS += ["-Wall", "-Wextra", "-Werror"]
CXX = "arm-none-eabi-g++"
CXX_FLAGS = [
    "-std=c++17",
    *FLAGS[1:],
    "-fno-exceptions",
    "-fno-rtti",
    "-Wno-deprecated-declarations",
]
LANGS = ("c", "cpp")


def c_type(case: speed.Case) -> tuple[str, str]:
    """The C type name and the header of a case's type (a service half: its service's)."""
    *name, major, minor = case.name.split(".")
    version = (int(major), int(minor))
    top = name[:-1] if case.service_half else name
    return c_name(".".join(name), version), header_path(".".join(top), version)


def probe_source(case: speed.Case) -> str:
    t, header = c_type(case)
    return (
        f"#include <{header}>\n"
        f"int8_t size_probe_serialize(const {t}* obj, uint8_t* buf, size_t* size);\n"
        f"int8_t size_probe_deserialize({t}* obj, const uint8_t* buf, size_t* size);\n"
        f"int8_t size_probe_serialize(const {t}* obj, uint8_t* buf, size_t* size)\n"
        f"{{ return {t}_serialize_(obj, buf, size); }}\n"
        f"int8_t size_probe_deserialize({t}* obj, const uint8_t* buf, size_t* size)\n"
        f"{{ return {t}_deserialize_(obj, buf, size); }}\n"
    )


def cpp_probe_source(case: speed.Case) -> str:
    """The C++ probe: nunavut's C++ API on a case's type (a service half: Service::Request)."""
    *name, major, minor = case.name.split(".")
    version = (int(major), int(minor))
    full = ".".join(name)
    t = "::".join([*cpp_namespace(full), cpp_name(name[-1], version)])
    header = cpp_header_path(".".join(name[:-1]) if case.service_half else full, version)
    api = "nunavut::support"
    return (
        f'#include "{header}"\n'
        f"{api}::SerializeResult size_probe_serialize(const {t}& obj, {api}::bitspan out);\n"
        f"{api}::SerializeResult size_probe_deserialize({t}& obj, {api}::const_bitspan in);\n"
        f"{api}::SerializeResult size_probe_serialize(const {t}& obj, {api}::bitspan out)\n"
        "{ return serialize(obj, out); }\n"
        f"{api}::SerializeResult size_probe_deserialize({t}& obj, {api}::const_bitspan in)\n"
        "{ return deserialize(obj, in); }\n"
    )


def object_size(obj: Path) -> tuple[int, list[str]]:
    """Bytes of code and read-only data in ``obj``, and the functions it calls outside."""
    sections = subprocess.run(
        ["arm-none-eabi-size", "-A", str(obj)], capture_output=True, text=True, check=True
    ).stdout
    total = 0
    for line in sections.splitlines():
        parts = line.split()
        if len(parts) >= 2 and parts[0].startswith((".text", ".rodata")):
            total += int(parts[1])
    undefined = subprocess.run(
        ["arm-none-eabi-nm", "-u", str(obj)], capture_output=True, text=True, check=True
    ).stdout
    calls = sorted(line.split()[-1] for line in undefined.splitlines() if line.strip())
    return total, calls


def measure(work: Path, headers: dict[str, Path], lang: str = "c") -> dict[str, Any]:
    """Per CPU: rows ``(type, nunavut bytes, wireplan bytes, ratio)`` and the library calls,
    of the C or the C++ (``lang``) headers."""
    out: dict[str, Any] = {"tables": {}, "totals": {}, "calls": {}}
    compiler, flags = (CXX, [*CXX_FLAGS, f"-I{speed.SHIM}"]) if lang == "cpp" else (CC, FLAGS)
    for cpu in CPUS:
        rows, totals = [], {g: 0 for g in headers}
        calls: dict[str, set[str]] = {g: set() for g in headers}
        for case in speed.CASES:
            sizes = {}
            for gen, folder in headers.items():
                src = work / f"{gen}-{cpu}-{c_type(case)[0]}.{lang}"
                src.write_text(cpp_probe_source(case) if lang == "cpp" else probe_source(case))
                obj = src.with_suffix(".o")
                cmd = [compiler, *flags, f"-mcpu={cpu}", f"-I{folder}", "-c", str(src),
                       "-o", str(obj)]  # fmt: skip
                done = subprocess.run(cmd, capture_output=True, text=True)
                if done.returncode:
                    raise SystemExit(f"{' '.join(cmd)} failed:\n{done.stderr[-4000:]}")
                sizes[gen], called = object_size(obj)
                totals[gen] += sizes[gen]
                calls[gen] |= set(called)
            rows.append((case.name, sizes["nunavut"], sizes["wireplan"]))
        out["tables"][cpu] = rows
        out["totals"][cpu] = totals
        out["calls"][cpu] = {g: sorted(c) for g, c in calls.items()}
    return out


def compiler_version() -> str:
    first = subprocess.run([CC, "--version"], capture_output=True, text=True).stdout
    return first.splitlines()[0] if first else CC


TABLE = "type | M0 nunavut: | M0 wireplan: | M0 x: | M4 nunavut: | M4 wireplan: | M4 x:"


def page_result(measured: dict[str, dict[str, Any]], argv: list[str]) -> dict[str, Any]:
    """The page's rows and totals per language (``c``, ``cpp``) of :func:`measure`'s results."""
    from importlib.metadata import version

    rows, totals = {}, {}
    for lang, m in measured.items():
        m0, m4 = (m["tables"][cpu] for cpu in CPUS)
        rows[lang] = [
            (f"`{n}`", a, b, f"{b / a:.2f}", c, d, f"{d / c:.2f}")
            for (n, a, b), (_, c, d) in zip(m0, m4, strict=True)
        ]
        totals[lang] = []
        for cpu in CPUS:
            t = m["totals"][cpu]
            totals[lang].append(
                f"`{cpu}` total: nunavut {t['nunavut']:,} B, wireplan {t['wireplan']:,} B "
                f"({t['wireplan'] / t['nunavut']:.2f}x)."
            )
    return {
        "command": report.command("bench_dsdl_c_size.py", argv),
        "date": report.today(),
        "compiler": compiler_version(),
        "versions": report.versions(wireplan=version("wireplan"), nunavut=nnvg_version()),
        "rows": rows,
        "totals": totals,
    }


def nnvg_version() -> str:
    """The version nnvg reports of itself (nunavut 3.1 lives in its own environment)."""
    done = subprocess.run([str(speed.nnvg_path()), "--version"], capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def render(r: dict[str, Any]) -> str:
    """The page's ``dsdl-c-size`` section."""
    parts: list[list[str]] = [
        report.head(
            "DSDL C and C++ on Cortex-M: code size against nunavut 3.1",
            r["command"],
            r["date"],
            {
                "Compiler": f"{r['compiler']} (and its g++); `-mthumb -Os -ffunction-sections`, "
                "`-std=c11`; `-std=c++17 -fno-exceptions -fno-rtti`",
                "Versions": r["versions"],
                "Method": "bytes of `.text*` and `.rodata*` of one object file calling "
                "`T_serialize_` and `T_deserialize_` (C++: `serialize` and `deserialize`), with "
                "nested types and support code, without library functions such as memcpy or "
                "soft-float helpers; `x` is wireplan / nunavut",
            },
        ),
    ]
    for lang, label in (("c", "C"), ("cpp", "C++")):
        if lang in r["rows"]:
            parts += [[f"{label} (bytes)"], report.table(TABLE, r["rows"][lang]), r["totals"][lang]]
    parts += [["Not measured: `-O2`, link-time garbage collection."]]
    return report.join(*parts)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--work", type=Path, help="keep headers and objects in this folder")
    ap.add_argument("--markdown", type=Path, metavar="FILE", help="write the section of FILE")
    args = ap.parse_args(argv)
    for tool in (CC, CXX, "arm-none-eabi-size", "arm-none-eabi-nm"):
        if shutil.which(tool) is None:
            raise SystemExit(f"{tool} not found: apt-get install gcc-arm-none-eabi "
                             "libnewlib-arm-none-eabi binutils-arm-none-eabi")  # fmt: skip
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_dsdl_c_size-"))
    work.mkdir(parents=True, exist_ok=True)
    measured = {}
    for lang in LANGS:
        spec = speed.LANGUAGES[lang]
        headers = {
            "nunavut": speed.generate_nunavut(work / f"nunavut-{lang}", spec),
            "wireplan": speed.generate_wireplan(work / f"wireplan-{lang}", spec),
        }
        measured[lang] = measure(work, headers, lang)
        for cpu, calls in measured[lang]["calls"].items():  # not counted in the sizes
            for gen, names in calls.items():
                print(f"{lang} {cpu}: {gen} calls {', '.join(names) or 'no library function'}")
    text = render(page_result(measured, sys.argv[1:] if argv is None else argv))
    print(text)
    if args.markdown:
        report.update(args.markdown, "dsdl-c-size", text)
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
