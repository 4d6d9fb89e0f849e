"""The figures a test records (the reliability suite's: how many writes, kills, retries), printed
at the end of a run. A figure travels with its test's report (`user_properties`), so a run on
pytest-xdist's workers prints them too; the hook is the root conftest's, which the controller
loads (a folder's conftest is loaded only where its tests are collected, on the workers)."""

FIGURE = "figure"  # the key of a figure among a test's user_properties


def record(node, line: str) -> None:
    """Record one line, with the test's name."""
    node.user_properties.append((FIGURE, f"{node.name}: {line}"))


def pytest_terminal_summary(terminalreporter):
    lines = [
        value
        for reports in terminalreporter.stats.values()
        for report in reports
        if getattr(report, "when", None) == "call"
        for key, value in getattr(report, "user_properties", ())
        if key == FIGURE
    ]
    if lines:
        terminalreporter.section("figures")
        for line in lines:
            terminalreporter.write_line(line)
