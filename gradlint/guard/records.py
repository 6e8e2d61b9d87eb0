"""What the guard records while tests run: a holder per saved tensor, an event per
forward that recorded a graph, an in-place edit through an alias, an
accumulation of kept graphs. Plain data, shared by ``monitor`` and ``kept``.
"""

from __future__ import annotations

from typing import Optional, Set

from gradlint.guard.report import Site

_META_KEY = "gradlint_guard"


class _Holder:
    """What the pack hook returns for one saved tensor."""

    __slots__ = ("tensor", "version", "event", "edits", "__weakref__")

    def __init__(self, tensor, event) -> None:
        self.tensor = tensor
        self.version = tensor._version
        self.event = event
        self.edits: Optional[list] = None

    @classmethod
    def bare(cls, tensor) -> "_Holder":
        """A holder that only hands the tensor back (when the guard could not look at it)."""
        holder = cls.__new__(cls)
        holder.tensor, holder.version, holder.event, holder.edits = tensor, None, None, None
        return holder


class _Event:
    """One outermost forward call that recorded a graph."""

    __slots__ = ("site", "test", "saved_bytes", "storages", "params", "live_nodes", "live_holders", "used",
                 "refs", "kept", "__weakref__")

    def __init__(self, site: Site, test: str, params: Set[int]) -> None:
        self.site = site
        self.test = test
        self.saved_bytes = 0
        self.storages: Set[int] = set()
        self.params = params
        self.live_nodes = 0
        self.live_holders = 0
        self.used = False
        self.refs: list = []
        self.kept: Optional[_Kept] = None  # the _Kept detection that counted this event, if any


class _Edit:
    __slots__ = ("code", "site", "forward", "op", "test", "outcome", "changed", "elements")

    def __init__(self, code: str, site: Site, forward: Site, op: str, test: str) -> None:
        self.code, self.site, self.forward, self.op, self.test = code, site, forward, op, test
        self.outcome = "not-run"
        self.changed = self.elements = 0


class _Kept:
    """A detected accumulation: events from one line kept alive across iterations."""

    __slots__ = ("site", "forward", "test", "events", "unused_then", "steps", "holder", "nodes", "bytes_per_step",
                 "kind")

    site: "Site"
    forward: "Site"
    test: str
    steps: int
    holder: Optional[str]
    nodes: int
    bytes_per_step: int

    def __init__(self) -> None:
        self.events: list = []
        self.unused_then: list = []
        # How the holder was found: "local", "global" (a module or class attribute: it
        # outlives the test), "mock" (arguments a Mock recorded: a test artifact).
        self.kind = "local"


class _Token:
    __slots__ = ("__weakref__",)
