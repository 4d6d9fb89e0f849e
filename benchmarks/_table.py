"""The table every ratio benchmark prints: p50 (and p99) of each side, and its p50 ratio."""

from __future__ import annotations

import statistics

SCALES = {"us": 1e6, "ms": 1e3}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ratio_table(
    samples: dict[str, list[float]], reference: str, unit: str = "us", tail: bool = True
) -> dict[str, float]:
    """Print the table; return each side's p50 divided by the reference's."""
    scale, base = SCALES[unit], statistics.median(samples[reference])
    print(f"{'':30} {'p50 ' + unit:>8}" + (f" {'p99 ' + unit:>8}" if tail else "") + "  p50 ratio")
    figures = {}
    for name, values in samples.items():
        p50 = statistics.median(values)
        figures[name] = p50 / base
        row = f"{name:30} {p50 * scale:8.{2 if p50 * scale < 10 else 0}f}"
        if tail:
            row += f" {percentile(values, 0.99) * scale:8.0f}"
        print(f"{row} {p50 / base:10.2f}")
    return figures
