"""Errors shared by the library and its command line (the CLI imports from here, never the reverse)."""


class UserError(Exception):
    """A mistake in a command line or an input file: the CLI reports it in one line with exit
    status 2; library functions that read input files turn it into a ValueError."""
