"""The documentation site: its strict build and its check in a real browser.

``python -m tardis_envs.docs_site`` (``make docs``) builds the site described by
``mkdocs.yml`` at the repository root (MkDocs with mkdocs-material and mkdocstrings, sources
under ``docs/``) into ``site/`` with ``--strict``, so that any warning (a broken link, a page
missing from the build, a docstring mkdocstrings cannot read) fails it, then checks the
build:

- every internal ``href`` and ``src`` of every page resolves to a file of the build;
- in headless Chromium (Debian's ``chromium`` and ``chromium-driver``, driven by selenium)
  the index and every game page load from a server on 127.0.0.1 with every picture and
  animation decoded and no request answered with an error, and a game page's screenshot is
  kept in the build as ``screenshots/<env_id>.png``.

Without Chromium the browser check is skipped with a line saying how to install it. This
module needs the ``docs`` extra; nothing in the package imports it.
"""

from __future__ import annotations

import argparse
import functools
import os
import subprocess
import sys
import threading
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

from . import ENV_IDS
from .browser import INSTALL_BROWSER, browser, headless_chromium

REPOSITORY = Path(__file__).resolve().parents[1]
GAME_PAGES = tuple(f"games/{env_id}/" for env_id in ENV_IDS)
SCREENSHOT_PAGE = GAME_PAGES[0]
PAGE_SECONDS = 15  # the longest a page may take to show its heading and decode its pictures


def build(site_dir: Path, config: Path = REPOSITORY / "mkdocs.yml") -> None:
    """Build the site into ``site_dir`` with ``mkdocs build --strict``; a ``RuntimeError``
    carrying MkDocs' warnings when it fails. (Not ``--quiet``: MkDocs then drops the
    warnings before strict mode counts them, and a broken link passes.)"""
    # MkDocs empties the site folder before it builds: only an earlier build of a site (its
    # sitemap.xml) or an empty or new folder may be used, never a folder of the user's
    site_dir = Path(site_dir)
    if site_dir.exists() and (not site_dir.is_dir() or (any(site_dir.iterdir()) and not (site_dir / "sitemap.xml").is_file())):
        raise RuntimeError(f"{site_dir} holds something that is not a built site: give a new or empty folder (nothing was deleted)")
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site_dir)],
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    if done.returncode != 0:
        problems = [line for line in (done.stdout + done.stderr).splitlines() if "WARNING" in line or "Error" in line]
        raise RuntimeError("the site does not build strictly: " + ("; ".join(problems) or done.stderr.strip()[-2000:]))


class _References(HTMLParser):
    """The ``href``/``src`` values of a page's links, pictures, styles and scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (name, tag) in {("href", "a"), ("href", "link"), ("src", "img"), ("src", "script")}:
                self.found.append(value)


def broken_links(site_dir: Path) -> list[str]:
    """``"<page>: <reference>"`` for every internal reference of a built page that names no
    file of the build (external addresses and same-page anchors are not followed)."""
    broken = []
    for page in sorted(site_dir.rglob("*.html")):
        parser = _References()
        parser.feed(page.read_text(encoding="utf-8"))
        for reference in parser.found:
            parts = urlsplit(reference)
            if parts.scheme or parts.netloc or not parts.path:
                continue
            path = unquote(parts.path)
            # the 404 page names the others from the site's root
            target = (site_dir / path.lstrip("/") if path.startswith("/") else page.parent / path).resolve()
            if reference.endswith("/") or target.is_dir():
                target = target / "index.html"
            if not target.is_file() or site_dir.resolve() not in target.parents:
                broken.append(f"{page.relative_to(site_dir)}: {reference}")
    return broken


class _Server(ThreadingHTTPServer):
    """The build served on 127.0.0.1 (a free port), recording requests answered >= 400."""

    def __init__(self, site_dir: Path) -> None:
        self.failed: list[str] = []
        server = self

        class Handler(SimpleHTTPRequestHandler):
            def log_request(self, code="-", size="-"):  # noqa: ANN001 - http.server's signature
                if str(code).isdigit() and int(code) >= 400:
                    server.failed.append(f"{self.path} answered {code}")

            def log_message(self, format, *args):  # noqa: A002, ANN001 - quiet
                pass

        super().__init__(("127.0.0.1", 0), functools.partial(Handler, directory=str(site_dir)))


_BROKEN_IMAGES = """
return Array.from(document.images)
  .filter(image => !image.complete || image.naturalWidth === 0)
  .map(image => image.getAttribute('src'));
"""


def check_in_browser(site_dir: Path, pages: tuple[str, ...] = ("",) + GAME_PAGES, screenshot: str | None = SCREENSHOT_PAGE) -> list[str]:
    """Problems seen loading ``pages`` of the build in headless Chromium: a page without
    its heading, a picture or animation not decoded, a request answered with an error.
    Keeps ``screenshots/<env id>.png`` of the ``screenshot`` page in the build. Needs
    :func:`tardis_envs.browser.browser`."""
    if browser() is None:
        raise RuntimeError(f"no Chromium here: {INSTALL_BROWSER}")
    server = _Server(site_dir)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    problems: list[str] = []
    try:
        with headless_chromium() as driver:
            base = f"http://127.0.0.1:{server.server_address[1]}/"
            for page in pages:
                problems += _page_problems(driver, base, page)
                if page == screenshot:
                    shots = site_dir / "screenshots"
                    shots.mkdir(exist_ok=True)
                    driver.save_screenshot(str(shots / (page.strip("/").split("/")[-1] + ".png")))
    finally:
        server.shutdown()
        server.server_close()
    problems.extend(f"request {failure}" for failure in server.failed)
    return problems


def _page_problems(driver, base: str, page: str) -> list[str]:
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    problems = []
    driver.get(base + page)
    # a busy machine can finish rendering after the load event: wait (bounded) for the
    # heading and for every picture to be decoded before judging the page
    try:
        WebDriverWait(driver, PAGE_SECONDS).until(lambda d: d.find_elements(By.CSS_SELECTOR, "article h1"))
    except TimeoutException:
        problems.append(f"/{page}: no page heading (the page did not load)")
    try:
        WebDriverWait(driver, PAGE_SECONDS).until(lambda d: not d.execute_script(_BROKEN_IMAGES))
    except TimeoutException:
        pass
    return problems + [f"/{page}: picture {image} not loaded" for image in driver.execute_script(_BROKEN_IMAGES)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tardis_envs.docs_site", description=__doc__.split("\n\n")[0])
    parser.add_argument("--site-dir", type=Path, default=REPOSITORY / "site", help="where the site is built (default site/)")
    parser.add_argument("--no-browser", action="store_true", help="leave out the check in headless Chromium")
    args = parser.parse_args(argv)
    try:
        build(args.site_dir)
    except RuntimeError as error:
        print(error, file=sys.stderr)
        return 1
    print(f"built {args.site_dir} (mkdocs build --strict)")
    problems = [f"broken link {link}" for link in broken_links(args.site_dir)]
    if args.no_browser:
        print("browser check left out (--no-browser)")
    elif browser() is None:
        print(f"browser check skipped: no Chromium here; {INSTALL_BROWSER}")
    else:
        problems += check_in_browser(args.site_dir)
        if not problems:
            print(f"checked in headless Chromium: the index and {len(GAME_PAGES)} game pages; screenshot {args.site_dir / 'screenshots'}")
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
