"""The pages in a real browser: Debian's headless Chromium, driven by selenium through the
system's chromedriver (no download), opens a game's and a campaign's page served from a
SQLite store, checks what it rendered and saves screenshots (a phone and a desktop).

Without the browser this fails, clearly: CI installs ``chromium`` and ``chromium-driver``
(.ci/run)."""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from aiohttp.test_utils import TestServer
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

from bot.web.app import WebPages
from tests.bot.web.conftest import ANNA, CAMPAIGN, GAME, HIDDEN

CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM = "/usr/bin/chromium"
PHONE = (412, 915)
DESKTOP = (1280, 900)


@pytest.fixture()
def browser() -> Iterator[webdriver.Chrome]:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
    assert not missing, f"install Debian's chromium and chromium-driver: {missing} missing"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _look(driver: webdriver.Chrome, url: str, shots: Path, name: str) -> dict[str, object]:
    """Open ``url`` at a phone's and a desktop's size; what the page rendered."""
    seen: dict[str, object] = {}
    for label, (width, height) in (("phone", PHONE), ("desktop", DESKTOP)):
        driver.set_window_size(width, height)
        driver.get(url)
        image = driver.find_element(By.CSS_SELECTOR, "figure img")
        seen[f"{label}-map"] = driver.execute_script(
            "return arguments[0].complete && arguments[0].naturalWidth", image
        )
        seen[f"{label}-overflow"] = driver.execute_script(
            "return document.documentElement.scrollWidth - window.innerWidth"
        )
        driver.save_screenshot(str(shots / f"{name}-{label}.png"))
    seen["text"] = driver.find_element(By.TAG_NAME, "body").text
    seen["rows"] = len(driver.find_elements(By.CSS_SELECTOR, "#standings tbody tr"))
    return seen


async def test_game_and_campaign_pages_render_in_chromium(
    store, signer, table, browser, tmp_path
) -> None:
    shots = tmp_path / "screenshots"
    shots.mkdir()
    async with TestServer(WebPages(store, signer, "en").application(), host="127.0.0.1") as server:
        base = f"http://127.0.0.1:{server.port}"
        game = base + signer.relative(signer.link("game", GAME, ANNA))
        campaign = base + signer.relative(signer.link("campaign", CAMPAIGN, ANNA))
        seen_game = await asyncio.to_thread(_look, browser, game, shots, "game")
        seen_campaign = await asyncio.to_thread(_look, browser, campaign, shots, "campaign")
    for seen in (seen_game, seen_campaign):
        assert seen["phone-map"] and int(str(seen["phone-map"])) > 0  # the picture loaded
        assert seen["desktop-map"] and int(str(seen["desktop-map"])) > 0
        assert int(str(seen["phone-overflow"])) <= 0  # nothing wider than a phone
    text = str(seen_game["text"])
    assert "View of side Allies" in text and "Sherman" in text
    assert not any(name in text for name in HIDDEN)  # the enemy's hidden units
    assert seen_campaign["rows"] == 2 and "Classement" in str(seen_campaign["text"])
    assert sorted(p.name for p in shots.iterdir()) == [
        "campaign-desktop.png",
        "campaign-phone.png",
        "game-desktop.png",
        "game-phone.png",
    ]
