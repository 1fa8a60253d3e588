"""Fixtures shared by several test files."""

import pytest


@pytest.fixture(scope="session")
def browser():
    """Debian's chromium, headless, driven by selenium; its console log is kept."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from support import CHROMEDRIVER, CHROMIUM

    opts = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,2400"):
        opts.add_argument(arg)
    opts.binary_location = CHROMIUM
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    from selenium.common.exceptions import SessionNotCreatedException

    try:
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    except SessionNotCreatedException:
        # Chromium has once exited while starting on a loaded CI machine: one more try
        driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    yield driver
    driver.quit()


def pytest_configure(config):
    """Every run in the tests checks its invariants (tcplab.run's `check`), sweep workers
    included: they inherit the environment."""
    import os

    os.environ["TCPLAB_CHECK"] = "1"
