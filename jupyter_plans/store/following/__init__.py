"""The plan file follows its notebook (DESIGN sections 11 and 16): what a plan file records of
its notebook (`records`), the move, copy and trash of the file with it (`follow`), the notebooks
it was moved from, by which a hook of an old name finds it (`former`), where a moved
file says it went and whether to believe it (`marker`), a store keeping to its file while it is
replaced, deleted or moved (`tracking`), and, in a shared database, a session renamed, copied
or marked deleted with its notebook (`session_moves`) and followed by a session object that
knew its old id (`moves`).

The engines that open and write the file are the store's own (`store/`); the coding-agent hook
reads `moves`, `former` and `follow.owner` (the standard library only).
"""
