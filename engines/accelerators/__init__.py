"""The accelerators the engines manager can serve a model with, in default preference order.

Adding one: a module beside these with an ``ACCELERATOR`` (see :mod:`.base`), and one line
in ``_REGISTERED`` below. The config's ``engines.flavours`` lists names from here.
"""

from __future__ import annotations

from engines.accelerators import onnxruntime_cpu, onnxruntime_cuda, tensorrt, tensorrt_rtx
from engines.accelerators.base import (Accelerator, BuiltEngine, CannotBuild, EngineAccelerator, EngineBuild,
                                       OpenOptions, RuntimeAccelerator)

_REGISTERED = (
    tensorrt.ACCELERATOR,
    tensorrt_rtx.ACCELERATOR,
    onnxruntime_cuda.ACCELERATOR,
    onnxruntime_cpu.ACCELERATOR,
)

#: name → accelerator. Tests register a stand-in with ``monkeypatch.setitem(ACCELERATORS, ...)``.
ACCELERATORS: dict[str, Accelerator] = {a.name: a for a in _REGISTERED}
#: The fallback behind every engine and the last resort of every preference list.
CPU = onnxruntime_cpu.NAME


class UnknownAccelerator(ValueError):
    """A name that no registered accelerator has."""


def default_preference() -> tuple[str, ...]:
    return tuple(ACCELERATORS)


def get_accelerator(name: str) -> Accelerator:
    try:
        return ACCELERATORS[name]
    except KeyError:
        raise UnknownAccelerator(f"unknown engine flavour {name!r}; known: {', '.join(ACCELERATORS)}") from None


def resolve(preference: tuple[str, ...] | list[str]) -> list[Accelerator]:
    """The accelerators named, in order, ONNX Runtime on the CPU appended when missing."""
    chosen = [get_accelerator(name) for name in dict.fromkeys(preference)]
    if CPU not in {a.name for a in chosen}:
        chosen.append(ACCELERATORS[CPU])
    return chosen


__all__ = ["ACCELERATORS", "Accelerator", "BuiltEngine", "CPU", "CannotBuild", "EngineAccelerator", "EngineBuild",
           "OpenOptions", "RuntimeAccelerator", "UnknownAccelerator", "default_preference", "get_accelerator",
           "resolve"]
