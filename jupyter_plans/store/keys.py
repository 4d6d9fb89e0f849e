"""The keys of `plans_settings`, each named once: what a plan file keeps beside its sessions.

Imported by the coding-agent hook (and by statements.py): it imports nothing.
"""

CURRENT_KEY = "current_session"  # the session a surface opens when it is given none

# The notebook a plan file belongs to (records.py).
NOTEBOOK_KEY = "notebook"  # the notebook's path, relative to the plan file's folder
LEFT_KEY = "left_behind"  # the notebook (relative path) that moved on without its plan file
TAKEN_KEY = "left_for_taken"  # beside LEFT_KEY: what held the plan name then ("device:inode")

# Where a plan file went (marker.py).
MOVED_KEY = "moved_to"  # in a file that was moved: the new file's absolute path; "" for the trash
TOKEN_KEY = "move_token"  # beside MOVED_KEY: the move's token
RENAMED_KEY = "renamed_to"  # in a file whose folder was renamed: its own new path
HOPS_KEY = "moved_from"  # in a moved file: the moves that made it, oldest first (JSON)
MOVE_KEYS = (MOVED_KEY, TOKEN_KEY, RENAMED_KEY)
# What a copy of a plan file does not keep of the file it was copied from (follow.py).
NOT_COPIED_KEYS = (*MOVE_KEYS, HOPS_KEY, LEFT_KEY, TAKEN_KEY)

# The guard's records (guards.py).
INSTALLED_KEY = "guard_installed:{host}"  # an entry per host: {agent, at, file}
FORMER_KEY = "former_notebooks"  # a JSON list of names, relative to the plan file's folder
TOLD_KEY = "former_notebooks_told"  # the former names whose hook was told to install again
