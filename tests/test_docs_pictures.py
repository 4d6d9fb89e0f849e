"""The pictures of docs/ are made by `make screenshots` (scripts/screenshots.py), never by a
test: every picture under docs/ is one the script makes, every picture the README and docs/
show is there, and no test writes into docs/."""

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
SCRIPT = REPO / "scripts" / "screenshots.py"


def made_by_the_script(name: str) -> bool:
    """The script names each file it makes, or its stem for a light and a dark one."""
    text = SCRIPT.read_text(encoding="utf-8")
    stem = re.sub(r"-(light|dark)\.png$", "", name)
    return f'"{name}"' in text or (stem != name and f'"{stem}"' in text)


def test_every_picture_under_docs_is_made_by_make_screenshots():
    pictures = sorted(path.name for path in DOCS.glob("*.png"))
    assert len(pictures) > 10
    assert [name for name in pictures if not made_by_the_script(name)] == []


def test_every_picture_the_docs_show_is_there():
    shown = []
    for page in [REPO / "README.md", *DOCS.rglob("*.md")]:
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+\.png)\)", page.read_text("utf-8")):
            if not (page.parent / target).exists():
                shown.append(f"{page.relative_to(REPO)} shows {target}, which is not there")
    assert shown == []


def test_no_test_writes_into_docs():
    """No photograph (`screenshot(`) of a test names docs/, nor does any test join a picture's
    name to a docs folder."""
    found = []
    for path in (REPO / "tests").rglob("*.py"):
        if path == Path(__file__).resolve():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            writes = "screenshot(" in line or ".png" in line
            if writes and "docs" in line.lower():
                found.append(f"{path.relative_to(REPO)}:{number}: {line.strip()}")
    assert found == [], "pictures for docs/ are made by `make screenshots`:\n" + "\n".join(found)
