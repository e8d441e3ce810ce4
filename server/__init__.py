"""Remi online: the server package (see README.md)."""

from server import native

native.install()
