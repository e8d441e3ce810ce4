"""Fairness and verification: a stored round read back as the engine's inputs and as its
published record (:mod:`~server.fairness.rounds`), and the command that checks a record
against its seed (:mod:`~server.fairness.verifier`). The checks themselves are the rules
engine's (:mod:`server.rules.fairness`)."""
