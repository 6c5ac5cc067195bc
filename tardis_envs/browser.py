"""Headless Chromium for the checks that need a real browser (the docs site, the web app).

Debian's ``chromium`` and ``chromium-driver`` driven by selenium (the ``docs`` extra). Where
either is missing, :func:`browser` is None and the checks say they were skipped and how to
install them (:data:`INSTALL_BROWSER`).
"""

from __future__ import annotations

import contextlib
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

INSTALL_BROWSER = "install Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)"


def browser() -> tuple[str, str] | None:
    """Paths of Chromium and its ChromeDriver, or None where either is missing."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or ("/usr/bin/chromedriver" if Path("/usr/bin/chromedriver").is_file() else None)
    return (chromium, driver) if chromium and driver else None


@contextlib.contextmanager
def headless_chromium(window: str = "1280,1600") -> Iterator[Any]:
    """A selenium driver of headless Chromium in a fresh profile of its own, quit (and the
    profile removed) on leaving; it never reaches the network (no background updates, no sync)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    found = browser()
    if found is None:
        raise RuntimeError(f"no Chromium here: {INSTALL_BROWSER}")
    chromium, driver_path = found
    profile = tempfile.mkdtemp(prefix="tardis-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--window-size={window}",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)  # the profile this function made
