"""The agents' profiles: what differs between the ACP agents the bridge runs, as data."""

from .profile import Profile, by_command, choose, default, profiles

__all__ = ["Profile", "by_command", "choose", "default", "profiles"]
