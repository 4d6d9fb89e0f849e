"""The contract, pure and without I/O: a plan's shapes, bounds and rules, hashing and diffs, its
stored form, the final review, fold, plain text, the tool catalog and the guard's names.

Nothing is imported here: the coding-agent hook reads `plan.guard` before every tool call and
must not pay for pydantic.
"""
