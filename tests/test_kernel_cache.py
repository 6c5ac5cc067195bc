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


def test_an_unwritable_cache_place_leaves_numba_its_default(tmp_path):
    roots = _tree(tmp_path / "src", "x = 1\n")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert jit.kernel_cache_dir(blocker / "cache", roots) is None


def test_this_process_caches_under_the_digest_of_its_sources():
    package = Path(jit.__file__).resolve().parents[2]
    roots = [package / name for name in jit.KERNEL_ROOTS if (package / name).is_dir()]
    assert Path(numba.config.CACHE_DIR).name == jit.sources_digest(roots)


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
