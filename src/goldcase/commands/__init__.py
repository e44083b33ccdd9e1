"""One module per command; each defines ``command`` (a click command). Registered by name in
``goldcase.cli.COMMANDS``."""
