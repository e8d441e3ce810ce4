"""Tournaments: sit-and-go and scheduled, in stages of tables, prizes from the entry fees.

* :mod:`server.tournaments.plan`: seating, who goes on, places (pure);
* :mod:`server.tournaments.store`: each change, a transaction made once;
* :mod:`server.tournaments.service`: the API's reads and requests;
* :mod:`server.tournaments.runner`: the server task that moves them on from the database.

docs/tournaments.md tells the whole story.
"""
