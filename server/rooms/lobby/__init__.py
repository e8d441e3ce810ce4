"""The lobby: a room's settings, its life before and after play (the room service) and
quick start, all short database transactions shared by the HTTP API and the rooms."""
