"""The web app in a real browser: a game played by clicks, a replay stepped, screenshots.

``python -m tardis_envs.web.browser_check [--screenshots DIR]`` starts the app on 127.0.0.1 (a
free port; exactly that server is stopped at the end), opens it in headless Chromium
(:mod:`tardis_envs.browser`), plays a TARDIS Run game against ``random`` by clicking the
offered moves until the result shows, opens a replay file through the page's file input,
steps it to its end, and saves a screenshot of a game of each of the five games in ``DIR``
(the pictures of the documentation's web page). The test suite runs the same check.
"""

from __future__ import annotations

import argparse
import contextlib
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from .. import ENV_IDS
from ..browser import INSTALL_BROWSER, browser, headless_chromium

WAIT_SECONDS = 60  # the longest one step of the page may take (kernels compile on a first run)
SCREENSHOT_SEATS = {
    "tardis_run_v0": ["human", "heuristic"],
    "keys_to_the_tardis_v0": ["human", "heuristic"],
    "timelord_chess_v1": ["human", "heuristic"],
    "gallifrey_duel_v1": ["human", "heuristic"],
    "time_of_the_daleks_v2": ["human", "heuristic"],
}


@contextlib.contextmanager
def running_app(app) -> Iterator[str]:
    """``app`` served by uvicorn on 127.0.0.1 in a thread of this process; yields its base URL
    and stops that server (and only it) on leaving."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("the web app did not start")
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}/"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def _wait(driver, condition, what: str, seconds: float = WAIT_SECONDS):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.support.ui import WebDriverWait

    try:
        return WebDriverWait(driver, seconds, poll_frequency=0.05).until(condition)
    except TimeoutException:
        error = driver.find_element("id", "error").text
        raise AssertionError(f"the page did not show {what} within {seconds} s" + (f" (it says: {error})" if error else "")) from None


def start_game(driver, base: str, env_id: str, seats: list[str], seed: int | None = None) -> None:
    """Open the page and start ``env_id`` with ``seats`` through its form (agents move at once)."""
    from selenium.webdriver.support.ui import Select

    driver.get(base)
    _wait(driver, lambda d: d.find_elements("css selector", f"#game option[value='{env_id}']"), "the list of games")
    Select(driver.find_element("id", "game")).select_by_value(env_id)
    for select, spec in zip(driver.find_elements("css selector", "#seats .seat"), seats):
        Select(select).select_by_value(spec)
    driver.execute_script("const s = document.getElementById('speed'); s.value = 0; s.dispatchEvent(new Event('input'));")
    if seed is not None:
        driver.find_element("id", "seed").send_keys(str(seed))
    driver.find_element("id", "start").click()
    _wait(driver, lambda d: d.find_element("id", "status").text, "the game's status")


def play_by_clicks(driver, most: int = 2000) -> tuple[str, int]:
    """Click the first offered move until the game is over; returns the result line and the clicks."""
    for clicks in range(most):
        found = _wait(
            driver,
            lambda d: (
                d.find_element("id", "status").text.startswith("Game over") or d.find_elements("css selector", "#actions button.action")
            ),
            "a move to click or the result",
        )
        if found is True:
            return driver.find_element("id", "status").text, clicks
        try:
            found[0].click()
        except Exception:  # the list was redrawn between finding and clicking: look again
            continue
    raise AssertionError(f"the game did not end within {most} clicks")


def step_replay(driver, path: Path) -> tuple[str, str]:
    """Open the replay file ``path`` through the page's file input and step it to its end;
    returns the status lines at its first and last position."""
    driver.find_element("id", "upload").send_keys(str(path.resolve()))
    first = _wait(
        driver,
        lambda d: d.find_element("id", "status").text.startswith("position 0 of") and d.find_element("id", "status").text,
        "the replay's first position",
    )
    driver.find_element("id", "last").click()
    last = _wait(
        driver, lambda d: "Game over" in d.find_element("id", "status").text and d.find_element("id", "status").text, "the replay's end"
    )
    return first, last


def screenshots(driver, base: str, out: Path, most_moves: int = 12) -> list[Path]:
    """A screenshot of each game after a few moves of a human (first offered move) against an agent."""
    out.mkdir(parents=True, exist_ok=True)
    saved = []
    for env_id in ENV_IDS:
        start_game(driver, base, env_id, SCREENSHOT_SEATS[env_id], seed=7)
        for _ in range(most_moves):
            buttons = _wait(
                driver,
                lambda d: (
                    d.find_elements("css selector", "#actions button.action") or d.find_element("id", "status").text.startswith("Game over")
                ),
                "a move",
            )
            if buttons is True:
                break
            buttons[0].click()
            time.sleep(0.2)
        time.sleep(0.5)
        path = out / f"{env_id}.png"
        driver.save_screenshot(str(path))
        saved.append(path)
    return saved


def check(screenshot_dir: Path | None = None, replay: Path | None = None) -> dict:
    """The whole check (see the module's docstring); returns what it saw."""
    from . import create_app

    if browser() is None:
        raise RuntimeError(f"no Chromium here: {INSTALL_BROWSER}")
    seen: dict = {}
    with running_app(create_app()) as base, headless_chromium(window="1280,1100") as driver:
        start_game(driver, base, "tardis_run_v0", ["human", "random"], seed=11)
        seen["result"], seen["clicks"] = play_by_clicks(driver)
        if replay is not None:
            seen["replay_first"], seen["replay_last"] = step_replay(driver, replay)
        if screenshot_dir is not None:
            seen["screenshots"] = screenshots(driver, base, screenshot_dir)
    return seen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tardis_envs.web.browser_check", description=__doc__.split("\n\n")[0])
    parser.add_argument("--screenshots", type=Path, help="folder for a screenshot of each game (default: none)")
    args = parser.parse_args(argv)
    if browser() is None:
        print(f"browser check skipped: no Chromium here; {INSTALL_BROWSER}")
        return 0
    seen = check(args.screenshots)
    print(f"played TARDIS Run by {seen['clicks']} clicks: {seen['result']}")
    for path in seen.get("screenshots", []):
        print(f"screenshot: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
