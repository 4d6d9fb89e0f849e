"""The coding-agent hooks (of the hosts in agents/hosts/): the plan at the host's hook points,
and the installer that registers them for a project."""
