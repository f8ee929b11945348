"""Progress bars for long calls: tqdm (a notebook widget under Jupyter, text on a
terminal), shown when the session is interactive unless asked otherwise."""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Union

#: ``progress=`` of every long call: ``None`` (a bar when interactive), ``True``,
#: ``False``, or a callable ``f(done, total, unit, label)``.
ProgressArg = Union[None, bool, Callable[[int, int, str, str], Any]]


def interactive() -> bool:
    """True in a terminal or a Jupyter kernel."""
    if "ipykernel" in sys.modules:
        return True
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


class _Bar:
    def __init__(self, desc: str) -> None:
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self._desc = desc
        self._bar: Any = None
        self._unit = ""

    def __call__(self, done: int, total: int, unit: str, label: str = "") -> None:
        if self._bar is None or unit != self._unit:
            if self._bar is not None:
                self._bar.close()
            self._unit = unit
            byte_like = unit == "bytes"
            self._bar = self._tqdm(
                total=total or None,
                desc=self._desc,
                unit="B" if byte_like else f" {unit}",
                unit_scale=byte_like,
                unit_divisor=1024 if byte_like else 1000,
                leave=False,
            )
        if total and self._bar.total != total:
            self._bar.total = total
        self._bar.n = done
        if label:
            self._bar.set_postfix_str(label, refresh=False)
        self._bar.refresh()

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()


class Progress:
    """Context manager yielding the callback to hand to the native call (or None)."""

    def __init__(self, progress: ProgressArg, desc: str) -> None:
        self._arg = progress
        self._desc = desc
        self._bar: Optional[_Bar] = None

    def __enter__(self) -> Optional[Callable[..., Any]]:
        if callable(self._arg):
            return self._arg
        show = interactive() if self._arg is None else bool(self._arg)
        if not show:
            return None
        self._bar = _Bar(self._desc)
        return self._bar

    def __exit__(self, *exc: Any) -> None:
        if self._bar is not None:
            self._bar.close()
