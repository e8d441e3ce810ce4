"""Remi online: the server package (see README.md)."""
