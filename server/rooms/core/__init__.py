"""The room core: one room's game flow, pure (standard library only; it runs in
Pyodide too), shared by the server's actor and the offline practice
(:mod:`server.rooms.core.room`)."""
