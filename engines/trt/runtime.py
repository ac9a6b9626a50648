"""TensorRT runtime backend behind :class:`engines.backend.InferenceBackend`.

Deserialize once; one execution context per CUDA stream (``streams`` of
them, handed out to callers through a queue, so up to ``streams`` threads
run at once); device buffers preallocated for the profile's largest shapes
and pinned host buffers for the copies; ``set_input_shape`` +
``set_tensor_address`` + ``execute_async_v3`` on named I/O tensors. RTX
engines get a runtime cache (JIT-compiled kernels) loaded from and saved to
``runtime_cache``. A warm-up batch runs after load.
"""

from __future__ import annotations

import logging
import queue
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import numpy as np

from engines.atomic import write_bytes
from engines.backend import BackendError
from engines.trt.builder import _TrtLogger
from engines.trt.cuda import CudaUnavailable, load_cuda
from engines.trt.flavours import Flavour, FlavourUnavailable

log = logging.getLogger(__name__)


@dataclass
class _Tensor:
    name: str
    is_input: bool
    dtype: np.dtype
    max_shape: tuple[int, ...]
    min_shape: tuple[int, ...] = ()
    opt_shape: tuple[int, ...] = ()

    @property
    def max_bytes(self) -> int:
        return int(np.prod(self.max_shape)) * self.dtype.itemsize


@dataclass
class _Slot:
    """One execution context with its stream and buffers."""

    context: object
    stream: int
    device: dict[str, int] = field(default_factory=dict)
    host: dict[str, tuple[int, np.ndarray]] = field(default_factory=dict)


