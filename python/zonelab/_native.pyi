"""Type hints of the native module (crates/python): JSON text in, JSON text out."""

from typing import Any, Callable, List, Optional

class ZonelabError(ValueError):
    """A bad configuration or a failed run; the message is the CLI's."""

def version() -> str: ...
def devices() -> str:
    """JSON list of {name, model, description} of the built-in profiles."""

def profile(name: str, overrides_json: str) -> str:
    """JSON of a profile's fields after the overrides (checked by building it)."""

def run(
    request_json: str,
    progress: Optional[Callable[[int, int, str, str], Any]] = None,
) -> str:
    """Runs a request (kind + the CLI's options) without the GIL; returns its JSON."""

def headline(kind: str, result_json: str) -> str:
    """JSON [[name, value]] of a run's headline metrics (a sweep's metric columns)."""

def run_work_item(item_json: str) -> str:
    """Runs one sweep work item line; returns the answer line."""

def serve_worker() -> None:
    """Serves sweep work items on stdin/stdout until stdin ends."""

class Sweep:
    """A planned sweep in its output directory."""

    def __init__(self, spec_json: str, out: Optional[str] = None, default_name: str = "unnamed") -> None: ...
    @staticmethod
    def from_file(path: str, out: Optional[str] = None) -> "Sweep": ...
    @property
    def name(self) -> str: ...
    @property
    def out(self) -> str: ...
    @property
    def runs(self) -> int: ...
    @property
    def unique(self) -> int: ...
    def plan(self) -> str: ...
    def pending(self) -> List[str]: ...
    def store(self, done_json: str, executor: str) -> bool: ...
    def run_local(
        self,
        command: List[str],
        workers: int,
        progress: Optional[Callable[[int, int], Any]] = None,
    ) -> str: ...
    def finish(self) -> str: ...
