"""The generated documentation pages match the games' docstrings."""

from pathlib import Path

import pytest

import tardis_envs
from tardis_envs.docs import page

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("env_id", tardis_envs.ENV_IDS)
def test_game_page_is_up_to_date(env_id):
    path = ROOT / "docs" / "games" / f"{env_id}.md"
    assert path.exists(), f"no page for {env_id}; run: python -m tardis_envs.docs --write"
    assert path.read_text() == page(env_id), f"{path.name} is out of date; run: python -m tardis_envs.docs --write {env_id}"
    for picture in (f"img/{env_id}.png", f"img/{env_id}.gif"):
        assert (path.parent / picture).stat().st_size > 1000, picture


def test_readme_points_only_inside_the_repository():
    text = (ROOT / "README.md").read_text()
    assert "RULINGS.md" not in text and "seeds/" not in text and "../shared" not in text
