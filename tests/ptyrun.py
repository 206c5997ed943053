"""Run a command with one of its output streams on a pseudo-terminal, as a user's shell would.

The tests of what the command line shows on a terminal (YAML instead of JSON, progress bars,
"compiling ..." lines) share this one runner; it is imported by name (pytest puts ``tests/``
on ``sys.path``).
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

__all__ = ["run"]


def run(
    cmd: Sequence[str | Path],
    *,
    terminal: Literal["stdout", "stderr"],
    env: Mapping[str, str] | None = None,
    cwd: str | Path | None = None,
    timeout: float = 300,
) -> tuple[int, str, str]:
    """``(exit code, stdout, stderr)`` of ``cmd``, with ``terminal`` on a pseudo-terminal.

    The other stream is a pipe.  The terminal is read on a thread, so neither stream can
    fill up and block the child; the terminal's ``\\r\\n`` line ends are given back as ``\\n``.
    """
    primary, secondary = os.openpty()
    chunks: list[bytes] = []

    def pump() -> None:
        while True:
            try:
                data = os.read(primary, 65536)
            except OSError:  # EIO: every writer has closed the terminal
                return
            if not data:
                return
            chunks.append(data)

    streams = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE, terminal: secondary}
    try:
        proc = subprocess.Popen(
            [str(c) for c in cmd],
            stdin=subprocess.DEVNULL,
            stdout=streams["stdout"],
            stderr=streams["stderr"],
            cwd=cwd,
            env=None if env is None else dict(env),
        )
        os.close(secondary)
        secondary = -1
        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            out, err = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
        reader.join(timeout)
    finally:
        if secondary >= 0:
            os.close(secondary)
        os.close(primary)
    shown = b"".join(chunks).decode(errors="replace").replace("\r\n", "\n")
    piped = (err if terminal == "stdout" else out) or b""
    other = piped.decode(errors="replace")
    return (
        (proc.returncode, shown, other) if terminal == "stdout" else (proc.returncode, other, shown)
    )
