"""Terminal output shared by the command line and the library's trainers: display widths and
colour (`text`), the live progress line and summaries (`progress`). Imports nothing of the CLI."""
