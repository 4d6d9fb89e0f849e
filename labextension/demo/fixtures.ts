/** Fixture data for the demo page: the mockup's waiting proposal, a plan under way, no plan. */

import type { CardData, Phase, Plan, Step } from "../src/types";

export function step(id: string, description: string, extra: Partial<Step> = {}): Step {
  return { id, description, status: "pending", acceptance: null, depends_on: [], evidence: null, ...extra };
}

export function plan(revision: number, fields: Partial<Plan> & { phases: Phase[] }): Plan {
  return {
    revision,
    turn_id: "turn-1",
    call_id: "call-1",
    explanation: null,
    findings: [],
    objectives: [],
    ...fields,
    steps: fields.phases.flatMap((phase) => phase.steps),
  };
}

export const HASH = "3f9a1c2e5b7d40a8c6e1f2b3a4d5c6e7f8091a2b3c4d5e6f708192a3b4c5d6e7";

export function waitingProposal(): CardData {
  return {
    notebook: "sales-analysis.ipynb",
    snapshot: {
      session_id: "default",
      cursor: 41,
      mode: "plan",
      pending_proposal_hash: HASH,
      approved_proposal_hash: null,
      decisions: [{ title: "Use MAPE, not RMSE", rationale: "revenue scales differ by 40× across stores", sources: [] }],
      plan: plan(7, {
        explanation: "Clean the sales data, then fit a baseline model of weekly revenue.",
        findings: ["`price` is null in 3.1% of rows (412 of 13,290)", "two stores report revenue in cents, not dollars"],
        objectives: ["a validated baseline with MAPE printed on a held-out month"],
        phases: [
          {
            title: "Prepare",
            steps: [
              step("load", "Load sales.csv and the store table"),
              step("clean", "Drop rows with null price", { depends_on: ["load"] }),
              step("fix_cents", "Convert cents to dollars for stores 17 and 42", { depends_on: ["load"] }),
            ],
          },
          {
            title: "Model",
            steps: [
              step("split", "Hold out the last month", { depends_on: ["clean", "fix_cents"] }),
              step("fit", "Fit a gradient-boosted baseline", {
                depends_on: ["split"],
                acceptance: "MAPE printed for the held-out month",
              }),
              step("report", "Plot residuals by store", { depends_on: ["fit"] }),
            ],
          },
        ],
      }),
    },
    changes: {
      since_revision: 4,
      added: [step("clean", "Drop rows with null price", { depends_on: ["load"] })],
      reworded: [{ id: "fix_cents", before: "Normalise currency units", after: "Convert cents to dollars for stores 17 and 42" }],
      removed: [step("tune", "Grid-search hyperparameters", { depends_on: ["fit"] })],
    },
  };
}

export function planUnderWay(): CardData {
  return {
    notebook: "work/churn-model.ipynb",
    snapshot: {
      session_id: "default",
      cursor: 88,
      mode: "default",
      pending_proposal_hash: null,
      approved_proposal_hash: "b41c09d2e7a35f6a8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4a5b6c7d8e9f0a1b",
      decisions: [
        {
          title: "Keep customers with one order",
          rationale: "they are 38% of churners; dropping them flatters the model",
          sources: ["cell 4 output", "events.parquet"],
        },
        { title: "Split by signup month", rationale: "a random split leaks seasonality into validation", sources: [] },
      ],
      plan: plan(12, {
        explanation: "Predict which customers churn next quarter from their first 90 days of events.",
        findings: ["`events.parquet` has 2.1M rows; 0.4% carry a future timestamp"],
        objectives: ["a churn model with AUC ≥ 0.80 on a later signup month", "a list of the five strongest signals"],
        phases: [
          {
            title: "Data",
            steps: [
              step("load", "Load events and customers", {
                status: "completed",
                evidence: "2,104,311 events, 48,920 customers loaded",
              }),
              step("dedupe", "Drop duplicate and future-dated events", {
                status: "completed",
                depends_on: ["load"],
                acceptance: "no event after the export date",
                evidence: "8,412 rows dropped; max(ts) = 2026-10-31",
              }),
              step("features", "Aggregate the first 90 days per customer", { status: "in_progress", depends_on: ["dedupe"] }),
            ],
          },
          {
            title: "Model",
            steps: [
              step("train", "Train a logistic baseline and a gradient-boosted model", { depends_on: ["features"] }),
              step("evaluate", "Compare both on the held-out signup month", {
                depends_on: ["train"],
                acceptance: "AUC printed for both models",
              }),
            ],
          },
        ],
      }),
    },
    changes: null,
  };
}

export function noPlan(): CardData {
  return {
    notebook: "scratch.ipynb",
    snapshot: {
      session_id: "default",
      cursor: 0,
      mode: "default",
      pending_proposal_hash: null,
      approved_proposal_hash: null,
      decisions: [],
      plan: null,
    },
    changes: null,
  };
}

export const HOSTILE = "<img src=x onerror=alert(1)>";

/** Model-authored text that would run script if any of it were parsed as HTML. */
export function hostile(): CardData {
  const data = waitingProposal();
  const plan = data.snapshot.plan!;
  plan.explanation = `${HOSTILE} <script>alert(2)</script>`;
  plan.findings = [HOSTILE];
  plan.phases[0].title = "<b onmouseover=alert(3)>Prepare</b>";
  plan.phases[0].steps[0] = step("xss", HOSTILE, { acceptance: HOSTILE, evidence: HOSTILE, status: "completed" });
  plan.steps = plan.phases.flatMap((phase) => phase.steps);
  data.snapshot.decisions = [{ title: HOSTILE, rationale: HOSTILE, sources: [HOSTILE] }];
  data.notebook = `${HOSTILE}.ipynb`;
  data.changes!.reworded = [{ id: "fix_cents", before: HOSTILE, after: "Convert cents to dollars for stores 17 and 42" }];
  data.changes!.removed = [step("<i>gone</i>", HOSTILE)];
  return data;
}
