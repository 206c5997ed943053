"""core.atomic.replace_folders: complete new folders moved onto their targets, all or none."""

from __future__ import annotations

from pathlib import Path

import pytest

from wireplan.core.atomic import replace_folders
from wireplan.errors import FileError


def _folder(path: Path, text: str) -> Path:
    path.mkdir(parents=True)
    (path / "a.txt").write_text(text)
    return path


@pytest.mark.parametrize("durable", [True, False])
def test_new_folders_replace_old_ones_and_create_missing_ones(
    tmp_path: Path, durable: bool
) -> None:
    out = tmp_path / "out"
    _folder(out / "one", "old one")
    new_one = _folder(tmp_path / "stage" / "one", "new one")
    new_two = _folder(tmp_path / "stage" / "two", "new two")
    replace_folders([(new_one, out / "one"), (new_two, out / "two")], durable=durable)
    assert (out / "one" / "a.txt").read_text() == "new one"
    assert (out / "two" / "a.txt").read_text() == "new two"
    assert sorted(p.name for p in out.iterdir()) == ["one", "two"]  # no .prev left behind
    assert not new_one.exists() and not new_two.exists()


def test_a_failed_move_puts_every_previous_folder_back(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _folder(out / "one", "old one")
    _folder(out / "two", "old two")
    new_one = _folder(tmp_path / "stage" / "one", "new one")
    missing = tmp_path / "stage" / "never-made"
    with pytest.raises((FileError, OSError)):
        replace_folders([(new_one, out / "one"), (missing, out / "two")], durable=False)
    assert (out / "one" / "a.txt").read_text() == "old one"
    assert (out / "two" / "a.txt").read_text() == "old two"
    assert sorted(p.name for p in out.iterdir()) == ["one", "two"]
