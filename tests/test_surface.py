"""The three wings read alike: the same verbs for the same acts, the same keyword and flag
names for the same options, every public name on its wing's page, and docs a newcomer reads
in one sitting (issue 22)."""

from __future__ import annotations

import argparse
import importlib
import inspect
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# 15,000 until issue 23 added DSDL's C++ backend (docs/dsdl-c.md, 2 tables); counted without
# table bars and rules since issue 24's per-model tables (then 18,400 tokens, 14,700 words)
WORD_BUDGET = 16_000

# Each wing's public module and the page that documents it.
PAGES = {
    "wireplan.evalue": "docs/evalue.md",
    "wireplan.evalue.torch": "docs/evalue.md",
    "wireplan.dsdl": "docs/dsdl.md",
    "wireplan.ort": "docs/ort.md",
    "wireplan.core": "docs/architecture.md",
    "wireplan": "README.md",
}

# The same act has the same name in every wing that does it.
VERBS = {
    "encode": ("wireplan.evalue", "wireplan.dsdl", "wireplan.ort"),  # a value to bytes
    "decode": ("wireplan.evalue", "wireplan.dsdl", "wireplan.ort"),  # bytes to a value
    "load": ("wireplan.dsdl", "wireplan.ort"),  # from files
    "save": ("wireplan.ort",),  # to a file
    "convert": ("wireplan.ort",),  # a file to a file of another form
    "compile": ("wireplan.dsdl",),  # definitions to code
}
# Spellings of those acts (and options) that a wing must not use for them.
OTHER_SPELLINGS = {
    "dumps",
    "loads",
    "pack",
    "unpack",
    "write_file",
    "read_file",
    "num_threads",
    "n_threads",
    "workers",
    "jobs",
    "fsync",
    "sync",
    "align",
    "aligned",
    "max_depth",
}
# One meaning, one name, one default: what each shared keyword is wherever it appears.
KEYWORDS = {
    "threads": ("int | None", None),  # None: as many as pay off; 1: serial
    "durable": ("bool", True),  # fsync before and after the rename
    "alignment": ("int", None),  # a power of two; each writer has its own default
    "progress": ("Progress | None", None),
    "limits": ("Limits", None),
}


def _words(path: Path) -> int:
    """Words: what a reader reads, letters or digits (a table's rules and bars are not)."""
    return sum(1 for token in path.read_text().split() if re.search(r"\w", token))


def test_docs_are_read_in_one_sitting() -> None:
    counts = {p.relative_to(ROOT).as_posix(): _words(p) for p in DOCS}
    total = sum(counts.values())
    assert total < WORD_BUDGET, f"docs hold {total} words (budget {WORD_BUDGET}): {counts}"


def test_one_page_per_wing() -> None:
    for page in set(PAGES.values()):
        assert (ROOT / page).is_file(), page


def _public(module: str) -> Iterator[tuple[str, Any]]:
    mod = importlib.import_module(module)
    for name in mod.__all__:
        yield name, getattr(mod, name)


@pytest.mark.parametrize("module", sorted(PAGES))
def test_every_public_name_is_on_its_page(module: str) -> None:
    text = (ROOT / PAGES[module]).read_text()
    missing = [
        name
        for name, value in _public(module)
        if not isinstance(value, type(importlib))  # subpackages: their own pages
        and not re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text)
    ]
    assert not missing, f"{module}: not on {PAGES[module]}: {missing}"


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_the_same_verb_for_the_same_act(verb: str) -> None:
    for module in VERBS[verb]:
        assert callable(getattr(importlib.import_module(module), verb, None)), f"{module}.{verb}"


WINGS = ("wireplan.evalue", "wireplan.evalue.torch", "wireplan.dsdl", "wireplan.ort")


def _callables() -> Iterator[tuple[str, Callable[..., Any]]]:
    """The wings' public functions and classes (the core's primitives have their own words:
    its ``progress`` counts bytes as they are copied, for the wings' ``progress(done, total)``)."""
    for module in WINGS:
        for name, value in _public(module):
            if callable(value) and not (isinstance(value, type) and issubclass(value, Exception)):
                yield f"{module}.{name}", value


