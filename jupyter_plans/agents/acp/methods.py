"""The ACP methods the bridge reads, answers or sends, by the names the ACP SDK gives them
(`acp.meta`, generated from the protocol's schema): the one place a method is named, so the
bridge's routing tables and its helpers say the protocol's words and no spelling of their own."""

from __future__ import annotations

from acp.meta import AGENT_METHODS, CLIENT_METHODS

# The client's requests and notifications to the agent.
INITIALIZE = AGENT_METHODS["initialize"]
NEW = AGENT_METHODS["session_new"]
LOAD = AGENT_METHODS["session_load"]
RESUME = AGENT_METHODS["session_resume"]
FORK = AGENT_METHODS["session_fork"]
PROMPT = AGENT_METHODS["session_prompt"]
CANCEL = AGENT_METHODS["session_cancel"]
SET_MODE = AGENT_METHODS["session_set_mode"]
SET_CONFIG_OPTION = AGENT_METHODS["session_set_config_option"]

# The agent's requests and notifications to the client.
UPDATE = CLIENT_METHODS["session_update"]
REQUEST_PERMISSION = CLIENT_METHODS["session_request_permission"]
WRITE_TEXT_FILE = CLIENT_METHODS["fs_write_text_file"]
CREATE_TERMINAL = CLIENT_METHODS["terminal_create"]

SESSION_STARTS = (NEW, LOAD, RESUME, FORK)  # an ACP session the agent opens or continues
SWITCHES = (SET_MODE, SET_CONFIG_OPTION)  # the client's or the bridge's switch of a mode
GUARDED = (WRITE_TEXT_FILE, CREATE_TERMINAL)  # what the guard answers while it holds
