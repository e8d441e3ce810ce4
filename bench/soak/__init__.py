"""Soak benchmark of the room server (not a test): ``python -m bench.soak --help``.

Does the server's memory level off while rooms open and end without pause? The
server runs as the CLI runs it (:class:`bench.load.server.Server`, on SQLite or
PostgreSQL), with short graces so that a room left by its players ends within
seconds; one client process keeps ``--tables`` tables busy for ``--minutes``. Each
table is a room of four new guest players made through the HTTP API, played over
WebSockets (a real draw or discard every ``--pause`` seconds), where now and then a
player's connection drops and comes back (a new socket, ``hello``, a snapshot). Half
the tables play their one round to its end (the stock runs out, A.15: the match is
over); the others are abandoned part-way (every socket closes; bots take the seats;
the room ends once no human is left). A table that ends is replaced at once.

Every ``--every`` seconds it prints the server's RSS, the objects its collector
tracks by generation and frozen (bench/soak/heapwatch, loaded into the server as
``sitecustomize``), its full collections, and the tables and moves so far. Before the
first table, and every ``--settle-every`` minutes once every table has ended (no table
starts meanwhile), it asks the server for a full collection and prints the heap that
is still alive: if the server leaks, these settled figures grow with the tables played.
"""