def test_no_other_spelling_of_a_shared_verb_or_option() -> None:
    wrong = []
    for where, fn in _callables():
        if where.rsplit(".", 1)[1] in OTHER_SPELLINGS:
            wrong.append(where)
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        wrong += [f"{where}({p})" for p in params if p in OTHER_SPELLINGS]
    assert not wrong, f"spelled otherwise than the other wings: {wrong}"


def test_shared_keywords_mean_the_same() -> None:
    """`threads`, `durable`, ... are keyword-only, typed and defaulted alike in every wing."""
    wrong = []
    seen: dict[str, list[str]] = {k: [] for k in KEYWORDS}
    for where, fn in _callables():
        try:
            params = inspect.signature(fn).parameters
        except (TypeError, ValueError):
            continue
        for name, (annotation, default) in KEYWORDS.items():
            p = params.get(name)
            if p is None:
                continue
            seen[name].append(where)
            if p.kind is not inspect.Parameter.KEYWORD_ONLY:
                wrong.append(f"{where}: {name} is not keyword-only")
            if str(p.annotation) != annotation:
                wrong.append(f"{where}: {name}: {p.annotation} (elsewhere {annotation})")
            if default is not None and p.default != default:
                wrong.append(f"{where}: {name}={p.default!r} (elsewhere {default!r})")
    assert not wrong, "\n".join(wrong)
    assert seen["durable"] and seen["threads"]


def _commands() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    from wireplan import cli

    todo = [("wireplan", cli.build_parser())]
    while todo:
        name, parser = todo.pop()
        yield name, parser
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo += [(f"{name} {sub}", p) for sub, p in action.choices.items()]


def _flags(parser: argparse.ArgumentParser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings}


def test_each_wing_has_a_command_group_with_the_shared_verbs() -> None:
    commands = dict(_commands())
    for group, verbs in {
        "evalue": ("encode", "decode", "inspect"),
        "dsdl": ("compile", "layout", "encode", "decode"),
        "ort": ("convert", "inspect", "operators"),
    }.items():
        for verb in verbs:
            assert f"wireplan {group} {verb}" in commands, f"wireplan {group} {verb}"


def test_the_same_flag_for_the_same_option() -> None:
    """A command that writes a file takes -o/--output (unless the path is positional) and
    --no-fsync; threads are --threads; lookups are --lookup; no other spelling anywhere."""
    wrong = []
    for name, parser in _commands():
        flags = _flags(parser)
        for flag in flags:
            if flag.lstrip("-").replace("-", "_") in OTHER_SPELLINGS:
                wrong.append(f"{name}: {flag}")
        if ("--output" in flags or name.endswith("convert")) and "--no-fsync" not in flags:
            wrong.append(f"{name}: writes a file but has no --no-fsync")
        if "--output" in flags and "-o" not in flags:
            wrong.append(f"{name}: --output without -o")
    assert not wrong, "\n".join(wrong)


def test_the_architecture_page_names_every_module() -> None:
    """docs/architecture.md is the map: each module of src/wireplan is on it by its file name."""
    text = (ROOT / "docs/architecture.md").read_text()
    src = ROOT / "src" / "wireplan"
    missing = [
        path.relative_to(src).as_posix()
        for path in sorted(src.rglob("*.py"))
        if path.name != "__init__.py" and not re.search(rf"(?<![\w.]){re.escape(path.name)}", text)
    ]
    assert not missing, f"modules that docs/architecture.md does not name: {missing}"


MODULE_LINES = 600


def test_long_modules_are_one_concern() -> None:
    """A module of more than about 600 lines says in its first line that it is one concern."""
    src = ROOT / "src" / "wireplan"
    long = []
    for path in sorted(src.rglob("*.py")):
        lines = path.read_text().splitlines()
        if len(lines) > MODULE_LINES and "one concern" not in lines[0]:
            long.append(f"{path.relative_to(src).as_posix()} ({len(lines)} lines)")
    assert not long, f"split these by concern, or say which one they are: {long}"
