"""Plans the tests submit as an agent would: a finished plan's steps, the browser tests'
proposals and draft."""

from __future__ import annotations

DONE = [
    {"id": "load", "description": "Load sales.csv", "status": "completed"},
    {
        "id": "fit",
        "description": "Fit the baseline",
        "status": "completed",
        "acceptance": "MAPE printed",
        "evidence": "MAPE 8.1% on June",
        "depends_on": ["load"],
    },
]


PROPOSAL = {
    "explanation": "Clean the sales data, then fit a baseline model of weekly revenue.",
    "findings": ["two stores report revenue in cents, not dollars"],
    "objectives": ["a validated baseline with MAPE printed on a held-out month"],
    "steps": [
        {"id": "load", "description": "Load sales.csv and the store table"},
        {"id": "clean", "description": "Drop rows with null price", "depends_on": ["load"]},
        {"id": "split", "description": "Hold out the last month", "depends_on": ["clean"]},
    ],
}
RESUBMITTED = {
    "explanation": "Fit the baseline on weekly revenue per store instead.",
    "findings": [],
    "objectives": ["a baseline per store"],
    "steps": [{"id": "fit", "description": "Fit one baseline per store"}],
}


DRAFT = {
    "expected_revision": 0,
    "explanation": "Clean the sales data, then fit a baseline model of weekly revenue.",
    "findings": [
        "`price` is null in 3.1% of rows (412 of 13,290)",
        "two stores report revenue in cents, not dollars",
    ],
    "objectives": ["a validated baseline with MAPE printed on a held-out month"],
    "steps": [
        {"id": "load", "description": "Load sales.csv and the store table"},
        {"id": "clean", "description": "Drop rows with null price", "depends_on": ["load"]},
        {"id": "split", "description": "Hold out one month", "depends_on": ["clean"]},
    ],
}

# A one-step proposal, for the server routes' tests.
ONE_STEP_PROPOSAL = {
    "explanation": "why",
    "findings": [],
    "objectives": ["a chart"],
    "steps": [{"id": "load", "description": "Load the data"}],
}
