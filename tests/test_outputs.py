"""Output paths: refused before the work when unusable, saved elsewhere when a late write fails."""

import os
import signal
import time
from pathlib import Path

import pytest

from tardis_envs import outputs
from tardis_envs.outputs import check_writable, unused_path, write_with_fallback


def test_a_parent_that_is_a_file_is_refused_naming_the_flag(tmp_path):
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    with pytest.raises(ValueError, match=r"^--json '.*file.txt/r.json': '.*file.txt' is a file, so no folder can be made there$"):
        check_writable(afile / "r.json", "--json")
    with pytest.raises(ValueError, match=r"^--out .* is a file, so no folder"):
        check_writable(afile / "deeper" / "folder", "--out", kind="folder")
    assert afile.read_text() == "x"


def test_a_folder_for_a_file_and_a_file_for_a_folder_are_refused(tmp_path):
    afile = tmp_path / "file.txt"
    afile.write_text("x")
    with pytest.raises(ValueError, match="--png .* is a folder; give a file name"):
        check_writable(tmp_path, "--png")
    with pytest.raises(ValueError, match="--run-dir .* is a file; give a folder"):
        check_writable(afile, "--run-dir", kind="folder")


def test_missing_folders_are_allowed_and_the_probe_leaves_nothing(tmp_path):
    assert check_writable(tmp_path / "a" / "b" / "r.json", "--json") == tmp_path / "a" / "b" / "r.json"
    assert check_writable(tmp_path / "new", "--out", kind="folder") == tmp_path / "new"
    assert list(tmp_path.iterdir()) == []  # nothing created, the probes removed


def test_a_folder_that_refuses_new_files_is_refused(tmp_path, monkeypatch):
    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(outputs.tempfile, "mkstemp", refuse)
    with pytest.raises(ValueError, match=r"^--json .*: cannot write in .* \(Permission denied\)$"):
        check_writable(tmp_path / "r.json", "--json")


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="root writes into read-only folders")
def test_a_read_only_folder_is_refused(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(ValueError, match="cannot write in"):
            check_writable(folder / "r.json", "--json")
    finally:
        folder.chmod(0o700)


def test_a_failed_write_goes_to_a_new_file_in_the_working_directory(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    Path("results.json").write_text("the user's own file")
    blocker = tmp_path / "gone"
    blocker.write_text("a file where the output folder was")  # the folder vanished during the work
    where = write_with_fallback(blocker / "results.json", lambda p: p.write_text("results"))
    assert where == tmp_path / "results-1.json" and where.read_text() == "results"
    assert Path("results.json").read_text() == "the user's own file"  # nothing existing is replaced
    assert f"saved to {str(where)!r} instead" in capsys.readouterr().err


def test_a_write_that_works_returns_its_path_and_creates_folders(tmp_path):
    where = write_with_fallback(tmp_path / "a" / "r.txt", lambda p: p.write_text("ok"))
    assert where == tmp_path / "a" / "r.txt" and where.read_text() == "ok"


def test_unused_path_numbers_past_existing_files(tmp_path):
    (tmp_path / "x.csv").write_text("")
    (tmp_path / "x-1.csv").write_text("")
    assert unused_path(tmp_path / "x.csv") == tmp_path / "x-2.csv"


def test_a_ctrl_c_during_a_write_waits_for_the_file_and_is_raised_after(tmp_path):
    """SIGINT arriving mid-write: the write finishes whole, then KeyboardInterrupt is raised and
    the Ctrl-C handler from before the write is back."""
    target = tmp_path / "checkpoint.bin"
    before = signal.getsignal(signal.SIGINT)

    def write(path):
        with open(path, "wb") as out:
            out.write(b"first half ")
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the signal is delivered here, inside the write
            out.write(b"second half")

    with pytest.raises(KeyboardInterrupt):
        write_with_fallback(target, write)
    assert target.read_bytes() == b"first half second half"
    assert signal.getsignal(signal.SIGINT) is before
    assert write_with_fallback(tmp_path / "quiet.bin", lambda p: p.write_bytes(b"x")) == tmp_path / "quiet.bin"
