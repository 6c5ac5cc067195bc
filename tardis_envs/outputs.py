"""Output paths that never lose results: check them before the work, fall back after it.

The command line's verbs write their results (``eval --out/--json``, ``train --run-dir``,
``bench --json/--png``) only after minutes or hours of work. :func:`check_writable` refuses a
path that cannot be written before that work starts, in one line that names the flag;
:func:`write_with_fallback` writes afterwards and, should the write still fail (a disk filled
up, a folder removed meanwhile), saves to a new file in the working directory and says where.
A Ctrl-C during such a write waits for the write to finish (:func:`ctrl_c_deferred`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

__all__ = ["check_writable", "ctrl_c_deferred", "unused_path", "write_with_fallback"]


def _nearest_existing(path: Path) -> Path:
    """``path`` itself or its closest ancestor that exists (the folder a write would start from)."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _probe(folder: Path) -> str | None:
    """Create and remove a probe file in ``folder``; the OS's reason if that fails."""
    try:
        fd, name = tempfile.mkstemp(prefix=".tardis-envs-probe-", dir=folder)
    except OSError as exc:
        return exc.strerror or str(exc)
    os.close(fd)
    os.unlink(name)  # only the probe this function created
    return None


def check_writable(path: str | Path, flag: str, kind: str = "file") -> Path:
    """Refuse an output ``path`` that cannot be written, before any work is done.

    ``kind`` is ``"file"`` (an output file: it must not be a folder) or ``"folder"`` (an output
    folder: it must not be a file). Missing folders on the way are allowed (the write creates
    them) when the nearest existing one is a folder that accepts a new file, which is checked
    by creating and removing a probe file there. Raises ``ValueError`` with a one-line message
    naming ``flag``; returns ``path`` as a ``Path``.
    """
    if kind not in ("file", "folder"):
        raise ValueError(f"check_writable: kind must be 'file' or 'folder', got {kind!r}")
    target = Path(path)
    shown = f"{flag} {str(path)!r}"
    if kind == "file" and target.is_dir():
        raise ValueError(f"{shown} is a folder; give a file name, e.g. {str(target / 'results.json')!r}")
    if kind == "folder" and target.exists() and not target.is_dir():
        raise ValueError(f"{shown} is a file; give a folder")
    base = _nearest_existing(target if kind == "folder" else target.parent)
    if not base.is_dir():
        raise ValueError(f"{shown}: {str(base)!r} is a file, so no folder can be made there")
    reason = _probe(base)
    if reason is not None:
        raise ValueError(f"{shown}: cannot write in {str(base)!r} ({reason})")
    if kind == "file" and target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{shown}: the file exists and is not writable")
    return target


def unused_path(path: str | Path) -> Path:
    """``path`` if nothing is there, else ``<stem>-1<suffix>``, ``<stem>-2<suffix>``, ... (never an existing file)."""
    path = Path(path)
    k = 0
    candidate = path
    while candidate.exists():
        k += 1
        candidate = path.with_name(f"{path.stem}-{k}{path.suffix}")
    return candidate


def claim_folder(path: str | Path) -> Path:
    """Create a new folder at ``path``, or at :func:`unused_path`'s ``<name>-1``, ``<name>-2``, ...
    and return the one created. Creating it is what claims it, so two processes never get the
    same folder: two evaluations started in the same second once picked one timestamped folder
    each, found it free, and the second wrote its results over the first's."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    while True:
        candidate = unused_path(path)
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:  # taken between the look and the mkdir: look again
            continue


@contextlib.contextmanager
def ctrl_c_deferred() -> Iterator[None]:
    """Holds a Ctrl-C (SIGINT) back until the block ends, then raises it as ``KeyboardInterrupt``.
    A training run's Ctrl-C saves a checkpoint; one that arrived while a checkpoint was being
    written broke torch's zip writer, which raised an error of its own instead, and the run ended
    with a traceback and no interrupted checkpoint. Outside the main thread (where Python
    receives no signals) the block runs as it is."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pressed: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: pressed.append(signum))
    try:
        yield
    finally:
        # None: the handler was not set from Python (LLVM's, see agents.tournament.rearm_ctrl_c)
        signal.signal(signal.SIGINT, signal.default_int_handler if previous is None else previous)
    if pressed:
        raise KeyboardInterrupt


def write_with_fallback(path: str | Path, write: Callable[[Path], object], fallback_name: str | None = None) -> Path:
    """Call ``write(path)`` (creating missing folders first); returns where the file went.

    When that raises ``OSError``, the results are not lost: ``write`` runs again on a new file in
    the working directory (``./<fallback_name or the file's name>``, numbered so that no existing
    file is replaced; the temporary folder if the working directory refuses too), and a line on
    stderr says where. Only if every place refuses does a ``ValueError`` name the path and the reason.
    A Ctrl-C meanwhile is raised once the file is written.
    """
    with ctrl_c_deferred():
        return _write_with_fallback(Path(path), write, fallback_name)


def _write_with_fallback(path: Path, write: Callable[[Path], object], fallback_name: str | None) -> Path:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write(path)
        return path
    except OSError as exc:
        reason = exc.strerror or str(exc)
    name = fallback_name or path.name
    for folder in (Path.cwd(), Path(tempfile.gettempdir())):
        fallback = unused_path(folder / name)
        try:
            write(fallback)
        except OSError:
            continue
        print(f"could not write {str(path)!r} ({reason}); saved to {str(fallback)!r} instead", file=sys.stderr, flush=True)
        return fallback
    raise ValueError(f"could not write {str(path)!r} ({reason}), nor a fallback copy in the working or temporary folder")
