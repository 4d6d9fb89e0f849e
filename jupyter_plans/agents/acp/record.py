"""The names a bridged agent's writes are recorded under in the session's events."""

MIRROR_NAME = "acp_plan"  # the agent's own plan, mirrored as a revision
PROPOSAL_NAME = "plan_submit"  # its request to leave plan mode, made a proposal
