"""The answers the bridge gives to a permission request, as ACP outcomes: the option of a kind
that the request offers, or `cancelled`."""

from __future__ import annotations

from typing import Any

from acp.schema import AllowedOutcome, DeniedOutcome, PermissionOption


def _dump(outcome: AllowedOutcome | DeniedOutcome) -> dict[str, Any]:
    return outcome.model_dump(mode="json", by_alias=True, exclude_none=True)


def cancelled_outcome() -> dict[str, Any]:
    return _dump(DeniedOutcome(outcome="cancelled"))


def option_outcome(options: list[PermissionOption], *kinds: str) -> dict[str, Any]:
    """The first offered option of the first of `kinds` offered; `cancelled` when none is."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return _dump(AllowedOutcome(outcome="selected", option_id=option.option_id))
    return cancelled_outcome()


def reject_outcome(options: list[PermissionOption]) -> dict[str, Any]:
    """A reject option, one that lets the agent's turn go on where it offers one (Codex's
    `decline`, "No, continue without running it", before its `cancel`, which ends the turn)."""
    return option_outcome(sorted(options, key=_ends_the_turn), "reject_once", "reject_always")


def _ends_the_turn(option: PermissionOption) -> int:
    words = f"{option.option_id} {option.name}".lower()
    if "continue" in words or "decline" in words:
        return 0
    return 2 if any(word in words for word in ("cancel", "abort", "stop")) else 1


def approve_outcome(options: list[PermissionOption]) -> dict[str, Any]:
    """Approval answers with the allow_once option (edits still ask), never allow_always."""
    return option_outcome(options, "allow_once")


def approve_option_name(options: list[PermissionOption]) -> str | None:
    """The words of the option an approval answers with (what the person says yes to)."""
    return next((o.name for o in options if o.kind == "allow_once"), None)


def kind_of(options: list[PermissionOption], option_id: str) -> str | None:
    return next((o.kind for o in options if o.option_id == option_id), None)
