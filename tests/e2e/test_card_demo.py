"""The card on its demo page (labextension/demo, built with `jlpm build:demo`), driven the way a
person would in real Chromium, with the kernel's side pretended by the page: what each button
sends, that a re-render keeps a half-typed note, an open section and the editor's draft, the
saved card's lack of actions, the card's words, and the built anywidget module's render, sends
and cleanup against a stand-in model."""

from __future__ import annotations

import functools
import http.server
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.browser import require_chromium

REPO = Path(__file__).resolve().parents[2]
LABEXTENSION = REPO / "labextension"


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):  # noqa: A002 - the base class's name
        pass


@pytest.fixture(scope="module")
def demo_url():
    """The demo page, built from the card's sources and served with the package's built widget
    (module scripts do not load from file:// in Chromium)."""
    require_chromium()
    if not (LABEXTENSION / "node_modules" / ".bin" / "esbuild").exists():
        pytest.fail("labextension/node_modules is missing: the package's install builds it")
    jlpm = Path(sys.executable).with_name("jlpm")
    subprocess.run([str(jlpm), "build:demo"], cwd=LABEXTENSION, check=True, capture_output=True)
    handler = functools.partial(_Quiet, directory=str(REPO))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/labextension/demo/index.html"
    server.shutdown()


@pytest.fixture
def demo(browser, demo_url):
    """A fresh page, and the demo's URL; the page throws no error meanwhile."""
    page = browser.new_page(viewport={"width": 960, "height": 900})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    yield page, demo_url
    page.close()
    assert errors == []


FULL_HASH = "3f9a1c2e5b7d40a8c6e1f2b3a4d5c6e7f8091a2b3c4d5e6f708192a3b4c5d6e7"
NEXT_HASH = "b" * 64


def sent(page):
    return page.evaluate("window.demoLog")


def bump(page, cell="waiting"):
    """An unrelated re-render: the kernel pushes a snapshot with a new cursor."""
    page.evaluate(f"demoUpdate({cell!r}, d => {{ d.snapshot.cursor += 1 }})")


def test_revise(demo):
    page, url = demo
    page.goto(url)
    card = page.locator("#waiting .jp-plans-card")
    toggle = card.get_by_role("button", name="Request changes…")
    expect(toggle).to_have_attribute("aria-expanded", "false")
    toggle.click()
    note = card.locator("textarea")
    expect(note).to_be_focused()
    send = card.get_by_role("button", name="Send")
    expect(send).to_be_disabled()
    note.type("Split by week, not ")
    expect(send).to_be_enabled()
    bump(page)
    # The half-typed note, the open form, focus and caret all survive the re-render.
    expect(note).to_have_value("Split by week, not ")
    expect(note).to_be_focused()
    note.type("month")
    expect(note).to_have_value("Split by week, not month")
    note.fill("   ")
    expect(send).to_be_disabled()
    note.fill("Split by week, not month")
    send.click()
    expect(card.get_by_role("button", name="Sending…")).to_be_disabled()
    assert sent(page)[-1] == {"action": "revise", "notes": "Split by week, not month"}, sent(page)
    expect(card.locator(".jp-plans-banner-researching")).to_be_visible()
    expect(card.locator("textarea")).to_have_count(0)


def test_approve_and_copy_hint(demo):
    page, url = demo
    page.goto(url)
    card = page.locator("#waiting .jp-plans-card")
    expect(card.locator(".jp-plans-command")).to_have_text(f"%plan approve {FULL_HASH}")
    card.get_by_role("button", name="Approve").focus()
    page.keyboard.press("Enter")
    assert sent(page)[-1] == {"action": "approve", "hash": FULL_HASH}, sent(page)
    expect(card.locator(".jp-plans-chip")).to_have_text("DEFAULT MODE")
    expect(card.locator(".jp-plans-banner")).to_have_count(0)


def test_off(demo):
    page, url = demo
    page.goto(url)
    card = page.locator("#waiting .jp-plans-card")
    card.get_by_role("button", name="Leave plan mode").click()
    assert sent(page)[-1] == {"action": "off"}
    expect(card.locator(".jp-plans-chip")).to_have_text("DEFAULT MODE")


