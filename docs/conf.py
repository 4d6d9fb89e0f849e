"""The documentation site, built by `make docs` from the Markdown pages of docs/ (MyST) with the
Jupyter projects' theme. Any warning fails the build (docs/_ext/site_checks.py adds some)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

project = "jupyter-plans"
author = "the jupyter-plans authors"
copyright = "the jupyter-plans authors"  # noqa: A001 - Sphinx's name for it

extensions = ["myst_parser", "site_checks"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_ext"]
nitpicky = True

# Links to a heading work as on GitHub: [the lanes](development.md#the-test-lanes).
myst_heading_anchors = 4

html_theme = "pydata_sphinx_theme"
html_title = "jupyter-plans"
html_theme_options = {
    "header_links_before_dropdown": 6,
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "footer_start": [],
    "footer_end": [],
}
html_show_sourcelink = False
# The pages are one level deep (docs/index.md holds them by topic): the page's own headings
# stand on the right, the site's pages in the header.
html_sidebars = {"**": []}

# Links out of the site. The build's network reaches only package registries, so none is
# fetched: each is listed here with what it is (site_checks.py refuses a link out that is not
# listed, and checks offline what it can: https, a host, no credentials).
linkcheck_ignore = [
    r"https://agentclientprotocol\.com/?",  # the Agent Client Protocol's specification
    r"https://modelcontextprotocol\.io/?",  # the Model Context Protocol's specification
]


def setup(app):
    from pygments.lexers.special import TextLexer

    # Shown as written: GitHub draws a mermaid diagram, the site shows its source.
    for name in ("mermaid", "gitignore"):
        app.add_lexer(name, TextLexer)
