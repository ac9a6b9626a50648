"""The eduqa daemon: question bank, search, answer policy, ask log, API and CLI."""

__version__ = "0.1.0"
