"""Code the test modules share: helpers and data, never tests (no test module imports another)."""
