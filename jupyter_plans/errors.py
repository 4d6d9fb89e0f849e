"""The exceptions a user of jupyter-plans may see; each message is one actionable line."""


class PlanStoreError(Exception):
    """The plan store cannot be opened or used (a symlink, a foreign file, a newer schema)."""


class StoreBusy(PlanStoreError):
    """Another connection held the plan file's write lock for longer than the busy timeout, so
    nothing was done; the same operation may be tried again once the lock is released."""


class RecordConflict(PlanStoreError):
    """A write broke one of the store's unique rules, so nothing of it was saved (the store
    says a driver's IntegrityError as this, at the transaction's exit)."""


class CallIdTaken(RecordConflict):
    """The call id of a write is the id of an accepted call already recorded in the session:
    the write was not saved; under a call id of its own it may be."""


class OlderSchema(PlanStoreError):
    """A read named a table or column the store does not have: a plan file of an older
    jupyter-plans that this process cannot upgrade."""


class DecisionRefused(Exception):
    """A person's verb (on, off, approve, revise, edit) that cannot be carried out.

    Nothing was changed; the message says why in one line.
    """


class ConnectionLost(PlanStoreError):
    """The database connection went away during an operation (a server restart, a network cut,
    an administrator ending it). The store reconnects; the operation is run again from a fresh
    read of the session, unless its commit is found to have landed.

    `committing` is true when the connection went while the commit was on its way, so the
    outcome had to be looked up rather than assumed.
    """

    def __init__(self, message: str, committing: bool = False) -> None:
        super().__init__(message)
        self.committing = committing


class GuardRefused(PermissionError):
    """An agent's write or execute tool called while the session's plan mode forbids it.

    The function did not run; the message says why and what to do instead, in one line.
    """
