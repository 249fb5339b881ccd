"""Headless Chromium through Selenium, pointed at Debian's ``chromium`` and ``chromedriver`` (no browser or
driver is downloaded: Selenium Manager is not used). :func:`chrome` skips the test, with the reason, when
selenium, the browser or the driver is missing."""
import os
import shutil
import tempfile

import pytest

CANDIDATES = {"browser": ("chromium", "chromium-browser", "/usr/bin/chromium"),
              "driver": ("chromedriver", "/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver")}


def _find(kind: str):
    for name in CANDIDATES[kind]:
        path = shutil.which(name) or (name if os.path.isabs(name) and os.access(name, os.X_OK) else None)
        if path:
            return path
    return None


def chrome(width: int = 1400, height: int = 1000):
    """A headless Chromium WebDriver whose console messages ``get_log('browser')`` returns; or skip.

    Chromium leaves a folder of its own in the temporary directory on every start (its profile and a
    ``org.chromium.Chromium.*`` lock folder, kept after ``quit()``): both go into a folder made here, which
    the driver's ``quit()`` removes, so a run of the tests leaves nothing behind in ``/tmp``."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        pytest.skip("selenium is not installed (it is in the test extra: pip install '.[test]')")
    browser, driver = _find("browser"), _find("driver")
    if browser is None or driver is None:
        pytest.skip("chromium and chromedriver are not installed (Debian: apt-get install chromium chromium-driver)")
    os.environ.setdefault("SE_OFFLINE", "true")           # Selenium Manager must never download anything
    options = Options()
    options.binary_location = browser
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--allow-file-access-from-files"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    scratch = tempfile.mkdtemp(prefix="ir_rbstar_chromium_")
    options.add_argument(f"--user-data-dir={os.path.join(scratch, 'profile')}")
    service = Service(executable_path=driver, env=dict(os.environ, TMPDIR=scratch))
    try:
        session = webdriver.Chrome(service=service, options=options)
    except BaseException:
        shutil.rmtree(scratch, ignore_errors=True)
        raise
    quit_session = session.quit

    def quit_and_clean() -> None:
        try:
            quit_session()
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
    session.quit = quit_and_clean
    return session


def console_errors(driver) -> list:
    """The console messages of level SEVERE (errors) since the last call."""
    return [entry for entry in driver.get_log("browser") if entry.get("level") == "SEVERE"]