def test_sections_keep_state(demo):
    page, url = demo
    page.goto(url)
    card = page.locator("#waiting .jp-plans-card")
    findings = card.get_by_role("button", name="Findings (2)")
    findings.click()
    expect(findings).to_have_attribute("aria-expanded", "false")
    bump(page)
    expect(card.get_by_role("button", name="Findings (2)")).to_have_attribute(
        "aria-expanded", "false"
    )
    expect(card.locator(".jp-plans-section-findings .jp-plans-section-body")).to_be_hidden()


def test_progress_aria(demo):
    page, url = demo
    page.goto(url)
    bar = page.locator("#underway [role=progressbar]")
    expect(bar).to_have_attribute("aria-valuenow", "2")
    expect(bar).to_have_attribute("aria-valuemax", "5")
    expect(bar).to_have_attribute("aria-valuetext", "2 of 5 steps marked complete by the agent")
    expect(page.locator("#underway [data-step-id=features] [role=img]")).to_have_attribute(
        "aria-label", "in progress"
    )


def test_edit(demo):
    page, url = demo
    page.goto(url)
    card = page.locator("#waiting .jp-plans-card")
    card.get_by_role("button", name="Edit").click()
    save = card.get_by_role("button", name="Save")
    expect(save).to_be_disabled()  # nothing changed yet
    card.get_by_label("load", exact=True).fill("Load sales.csv, stores.csv and holidays.csv")
    expect(save).to_be_enabled()
    card.get_by_role("button", name="Remove clean").click()
    # split is first in Model: moving it up takes it to the end of Prepare.
    card.get_by_role("button", name="Move split up").click()
    expect(card.get_by_role("button", name="Move split up")).to_be_focused()
    # report moves above fit: its dependency on fit would point later, so it is dropped.
    card.get_by_role("button", name="Move report up").click()
    card.get_by_role("button", name="Add step to Model").click()
    new_input = card.get_by_label("step-1", exact=True)
    expect(new_input).to_be_focused()
    expect(save).to_be_disabled()  # a blank description
    expect(card.locator(".jp-plans-editor-status")).to_have_text(
        "Step step-1: the description is blank."
    )
    new_input.type("Write the summary")
    bump(page)  # an unrelated re-render keeps the draft
    expect(card.get_by_label("step-1", exact=True)).to_have_value("Write the summary")
    expect(card.get_by_label("step-1", exact=True)).to_be_focused()
    save.click()
    change = sent(page)[-1]
    assert change["action"] == "edit", change
    edit = change["change"]
    assert edit["expected_revision"] == 7, edit
    phases = [
        (p["title"], [(s["id"], s["depends_on"]) for s in p["steps"]]) for p in edit["phases"]
    ]
    assert phases == [
        ("Prepare", [("load", []), ("fix_cents", ["load"]), ("split", ["fix_cents"])]),
        ("Model", [("report", []), ("fit", ["split"]), ("step-1", [])]),
    ], phases
    steps = {s["id"]: s for p in edit["phases"] for s in p["steps"]}
    assert steps["load"]["description"] == "Load sales.csv, stores.csv and holidays.csv"
    assert steps["fit"]["acceptance"] == "MAPE printed for the held-out month"
    assert steps["step-1"] == {
        "id": "step-1",
        "description": "Write the summary",
        "status": "pending",
        "acceptance": None,
        "depends_on": [],
        "evidence": None,
        "check": None,
    }, steps["step-1"]
    # The pretend kernel answers with rev 8: the editor closes, the new plan shows.
    expect(card.locator(".jp-plans-rev")).to_have_text("rev 8")
    expect(card.locator(".jp-plans-editor")).to_have_count(0)


def test_edit_refused_keeps_draft(demo):
    page, url = demo
    page.goto(url)
    card = page.locator("#underway .jp-plans-card")
    card.get_by_role("button", name="Edit").click()
    card.get_by_label("train", exact=True).fill("Train three models")
    page.evaluate("demoUpdate('underway', d => { d.snapshot.plan.revision = 13 })")
    expect(card.locator(".jp-plans-editor-stale")).to_be_visible()
    expect(card.get_by_role("button", name="Save")).to_be_disabled()
    expect(card.get_by_label("train", exact=True)).to_have_value("Train three models")
    card.get_by_role("button", name="Cancel").click()
    expect(card.locator(".jp-plans-editor")).to_have_count(0)
    expect(card.get_by_role("button", name="Edit")).to_be_focused()


