"""Load benchmark of the room server (not a test): ``python -m bench.load --help``.

The server runs as the CLI runs it (``python -m server.cli serve``, on SQLite or
PostgreSQL); client processes drive N tables of four WebSocket players through the
room HTTP API and the WebSocket protocol (docs/protocol.md), nothing else of the
server's. A run measures, per store:

* memory: the server's RSS per idle connection and per playing room;
* human pace: one move per table every ``--interval`` seconds for ``--duration``
  seconds after a warm-up: the centiles of the time from an action to its ``ack``
  and to the event's arrival at the table's last seat, and the errors;
* saturation: every table moving as fast as its moves come back: moves per second,
  and per CPU second of the server process (moves per server core);
* commits: the server is killed afterwards, and every acked move must be in its
  database.

Modules: :mod:`~bench.load.__main__` (the command line), :mod:`~bench.load.run`
(one store's run, in order), :mod:`~bench.load.server` (the server process and its
store), :mod:`~bench.load.clients` (a client process), :mod:`~bench.load.table`
(the players of a table and its move), :mod:`~bench.load.pacing` (the phases),
:mod:`~bench.load.stats` (centiles, report), :mod:`~bench.load.wsclient` (the
WebSocket client).
"""
