"""HTTP API (FastAPI routers)."""
