"""The cluster: this node among others (its heartbeat and the rooms it claims), the
Redis links between nodes, the envelopes they carry, and the bridge that lets any node
serve a client whose room another node plays."""
