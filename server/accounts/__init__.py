"""Accounts and sessions: a player's identity, the tokens of their devices
(:mod:`~server.accounts.identity`) and the username and password they may claim
(:mod:`~server.accounts.credentials`)."""
