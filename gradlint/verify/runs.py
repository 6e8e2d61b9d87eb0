"""Read-only views of what a sandboxed run of a script measured."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional

from gradlint.verify.sandbox import RunOutcome


def fmt_bytes(n: Optional[int]) -> str:
    if n is None:
        return "?"
    if n < 1024:
        return f"{n} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024  # type: ignore[assignment]
        if n < 1024 or unit == "GiB":
            return f"{n:.1f} {unit}"
    return f"{n} B"  # pragma: no cover


@dataclass(frozen=True)
class RunStatus:
    """How a run ended, in one word and one line."""

    kind: str  # completed | exit | exception | out-of-memory | output-limit | timeout | crashed | setup-error
    text: str
    # Wall-clock seconds of the whole process (Python start-up and torch import included).
    seconds: float
    cuda_peak: Optional[int] = None
    # Seconds the file's own code ran, when the harness measured it.
    code_seconds: Optional[float] = None


class RunView:
    """One run: its outcome and the harness's measurements (possibly partial)."""

    def __init__(self, outcome: RunOutcome, to_original: Optional[Callable[[int], int]] = None) -> None:
        self.outcome = outcome
        self.payload: Dict[str, Any] = outcome.payload or {}
        self._to_original = to_original

    def line(self, line: Optional[int]) -> Optional[int]:
        """A line of the file this run ran, as numbered in the file as written
        (the fixed copy's lines move where a fix adds or removes some)."""
        if line is None or self._to_original is None:
            return line
        return self._to_original(int(line))

    @property
    def measured(self) -> bool:
        """Whether the harness reported measurements (complete, or partial after a timeout)."""
        return "statements" in self.payload

    @property
    def saved_measured(self) -> bool:
        """False when the run went without saved-tensor hooks (see scripts._REFUSES_SAVED_HOOKS)."""
        return bool(self.payload.get("saved_measured", True))

    @property
    def end(self) -> Dict[str, Any]:
        return self.payload.get("outcome") or {}

    def status(self) -> RunStatus:
        status = self._status()
        return RunStatus(status.kind, status.text, status.seconds, status.cuda_peak, self.payload.get("seconds"))

    def _status(self) -> RunStatus:
        o = self.outcome
        cuda = self.payload.get("cuda_peak")
        if self.payload.get("status") == "setup-error":
            return RunStatus("setup-error", self.payload.get("error", "setup failed"), o.seconds)
        if o.status == "timeout":
            return RunStatus("timeout", f"TIMEOUT after {o.limits.timeout:g} s", o.seconds, cuda)
        if o.status == "crashed":
            return RunStatus("crashed", f"CRASHED: {o.crash_reason()}", o.seconds, cuda)
        end = self.end
        kind = end.get("kind", "completed")
        if o.output_limited:
            return RunStatus(
                "output-limit", f"CRASHED: output exceeded the limit of {fmt_bytes(o.limits.output)}", o.seconds, cuda
            )
        if kind == "exit":
            text = f"exited with status {end.get('code')}" + (f" ({end['message']})" if end.get("message") else "")
            return RunStatus("exit", text, o.seconds, cuda)
        if kind == "out-of-memory":
            limit = (self.payload.get("limits") or {}).get("memory")
            where = f" at line {self.line(end['line'])}" if end.get("line") else ""
            return RunStatus(
                "out-of-memory",
                f"CRASHED: out of memory{where} (limit {fmt_bytes(limit)}): {exception_text(end)}",
                o.seconds,
                cuda,
            )
        if kind == "exception":
            where = f" at line {self.line(end['line'])}" if end.get("line") else ""
            return RunStatus("exception", f"raised {exception_text(end)}{where}", o.seconds, cuda)
        return RunStatus("completed", "completed", o.seconds, cuda)

    def statement(self, line: Optional[int]) -> Dict[str, Any]:
        if line is None:
            return {}
        return (self.payload.get("statements") or {}).get(str(line)) or {}

    def region(self, rid: Optional[str]) -> Dict[str, Any]:
        if rid is None:
            return {}
        return (self.payload.get("regions") or {}).get(rid) or {}

    def function(self, fid: Optional[str]) -> Dict[str, Any]:
        if fid is None:
            return {}
        return (self.payload.get("functions") or {}).get(fid) or {}

    @property
    def warnings(self) -> List[Dict[str, Any]]:
        return self.payload.get("warnings") or []

    @property
    def exceptions(self) -> List[Dict[str, Any]]:
        return self.payload.get("exceptions") or []

    @property
    def globals(self) -> Dict[str, Any]:
        return self.payload.get("globals") or {}


def exception_text(event: Dict[str, Any], limit: int = 160) -> str:
    types = event.get("types") or ["Exception"]
    message = " ".join(str(event.get("message", "")).split())
    if len(message) > limit:
        message = message[: limit - 1] + "…"
    return f"{types[0]}: {message}" if message else types[0]
