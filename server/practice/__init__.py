"""The practice room that runs in the browser under Pyodide (docs/web.md)."""
