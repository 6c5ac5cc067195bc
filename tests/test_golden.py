"""Every ply of a fixed-seed game equals the stored golden playthrough."""

import pytest

from .golden.playthrough import path_of, playthrough


def test_golden_playthrough(env_id):
    path = path_of(env_id)
    if not path.exists():
        pytest.fail(f"no golden playthrough for {env_id}; run: python -m tests.golden.playthrough --update")
    expected = path.read_text().splitlines()
    got = playthrough(env_id)
    for ply, (want, have) in enumerate(zip(expected, got)):
        assert have == want, f"ply {ply} differs from {path.name}"
    assert len(got) == len(expected)
