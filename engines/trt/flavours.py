"""The few differences between full TensorRT and TensorRT-RTX, in one place.

=====================  ===========================  ==================================
                       tensorrt                     tensorrt-rtx
=====================  ===========================  ==================================
Python module          ``tensorrt``                 ``tensorrt_rtx_bindings`` (wheel
                                                    ``tensorrt-rtx-cu13-bindings``),
                                                    ``tensorrt_rtx`` (SDK zip)
build without a GPU    no                           yes: ahead of time, for the compute
                                                    capability set on the builder config
kernel cache           timing cache (builder)       runtime cache of JIT-compiled
                                                    kernels (timing cache calls are
                                                    no-ops since RTX 1.2)
=====================  ===========================  ==================================

Both build strongly typed networks: precision comes from the ONNX model.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


class FlavourUnavailable(RuntimeError):
    """The flavour's Python module is not installed or cannot load its libraries."""


@dataclass(frozen=True)
class Flavour:
    name: str
    module_names: tuple[str, ...]
    builds_without_gpu: bool
    has_runtime_cache: bool
    has_timing_cache: bool

    def load(self) -> ModuleType:
        errors = []
        for module_name in self.module_names:
            try:
                return importlib.import_module(module_name)
            except (ImportError, OSError) as exc:  # OSError: a shared library failed to load
                errors.append(f"{module_name}: {exc}")
        raise FlavourUnavailable(f"{self.name} is not usable here ({'; '.join(errors)})")

    def version(self) -> str:
        return str(getattr(self.load(), "__version__", "unknown"))

    def set_target(self, trt: ModuleType, config, compute_capability: str) -> None:
        """Point an RTX builder config at one compute capability ("8.6" → SM86).

        Without a GPU RTX needs an explicit target; with one, CURRENT. Full
        TensorRT always builds for the GPU it runs on.
        """
        if not self.builds_without_gpu:
            return
        member = "SM" + compute_capability.replace(".", "") if compute_capability else "CURRENT"
        target = getattr(trt.ComputeCapability, member, None)
        if target is None:
            raise FlavourUnavailable(f"{self.name} cannot target compute capability {compute_capability}")
        config.num_compute_capabilities = 1
        config.set_compute_capability(target, 0)


TENSORRT = Flavour("tensorrt", ("tensorrt",), builds_without_gpu=False, has_runtime_cache=False,
                   has_timing_cache=True)
TENSORRT_RTX = Flavour("tensorrt-rtx", ("tensorrt_rtx_bindings", "tensorrt_rtx"), builds_without_gpu=True,
                       has_runtime_cache=True, has_timing_cache=False)
FLAVOURS = {f.name: f for f in (TENSORRT, TENSORRT_RTX)}


def get_flavour(name: str) -> Flavour:
    try:
        return FLAVOURS[name]
    except KeyError:
        raise FlavourUnavailable(f"unknown TensorRT flavour {name!r}; choose {' or '.join(FLAVOURS)}") from None


def available_flavours() -> list[Flavour]:
    """Flavours whose module imports here, full TensorRT first."""
    usable = []
    for flavour in FLAVOURS.values():
        try:
            flavour.load()
        except FlavourUnavailable:
            continue
        usable.append(flavour)
    return usable
