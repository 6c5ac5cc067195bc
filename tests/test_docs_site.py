"""The documentation site: strict build, links, and a real headless browser (tardis_envs.docs_site)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("mkdocs")
from tardis_envs import docs_site  # noqa: E402
from tardis_envs.browser import INSTALL_BROWSER, browser  # noqa: E402

REPOSITORY = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    site_dir = tmp_path_factory.mktemp("site")
    docs_site.build(site_dir)
    return site_dir


def test_every_page_of_the_nav_is_built(site):
    nav = re.findall(r":\s*([\w/.-]+\.md)\s*$", (REPOSITORY / "mkdocs.yml").read_text(), flags=re.M)
    assert len(nav) >= 15
    for page in nav:
        built = (
            "index.html"
            if page == "index.md"
            else page.removesuffix(".md").removesuffix("README").removesuffix("index").rstrip("/") + "/index.html"
        )
        assert (site / built).is_file(), page
    # the API reference is rendered from the docstrings, the changelog from CHANGELOG.md
    reference = (site / "reference/index.html").read_text()
    assert 'id="tardis_envs.vector.VectorEnv.step"' in reference
    assert "time_of_the_daleks_v2" in (site / "changelog/index.html").read_text()


def test_a_broken_link_fails_the_strict_build(tmp_path):
    shutil.copytree(REPOSITORY / "docs", tmp_path / "docs")
    shutil.copy(REPOSITORY / "mkdocs.yml", tmp_path / "mkdocs.yml")
    shutil.copy(REPOSITORY / "CHANGELOG.md", tmp_path / "CHANGELOG.md")
    shutil.copytree(REPOSITORY / "tardis_envs", tmp_path / "tardis_envs", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(REPOSITORY / "agents", tmp_path / "agents", ignore=shutil.ignore_patterns("__pycache__", "*.zip"))
    page = tmp_path / "docs/api.md"
    page.write_text(page.read_text() + "\nSee [the lost page](no_such_page.md).\n")
    with pytest.raises(RuntimeError, match="no_such_page.md"):
        docs_site.build(tmp_path / "site", config=tmp_path / "mkdocs.yml")


def test_a_folder_that_is_not_a_built_site_is_refused_and_kept(tmp_path):
    own = tmp_path / "notes"
    own.mkdir()
    (own / "mine.txt").write_text("keep me")
    with pytest.raises(RuntimeError, match="not a built site"):
        docs_site.build(own)
    assert (own / "mine.txt").read_text() == "keep me"


def test_no_internal_link_of_the_build_is_broken(site, tmp_path):
    assert docs_site.broken_links(site) == []
    # the check itself finds one
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    (copy / "games/tardis_run_v0/index.html").write_text('<a href="../nowhere/">x</a><img src="../img/none.png">')
    assert docs_site.broken_links(copy) == [
        "games/tardis_run_v0/index.html: ../nowhere/",
        "games/tardis_run_v0/index.html: ../img/none.png",
    ]


def test_the_readme_is_short_and_its_links_resolve():
    readme = (REPOSITORY / "README.md").read_text()
    assert len(readme.splitlines()) <= 250
    links = re.findall(r"\]\(([^)#]+)\)", readme)
    local = [link for link in links if "://" not in link]
    assert local, "the README links into the documentation"
    for link in local:
        assert (REPOSITORY / link).exists(), link
    assert not re.search(r"\b[0-9a-f]{7}\b", readme.replace("0x", "")), "no commit hashes in the README"


@pytest.mark.skipif(browser() is None, reason=f"no Chromium: {INSTALL_BROWSER}")
def test_the_site_in_headless_chromium(site, tmp_path):
    assert docs_site.check_in_browser(site) == []
    screenshot = site / "screenshots" / "tardis_run_v0.png"
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and screenshot.stat().st_size > 20_000
    # a picture that does not load and a page that is gone are seen
    copy = tmp_path / "site"
    shutil.copytree(site, copy)
    (copy / "games/img/tardis_run_v0.gif").unlink()
    shutil.rmtree(copy / "games/gallifrey_duel_v1")
    problems = docs_site.check_in_browser(copy, pages=("games/tardis_run_v0/", "games/gallifrey_duel_v1/"), screenshot=None)
    assert any("tardis_run_v0.gif not loaded" in problem for problem in problems), problems
    assert any("/games/gallifrey_duel_v1/: no page heading" in problem for problem in problems), problems
    assert any("answered 404" in problem for problem in problems), problems
