"""The labelling page (``goldcase label serve``): a local web page for the drafts in
``cases/inbox/`` and for a second labeller's sample under ``labels/<labeller>/``."""
