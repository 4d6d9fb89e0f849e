"""The exceptions a user of jupyter-plans may see; each message is one actionable line."""


class PlanStoreError(Exception):
    """The plan store cannot be opened or used (a symlink, a foreign file, a newer schema)."""


class DecisionRefused(Exception):
    """A person's verb (on, off, approve, revise, edit) that cannot be carried out.

    Nothing was changed; the message says why in one line.
    """


class StaleRevision(DecisionRefused):
    """A person's edit was made against a revision that is no longer current."""


class GuardRefused(PermissionError):
    """An agent's write or execute tool called while the session's plan mode forbids it.

    The function did not run; the message says why and what to do instead, in one line.
    """
