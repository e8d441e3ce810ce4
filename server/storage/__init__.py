"""Persistence: tables, engine/session factory, migrations and the game log."""
