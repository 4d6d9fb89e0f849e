"""The notebook surface: the %plan magic and the extension's life in a kernel, %%agent beside
it, the live card widget, the watcher that keeps it current, and what a restarted kernel resumes
from."""