class TensorRtBackend:
    """Runs a serialized TensorRT engine. Thread-safe up to ``streams`` concurrent calls."""

    def __init__(self, engine_path: str | Path, flavour: Flavour, streams: int = 1,
                 runtime_cache: Path | None = None, cuda=None, warmup: bool = True):
        self.engine_path = Path(engine_path)
        self.flavour = flavour
        self.name = flavour.name
        self._runtime_cache_path = runtime_cache
        try:
            self._trt = flavour.load()
            self._cuda = cuda or load_cuda()
            self.gpu = self._cuda.device_info()
        except (FlavourUnavailable, CudaUnavailable) as exc:
            raise BackendError(f"TensorRT cannot run here: {exc}") from exc
        self._engine = self._deserialize()
        self._tensors = self._describe()
        self.input_names = tuple(t.name for t in self._tensors if t.is_input)
        self.output_names = tuple(t.name for t in self._tensors if not t.is_input)
        self._runtime_config = self._make_runtime_config()
        self._slots: queue.Queue[_Slot] = queue.Queue()
        self._all_slots = [self._make_slot() for _ in range(max(1, streams))]
        for slot in self._all_slots:
            self._slots.put(slot)
        if warmup:
            self._warm_up()

    # ---------------------------------------------------------------- load

    def _deserialize(self):
        trt = self._trt
        self._logger = _TrtLogger.make(trt)
        self._runtime = trt.Runtime(self._logger)
        try:
            blob = self.engine_path.read_bytes()
        except OSError as exc:
            raise BackendError(f"cannot read engine {self.engine_path}: {exc}") from exc
        engine = self._runtime.deserialize_cuda_engine(blob)
        if engine is None:
            raise BackendError(f"TensorRT could not deserialize {self.engine_path.name} (corrupt, or built for "
                               "another TensorRT version or GPU)")
        return engine

    def _describe(self) -> list[_Tensor]:
        trt, engine = self._trt, self._engine
        tensors = []
        for i in range(engine.num_io_tensors):
            name = engine.get_tensor_name(i)
            is_input = engine.get_tensor_mode(name) == trt.TensorIOMode.INPUT
            dtype = np.dtype(trt.nptype(engine.get_tensor_dtype(name)))
            if is_input:
                low, opt, high = (tuple(s) for s in engine.get_tensor_profile_shape(name, 0))
                tensors.append(_Tensor(name, True, dtype, high, low, opt))
            else:
                tensors.append(_Tensor(name, False, dtype, ()))
        return tensors

    def _make_runtime_config(self):
        if not self.flavour.has_runtime_cache:
            return None
        config = self._engine.create_runtime_config()
        cache = config.create_runtime_cache()
        path = self._runtime_cache_path
        if path is not None and path.is_file() and not cache.deserialize(path.read_bytes()):
            log.warning("ignoring unusable runtime cache %s", path)
        config.set_runtime_cache(cache)
        return config

    def _make_slot(self) -> _Slot:
        engine = self._engine
        context = (engine.create_execution_context(self._runtime_config) if self._runtime_config is not None
                   else engine.create_execution_context())
        if context is None:
            raise BackendError(f"TensorRT could not create an execution context for {self.engine_path.name}")
        slot = _Slot(context, self._cuda.create_stream())
        for tensor in self._tensors:  # the largest shapes fix the output sizes
            if tensor.is_input:
                context.set_input_shape(tensor.name, tensor.max_shape)
        for tensor in self._tensors:
            if not tensor.is_input:
                tensor.max_shape = tuple(context.get_tensor_shape(tensor.name))
            slot.device[tensor.name] = self._cuda.malloc(tensor.max_bytes)
            slot.host[tensor.name] = self._cuda.malloc_host(tensor.max_bytes)
            context.set_tensor_address(tensor.name, slot.device[tensor.name])
        return slot

    def _warm_up(self) -> None:
        feeds = {t.name: np.ones(t.opt_shape, dtype=t.dtype) for t in self._tensors if t.is_input}
        self.run(feeds)

    # ----------------------------------------------------------------- run

    def _check_shape(self, tensor: _Tensor, shape: tuple[int, ...]) -> None:
        ok = len(shape) == len(tensor.max_shape) and all(
            lo <= s <= hi for s, lo, hi in zip(shape, tensor.min_shape, tensor.max_shape))
        if not ok:
            raise BackendError(f"input {tensor.name} shape {shape} is outside the engine's profile "
                               f"{tensor.min_shape}..{tensor.max_shape}")

    def _stage_inputs(self, slot: _Slot, feeds: Mapping[str, np.ndarray]) -> None:
        for tensor in self._tensors:
            if not tensor.is_input:
                continue
            if tensor.name not in feeds:
                raise BackendError(f"missing input {tensor.name}")
            array = np.ascontiguousarray(feeds[tensor.name], dtype=tensor.dtype)
            self._check_shape(tensor, array.shape)
            ptr, view = slot.host[tensor.name]
            view[: array.nbytes] = array.view(np.uint8).reshape(-1)
            self._cuda.copy_to_device(slot.device[tensor.name], ptr, array.nbytes, slot.stream)
            if not slot.context.set_input_shape(tensor.name, array.shape):
                raise BackendError(f"TensorRT refused shape {array.shape} for {tensor.name}")

    def _fetch_outputs(self, slot: _Slot) -> dict[str, np.ndarray]:
        shapes = {}
        for tensor in self._tensors:
            if tensor.is_input:
                continue
            shape = tuple(slot.context.get_tensor_shape(tensor.name))
            nbytes = int(np.prod(shape)) * tensor.dtype.itemsize
            self._cuda.copy_to_host(slot.host[tensor.name][0], slot.device[tensor.name], nbytes, slot.stream)
            shapes[tensor.name] = (shape, nbytes)
        self._cuda.synchronize(slot.stream)
        out = {}
        for tensor in self._tensors:
            if not tensor.is_input:
                shape, nbytes = shapes[tensor.name]
                raw = slot.host[tensor.name][1][:nbytes]
                out[tensor.name] = raw.view(tensor.dtype).reshape(shape).copy()
        return out

    def run(self, feeds: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        slot = self._slots.get()
        try:
            self._stage_inputs(slot, feeds)
            if not slot.context.execute_async_v3(slot.stream):
                raise BackendError(f"TensorRT execution of {self.engine_path.name} failed")
            return self._fetch_outputs(slot)
        except CudaUnavailable as exc:
            raise BackendError(f"CUDA failed while running {self.engine_path.name}: {exc}") from exc
        finally:
            self._slots.put(slot)

    # --------------------------------------------------------------- close

    def save_runtime_cache(self) -> None:
        if self._runtime_config is None or self._runtime_cache_path is None:
            return
        write_bytes(self._runtime_cache_path, self._runtime_config.get_runtime_cache().serialize())

    def close(self) -> None:
        self.save_runtime_cache()
        for slot in self._all_slots:
            self._cuda.synchronize(slot.stream)
            for ptr in slot.device.values():
                self._cuda.free(ptr)
            for ptr, _ in slot.host.values():
                self._cuda.free_host(ptr)
            self._cuda.destroy_stream(slot.stream)
        self._all_slots = []
