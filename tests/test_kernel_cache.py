"""The numba cache folder follows the kernel sources (tardis_envs/core/jit.py)."""

from __future__ import annotations

from pathlib import Path

import numba

from tardis_envs.core import jit


def _tree(root: Path, rules: str) -> list[Path]:
    (root / "game").mkdir(parents=True, exist_ok=True)
    (root / "game" / "rules.py").write_text(rules)
    (root / "game" / "batch.py").write_text("from .rules import step\n")
    return [root / "game"]


def test_an_edit_of_any_kernel_source_moves_the_cache_and_drops_the_old_one(tmp_path):
    roots = _tree(tmp_path / "src", "def step(): return 1\n")
    base = tmp_path / "cache"
    first = jit.kernel_cache_dir(base, roots)
    assert first is not None and first.parent == base
    (first / "kernel.nbi").write_text("old")
    assert jit.kernel_cache_dir(base, roots) == first  # same sources: the cache stays
    assert (first / "kernel.nbi").exists()
    # an edit of the callee alone (batch.py untouched, the case numba's own index misses)
    _tree(tmp_path / "src", "def step(): return 2\n")
    second = jit.kernel_cache_dir(base, roots)
    assert second is not None and second != first
    assert not first.exists()  # the stale kernels are gone
    assert sorted(p.name for p in base.iterdir()) == [second.name]


def test_kernels_of_another_optimisation_level_keep_a_folder_of_their_own(tmp_path):
    # numba's index does not tell optimisation levels apart: the test suite's kernels (NUMBA_OPT=1)
    # must not be loaded by a training run, nor remove its cache
    roots = _tree(tmp_path / "src", "def step(): return 1\n")
    base = tmp_path / "cache"
    full = jit.kernel_cache_dir(base, roots)
    quick = jit.kernel_cache_dir(base, roots, "1")
    assert full is not None and quick is not None
    assert quick.name == f"{full.name}-opt1" and full.is_dir()
    assert jit.kernel_cache_dir(base, roots, "0") != quick and full.is_dir() and quick.is_dir()
    (base / "my-results").mkdir()  # a folder the cache did not make is never removed
    _tree(tmp_path / "src", "def step(): return 2\n")
    edited = jit.kernel_cache_dir(base, roots, "1")
    assert edited is not None and sorted(p.name for p in base.iterdir()) == sorted(
        [edited.name, "my-results"]
    )  # every level of the old sources gone


def test_an_unwritable_cache_place_leaves_numba_its_default(tmp_path):
    roots = _tree(tmp_path / "src", "x = 1\n")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert jit.kernel_cache_dir(blocker / "cache", roots) is None


def test_this_process_caches_under_the_digest_of_its_sources():
    package = Path(jit.__file__).resolve().parents[2]
    roots = [package / name for name in jit.KERNEL_ROOTS if (package / name).is_dir()]
    level = jit.opt_level()
    suffix = "" if level == jit.DEFAULT_OPT_LEVEL else f"-opt{level}"
    assert Path(numba.config.CACHE_DIR).name == jit.sources_digest(roots) + suffix


def test_every_cached_kernel_is_defined_under_the_digested_folders():
    # a cached kernel outside KERNEL_ROOTS would keep stale code after an edit of its file
    package = Path(jit.__file__).resolve().parents[2]
    roots = [package / name for name in jit.KERNEL_ROOTS]
    cached = ("cache=True", "njit_alloc", "njit_parallel", "njit_inline", "import njit", " njit,", "jit.njit")
    outside = [
        str(path.relative_to(package))
        for top in ("tardis_envs", "agents", "benchmarks")
        for path in sorted((package / top).rglob("*.py"))
        if not any(root in path.parents for root in roots) and any(word in path.read_text() for word in cached)
    ]
    assert outside == []
    # and the check sees one: every game's rules define cached kernels
    assert all("import njit" in p.read_text() or "njit," in p.read_text() for p in (package / "tardis_envs/games").glob("*/rules.py"))


# Two processes compile different specializations of one cached function into one cache at
# the same moment; a third loads them all. Without the lock on numba's index (UNLOCKED=1 in the
# racers' environment) one run of three lost 2 of the 30 entries: the race is real but not
# every run meets it, so only the locked case is a test.
RACE = """
import os, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
from tardis_envs.core import jit
if os.environ.get("UNLOCKED"):
    from numba.core.caching import IndexDataCacheFile
    IndexDataCacheFile.save = IndexDataCacheFile.save.__wrapped__
import racer
role, start = sys.argv[2], float(sys.argv[3])
kinds = [np.int8, np.int16, np.int32, np.int64, np.float32, np.float64, np.uint8, np.uint16, np.uint32, np.uint64]
shapes = [(3,), (3, 2), (3, 2, 2)]
time.sleep(max(0.0, start - time.time()))
mine = [(k, s) for i, (k, s) in enumerate((k, s) for k in kinds for s in shapes) if role == "all" or i % 2 == int(role)]
for kind, shape in mine:
    racer.total(np.ones(shape, dtype=kind))
print(len(racer.total.stats.cache_hits), len(racer.total.stats.cache_misses))
"""


def test_processes_compiling_into_one_cache_at_once_lose_no_kernel(tmp_path):
    import os
    import subprocess
    import sys
    import time

    (tmp_path / "racer.py").write_text(
        "from tardis_envs.core.jit import njit\n\n\n@njit\ndef total(a):\n    s = 0.0\n    for x in a.flat:\n        s += x\n    return s\n"
    )
    script = tmp_path / "race.py"
    script.write_text(RACE)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    start = time.time() + 8  # both past their imports before the first compile
    racers = [
        subprocess.Popen([sys.executable, str(script), str(tmp_path), role, str(start)], env=env, stdout=subprocess.PIPE, text=True)
        for role in ("0", "1")
    ]
    for proc in racers:
        assert proc.wait(timeout=300) == 0
    out = subprocess.run([sys.executable, str(script), str(tmp_path), "all", "0"], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["30", "0"]  # every specialization loaded from the cache, none compiled again
