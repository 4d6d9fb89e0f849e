"""Screenshots of the demo page in light and dark (to look at, not for docs/), plus the
hostile-text check.

Run from labextension/ after `jlpm build:demo`:
    ../.venv/bin/python demo/screenshots.py
Uses Debian's Chromium (/usr/bin/chromium); never downloads a browser.
"""

import functools
import http.server
import pathlib
import sys
import tempfile
import threading

from playwright.sync_api import sync_playwright

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
from tests.e2e.browser import ARGS  # noqa: E402 (Chromium as the browser tests start it)

HOSTILE = "<img src=x onerror=alert(1)>"
# Views for a closer look. The pictures of docs/ are made by `make screenshots`, in JupyterLab.
EXTRA = pathlib.Path(tempfile.gettempdir()) / "jp-plans-screenshots"


def serve(directory: pathlib.Path = HERE) -> http.server.ThreadingHTTPServer:
    """Module scripts do not load from file:// in Chromium; serve the folder on loopback."""
    handler = functools.partial(QuietHandler, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


def main() -> int:
    server = serve()
    url = f"http://127.0.0.1:{server.server_address[1]}/index.html"
    EXTRA.mkdir(exist_ok=True)
    failures = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=ARGS)
        page = browser.new_page(viewport={"width": 960, "height": 900}, device_scale_factor=1)
        dialogs = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        console_errors = []
        page.on("pageerror", lambda error: console_errors.append(str(error)))

        for theme in ("light", "dark"):
            page.goto(f"{url}?theme={theme}")
            page.wait_for_selector("#waiting .jp-plans-card")
            page.locator("#cards").screenshot(path=str(EXTRA / f"card-{theme}.png"))
            page.locator("#waiting").screenshot(path=str(EXTRA / f"card-{theme}-waiting.png"))

        page.goto(f"{url}?hostile&static")
        page.wait_for_selector("#hostile .jp-plans-card")
        page.wait_for_timeout(300)
        card = page.locator("#hostile .jp-plans-card")
        row = card.locator('[data-step-id="xss"] .jp-plans-step-desc')
        if row.inner_text() != HOSTILE:
            failures.append(f"hostile description shown as {row.inner_text()!r}")
        if card.locator("img, script, b, i").count():
            failures.append("hostile text became elements")
        if HOSTILE not in card.inner_text():
            failures.append("hostile text missing from the card")
        if dialogs:
            failures.append(f"dialogs fired: {dialogs}")
        if page.locator("#static .jp-plans-card button:has-text('Approve')").count():
            failures.append("a static card shows an Approve button")
        page.locator("#hostile .jp-plans-card").screenshot(path=str(EXTRA / "card-hostile.png"))
        if console_errors:
            failures.append(f"page errors: {console_errors}")
        browser.close()
    server.shutdown()
    for failure in failures:
        print("FAIL", failure)
    print(f"screenshots in {EXTRA}")
    print("ok" if not failures else f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
