"""The errors a page logs (console errors and uncaught exceptions), for tests that assert none.

Three errors are not counted, each someone else's and matched narrowly:
- JupyterLab's debugger extension logs "Could not restore the debugger state" when a kernel
  restarts while it asks the kernel for its debug state, a race inside JupyterLab that no
  extension causes or can prevent.
- Notebook 7 (7.6.5) throws "Cannot read properties of undefined (reading 'schema')" as a
  notebook page loads (its keyboard shortcuts plugin's pluginChanged handler reads a plugin it
  was not given). It is Notebook 7's own: loading a notebook page in Chromium, it was thrown
  alike with every extension enabled, with jupyter-plans disabled (its labextension in the
  page config's disabledExtensions, its server extension off), and with every third-party
  labextension disabled (jupyter-plans, Jupyter AI's, the chat's, ipywidgets', anywidget,
  jupyterlab_pygments), its first frame in notebook_core each time. It is not counted only
  when the stack's first frame is in Notebook 7's own bundle, so the same words thrown by our
  code still fail.
"""

from __future__ import annotations

import re

NOT_OURS = (re.compile(r"^Could not restore the debugger state"),)
#  (message, where its first frame must be, or None) of uncaught errors that are not ours.
NOT_OURS_UNCAUGHT = (
    (
        re.compile(r"^Cannot read properties of undefined \(reading 'schema'\)$"),
        re.compile(r"/static/notebook/notebook_core\.[0-9a-f]+\.js"),
    ),
    (
        re.compile(
            r"^(Error: )?Canceled future for create_subshell_request message before replies "
            r"were done$"
        ),
        None,
    ),
)


class PageErrors:
    def __init__(self, page) -> None:
        self.seen: list[str] = []
        #  URL parts whose failed loads a test caused on purpose (a route made to answer 404).
        self.expected_urls: list[str] = []
        page.on("console", self._console)
        page.on("pageerror", self._uncaught)

    def _uncaught(self, error) -> None:
        # The stack's first frames say whose code threw (ours, JupyterLab's, Lumino's).
        frames = [line.strip() for line in (error.stack or "").splitlines()[1:6]]
        for message, where in NOT_OURS_UNCAUGHT:
            if message.search(error.message) and (
                where is None or (frames and where.search(frames[0]))
            ):
                return
        self.seen.append(f"uncaught: {error.message}" + "".join(f"\n    {f}" for f in frames))

    def _console(self, message) -> None:
        if message.type != "error":
            return
        url = (message.location or {}).get("url", "")
        text = message.text
        if any(pattern.search(text) for pattern in NOT_OURS):
            return
        if any(part in url or part in text for part in self.expected_urls):
            return
        self.seen.append(f"console: {text} ({url})")

    def expect_failures_of(self, url_part: str) -> None:
        self.expected_urls.append(url_part)

    def assert_none(self) -> None:
        assert self.seen == [], "the page logged errors:\n" + "\n".join(self.seen)
