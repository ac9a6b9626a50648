"""Build a serialized TensorRT engine from an ONNX file (either flavour).

Strongly typed network from the ONNX parser, one optimisation profile,
a timing cache read before and written back after the build, progress
logged per phase, and the engine written atomically (temp file + rename).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

from engines.atomic import write_bytes
from engines.recipes import InputProfile
from engines.trt.flavours import Flavour

log = logging.getLogger(__name__)

#: Called as progress(phase, step, steps) while building.
Progress = Callable[[str, int, int], None]


class BuildError(RuntimeError):
    """The ONNX model could not be parsed or the engine could not be built."""


@dataclass(frozen=True)
class BuildRequest:
    onnx_path: Path
    engine_path: Path
    profiles: tuple[InputProfile, ...]
    flavour: Flavour
    #: "8.6" etc.; "" = the GPU present (RTX: ComputeCapability.CURRENT).
    compute_capability: str
    timing_cache: Path | None = None
    workspace_bytes: int = 2 << 30


@dataclass(frozen=True)
class BuildResult:
    engine_path: Path
    seconds: float
    engine_bytes: int
    flavour_version: str


class _TrtLogger:
    """Routes TensorRT's log into :mod:`logging` (created per build, no globals)."""

    @staticmethod
    def make(trt):
        class Logger(trt.ILogger):
            def __init__(self):
                trt.ILogger.__init__(self)

            def log(self, severity, msg):
                level = {
                    trt.ILogger.Severity.INTERNAL_ERROR: logging.ERROR,
                    trt.ILogger.Severity.ERROR: logging.ERROR,
                    trt.ILogger.Severity.WARNING: logging.WARNING,
                    trt.ILogger.Severity.INFO: logging.DEBUG,
                }.get(severity, logging.DEBUG)
                log.log(level, "[TRT] %s", msg)

        return Logger()


def _progress_monitor(trt, progress: Progress):
    class Monitor(trt.IProgressMonitor):
        def __init__(self):
            trt.IProgressMonitor.__init__(self)

        def phase_start(self, phase_name, parent_phase, num_steps):
            progress(phase_name, 0, num_steps)

        def step_complete(self, phase_name, step):
            progress(phase_name, step + 1, 0)
            return True  # False would cancel the build

        def phase_finish(self, phase_name):
            pass

    return Monitor()


def _parse(trt, builder, logger, onnx_path: Path):
    flags = 1 << int(trt.NetworkDefinitionCreationFlag.STRONGLY_TYPED)
    network = builder.create_network(flags)
    parser = trt.OnnxParser(network, logger)
    if not parser.parse_from_file(str(onnx_path)):
        errors = "; ".join(str(parser.get_error(i)) for i in range(parser.num_errors))
        raise BuildError(f"TensorRT could not parse {onnx_path.name}: {errors}")
    return network, parser


def _profile(builder, network, profiles: Sequence[InputProfile]):
    names = {network.get_input(i).name for i in range(network.num_inputs)}
    wanted = {p.name for p in profiles}
    if names != wanted:
        raise BuildError(f"profile inputs {sorted(wanted)} do not match the network's {sorted(names)}")
    profile = builder.create_optimization_profile()
    for p in profiles:
        profile.set_shape(p.name, p.min, p.opt, p.max)
    return profile


def _load_timing_cache(config, path: Path | None):
    blob = path.read_bytes() if path and path.is_file() else b""
    cache = config.create_timing_cache(blob)
    config.set_timing_cache(cache, ignore_mismatch=True)
    return cache


def build_engine(request: BuildRequest, progress: Progress | None = None) -> BuildResult:
    """Build ``request.onnx_path`` into ``request.engine_path``; raises :class:`BuildError`."""
    trt = request.flavour.load()
    started = time.perf_counter()
    logger = _TrtLogger.make(trt)
    builder = trt.Builder(logger)
    network, _parser = _parse(trt, builder, logger, request.onnx_path)
    config = builder.create_builder_config()
    config.set_memory_pool_limit(trt.MemoryPoolType.WORKSPACE, request.workspace_bytes)
    request.flavour.set_target(trt, config, request.compute_capability)
    config.add_optimization_profile(_profile(builder, network, request.profiles))
    if progress is not None:
        config.progress_monitor = _progress_monitor(trt, progress)
    use_timing_cache = request.flavour.has_timing_cache and request.timing_cache is not None
    cache = _load_timing_cache(config, request.timing_cache) if use_timing_cache else None
    serialized = builder.build_serialized_network(network, config)
    if serialized is None:
        raise BuildError(f"TensorRT failed to build {request.onnx_path.name} (see the [TRT] log lines)")
    write_bytes(request.engine_path, serialized)
    if cache is not None:
        write_bytes(request.timing_cache, cache.serialize())
    seconds = time.perf_counter() - started
    log.info("built %s (%.1f MB) in %.1fs", request.engine_path.name, serialized.nbytes / 1e6, seconds)
    return BuildResult(request.engine_path, seconds, serialized.nbytes, str(trt.__version__))
