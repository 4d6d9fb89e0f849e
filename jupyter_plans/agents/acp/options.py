"""The answers the bridge gives to a permission request, as ACP outcomes: the option the agent's
profile prefers among those the request offers, else one of a kind it offers, or `cancelled`;
and whether that answer ends the agent's turn."""

from __future__ import annotations

from typing import Any

from acp.schema import AllowedOutcome, DeniedOutcome, PermissionOption

from .profiles import Profile

REJECT_KINDS = ("reject_once", "reject_always")


def _dump(outcome: AllowedOutcome | DeniedOutcome) -> dict[str, Any]:
    return outcome.model_dump(mode="json", by_alias=True, exclude_none=True)


def cancelled_outcome() -> dict[str, Any]:
    return _dump(DeniedOutcome(outcome="cancelled"))


def selected(option_id: str) -> dict[str, Any]:
    return _dump(AllowedOutcome(outcome="selected", option_id=option_id))


def option_outcome(options: list[PermissionOption], *kinds: str) -> dict[str, Any]:
    """The first offered option of the first of `kinds` offered; `cancelled` when none is."""
    for kind in kinds:
        for option in options:
            if option.kind == kind:
                return selected(option.option_id)
    return cancelled_outcome()


def _words(option: PermissionOption) -> str:
    return f"{option.option_id} {option.name}".lower()


def _rank(option: PermissionOption, profile: Profile) -> int:
    """0 for a reject that says it lets the turn go on, 2 for one that says it ends it."""
    words = _words(option)
    if any(word in words for word in profile.reject_words.get("go_on", ())):
        return 0
    return 2 if ends_turn(option, profile) else 1


def ends_turn(option: PermissionOption, profile: Profile) -> bool:
    """Whether answering with `option` ends the agent's turn (the profile says, else its
    words: "cancel", "abort", "stop")."""
    if option.option_id in profile.turn_ending:
        return True
    if option.option_id in profile.rejects:
        return False
    return any(word in _words(option) for word in profile.reject_words.get("end_turn", ()))


def reject_choice(options: list[PermissionOption], profile: Profile) -> tuple[dict[str, Any], bool]:
    """The reject to answer with, and whether it ends the agent's turn: the profile's
    preferred reject offered, else a reject that lets the turn go on where one is offered,
    else any reject; `cancelled` (which ends it) when none is offered."""
    offered = {option.option_id: option for option in options}
    for option_id in profile.rejects:
        if option_id in offered and offered[option_id].kind in REJECT_KINDS:
            return selected(option_id), ends_turn(offered[option_id], profile)
    rejects = [option for option in options if option.kind in REJECT_KINDS]
    if not rejects:
        return cancelled_outcome(), True
    best = min(rejects, key=lambda option: (_rank(option, profile), option.kind != "reject_once"))
    return selected(best.option_id), ends_turn(best, profile)


def reject_outcome(options: list[PermissionOption], profile: Profile) -> dict[str, Any]:
    return reject_choice(options, profile)[0]


def _approve_option(options: list[PermissionOption], profile: Profile) -> PermissionOption | None:
    """Approval answers with the profile's allow-once option, else the first allow_once (edits
    still ask), never allow_always."""
    for option_id in profile.approve:
        for option in options:
            if option.option_id == option_id and option.kind == "allow_once":
                return option
    return next((option for option in options if option.kind == "allow_once"), None)


def approve_outcome(options: list[PermissionOption], profile: Profile) -> dict[str, Any]:
    option = _approve_option(options, profile)
    return cancelled_outcome() if option is None else selected(option.option_id)


def approve_option_name(options: list[PermissionOption], profile: Profile) -> str | None:
    """The words of the option an approval answers with (what the person says yes to)."""
    option = _approve_option(options, profile)
    return None if option is None else option.name


def kind_of(options: list[PermissionOption], option_id: str) -> str | None:
    return next((o.kind for o in options if o.option_id == option_id), None)
