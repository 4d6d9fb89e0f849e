"""Local stand-ins for the model APIs real agents call (Anthropic Messages, OpenAI Responses),
replaying a script of turns on 127.0.0.1."""