def test_static(demo):
    page, url = demo
    page.goto(url + "?static")
    card = page.locator("#static .jp-plans-card")
    expect(card.locator(".jp-plans-banner-waiting")).to_be_visible()
    for name in ("Approve", "Request changes…", "Leave plan mode", "Edit"):
        expect(card.get_by_role("button", name=name)).to_have_count(0)


def test_words(demo):
    page, url = demo
    page.goto(url + "?static")
    text = page.locator("#cards").inner_text().lower()
    assert "marked complete by the agent" in text
    assert "done by" not in text
    assert "verified" not in text.replace("they are not independently verified", "")


WIDGET_CHECK = """
async () => {
  const { default: widget } = await import("/jupyter_plans/static/widget.js");
  const handlers = new Map();
  const values = { snapshot: SNAPSHOT, notebook: "nb.ipynb", changes: null, error: null };
  const sentMessages = [];
  const model = {
    get: (key) => values[key],
    set: (key, value) => { values[key] = value; },
    on: (events, callback) => events.split(" ").forEach(
      (e) => handlers.set(e, [...(handlers.get(e) ?? []), callback])),
    off: (events, callback) => events.split(" ").forEach(
      (e) => handlers.set(e, (handlers.get(e) ?? []).filter((c) => c !== callback))),
    send: (message) => sentMessages.push(message),
  };
  const fire = (key, value) => {
    values[key] = value;
    (handlers.get(`change:${key}`) ?? []).forEach((c) => c());
  };
  const el = document.createElement("div");
  document.body.append(el);
  const cleanup = await widget.render({ model, el });
  const result = { first: el.querySelector(".jp-plans-rev")?.textContent };
  fire("snapshot", { ...SNAPSHOT, cursor: SNAPSHOT.cursor + 1 });  // the same proposal, redrawn
  await Promise.resolve();
  el.querySelector("[data-jp-plans-key=approve]").click();
  const approved = { ...SNAPSHOT.plan, revision: 8 };
  fire("snapshot", { ...SNAPSHOT, pending_proposal_hash: null, mode: "default", plan: approved });
  fire("error", "something went wrong");
  await Promise.resolve();
  result.after = el.querySelector(".jp-plans-rev")?.textContent;
  result.error = el.querySelector(".jp-plans-error")?.textContent;
  result.chip = el.querySelector(".jp-plans-chip")?.textContent;
  const next = { ...SNAPSHOT.plan, revision: 9 };
  fire("snapshot", { ...SNAPSHOT, pending_proposal_hash: NEXT_HASH, plan: next });
  await Promise.resolve();
  result.sent = sentMessages;
  await cleanup();
  result.listenersLeft = [...handlers.values()].reduce((n, list) => n + list.length, 0);
  result.emptied = el.childNodes.length === 0;
  return result;
}
"""


def test_widget_bundle(demo):
    """The built anywidget module against a stand-in model: renders, sends, redraws, cleans up."""
    page, url = demo
    page.goto(url)
    snapshot = page.evaluate("() => JSON.stringify(window.demoSnapshot)")
    check = WIDGET_CHECK.replace("SNAPSHOT", snapshot).replace("NEXT_HASH", repr(NEXT_HASH))
    result = page.evaluate(check)
    assert result["first"] == "rev 7", result
    # A live card reports each waiting proposal it shows once, and approves the one it shows.
    assert result["sent"] == [
        {"action": "seen", "hash": FULL_HASH},
        {"action": "approve", "hash": FULL_HASH},
        {"action": "seen", "hash": NEXT_HASH},
    ], result
    assert result["after"] == "rev 8" and result["chip"] == "DEFAULT MODE", result
    assert result["error"] == "something went wrong", result
    assert result["listenersLeft"] == 0 and result["emptied"], result
