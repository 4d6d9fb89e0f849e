"""The notebook surface: the %plan magic and the extension's life in a kernel, the live card
widget, the watcher that keeps it current, and what a restarted kernel resumes from."""
