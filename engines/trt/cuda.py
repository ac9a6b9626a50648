"""The handful of CUDA calls the TensorRT runtime needs, behind one small API.

Default: cuda-python's ``cuda.bindings.runtime`` (NVIDIA's official, thin
bindings; pip-installable without a CUDA toolkit; it imports on a machine
without a GPU and reports "no device" instead of crashing). pycuda works too
(:class:`PyCudaApi`) where it is installed; it needs a toolkit to build from
source on most platforms, which is why it is not the default.
"""

from __future__ import annotations

import ctypes
from typing import Callable
from dataclasses import dataclass

import numpy as np

from engines.backend import BackendError


class CudaUnavailable(BackendError):
    """No CUDA driver, no GPU, or a CUDA call failed."""


@dataclass(frozen=True)
class GpuInfo:
    name: str
    compute_capability: str
    driver_version: str
    cuda_version: str
    total_memory: int


def _version(number: int) -> str:
    return f"{number // 1000}.{(number % 1000) // 10}"


class CudaBindingsApi:
    """CUDA runtime calls through ``cuda.bindings.runtime``; pointers and streams are ints."""

    name = "cuda-python"

    def __init__(self):
        try:
            from cuda.bindings import runtime
        except ImportError as exc:
            raise CudaUnavailable(f"cuda-python is not installed ({exc})") from exc
        self._rt = runtime

    def _check(self, result):
        err, *values = result if isinstance(result, tuple) else (result,)
        if err != self._rt.cudaError_t.cudaSuccess:
            _, message = self._rt.cudaGetErrorString(err)
            raise CudaUnavailable(f"CUDA error {int(err)}: {message.decode() if isinstance(message, bytes) else message}")
        return values[0] if len(values) == 1 else values

    def device_info(self, index: int = 0) -> GpuInfo:
        if self._check(self._rt.cudaGetDeviceCount()) < 1:
            raise CudaUnavailable("no CUDA GPU found")
        self._check(self._rt.cudaSetDevice(index))
        props = self._check(self._rt.cudaGetDeviceProperties(index))
        name = props.name.split(b"\0", 1)[0].decode() if isinstance(props.name, bytes) else str(props.name)
        return GpuInfo(
            name=name,
            compute_capability=f"{props.major}.{props.minor}",
            driver_version=_version(self._check(self._rt.cudaDriverGetVersion())),
            cuda_version=_version(self._check(self._rt.cudaRuntimeGetVersion())),
            total_memory=int(props.totalGlobalMem),
        )

    def create_stream(self) -> int:
        return int(self._check(self._rt.cudaStreamCreate()))

    def destroy_stream(self, stream: int) -> None:
        self._check(self._rt.cudaStreamDestroy(stream))

    def malloc(self, nbytes: int) -> int:
        return int(self._check(self._rt.cudaMalloc(max(nbytes, 1))))

    def free(self, ptr: int) -> None:
        self._check(self._rt.cudaFree(ptr))

    def malloc_host(self, nbytes: int) -> tuple[int, np.ndarray]:
        """Pinned host memory and a uint8 numpy view of it."""
        ptr = int(self._check(self._rt.cudaMallocHost(max(nbytes, 1))))
        view = np.ctypeslib.as_array((ctypes.c_uint8 * max(nbytes, 1)).from_address(ptr))
        return ptr, view

    def free_host(self, ptr: int) -> None:
        self._check(self._rt.cudaFreeHost(ptr))

    def copy_to_device(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        kind = self._rt.cudaMemcpyKind.cudaMemcpyHostToDevice
        self._check(self._rt.cudaMemcpyAsync(dst, src, nbytes, kind, stream))

    def copy_to_host(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        kind = self._rt.cudaMemcpyKind.cudaMemcpyDeviceToHost
        self._check(self._rt.cudaMemcpyAsync(dst, src, nbytes, kind, stream))

    def synchronize(self, stream: int) -> None:
        self._check(self._rt.cudaStreamSynchronize(stream))


class PyCudaApi:
    """The same calls through pycuda (``pycuda.autoinit`` makes the context)."""

    name = "pycuda"

    def __init__(self):
        try:
            import pycuda.autoinit  # noqa: F401
            import pycuda.driver as drv
        except Exception as exc:  # ImportError, or pycuda's LogicError without a GPU
            raise CudaUnavailable(f"pycuda is not usable ({exc})") from exc
        self._drv = drv
        self._keep: dict[int, object] = {}  # pycuda frees on GC: hold the objects by pointer

    def device_info(self, index: int = 0) -> GpuInfo:
        dev = self._drv.Device(index)
        major, minor = dev.compute_capability()
        return GpuInfo(dev.name(), f"{major}.{minor}", _version(self._drv.get_driver_version()),
                       ".".join(map(str, self._drv.get_version()[:2])), dev.total_memory())

    def create_stream(self) -> int:
        stream = self._drv.Stream()
        self._keep[stream.handle] = stream
        return stream.handle

    def destroy_stream(self, stream: int) -> None:
        self._keep.pop(stream, None)

    def malloc(self, nbytes: int) -> int:
        buf = self._drv.mem_alloc(max(nbytes, 1))
        self._keep[int(buf)] = buf
        return int(buf)

    def free(self, ptr: int) -> None:
        self._keep.pop(ptr).free()

    def malloc_host(self, nbytes: int) -> tuple[int, np.ndarray]:
        view = self._drv.pagelocked_empty(max(nbytes, 1), np.uint8)
        ptr = view.ctypes.data
        self._keep[ptr] = view
        return ptr, view

    def free_host(self, ptr: int) -> None:
        self._keep.pop(ptr, None)

    def _stream(self, stream: int):
        return self._keep[stream]

    def copy_to_device(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._drv.memcpy_htod_async(dst, self._keep[src][:nbytes], self._stream(stream))

    def copy_to_host(self, dst: int, src: int, nbytes: int, stream: int) -> None:
        self._drv.memcpy_dtoh_async(self._keep[dst][:nbytes], src, self._stream(stream))

    def synchronize(self, stream: int) -> None:
        self._stream(stream).synchronize()


def load_cuda(prefer: str = "cuda-python"):
    """The preferred CUDA API, else the other one; :class:`CudaUnavailable` if neither works."""
    order = [CudaBindingsApi, PyCudaApi] if prefer != "pycuda" else [PyCudaApi, CudaBindingsApi]
    errors = []
    for api in order:
        try:
            return api()
        except CudaUnavailable as exc:
            errors.append(f"{api.name}: {exc}")
    raise CudaUnavailable("; ".join(errors))


def probe_gpu(index: int = 0) -> GpuInfo | None:
    """The GPU's facts, or None where there is no usable GPU."""
    try:
        return load_cuda().device_info(index)
    except CudaUnavailable:
        return None


#: The NVIDIA driver's user-space library; without it there is no usable GPU, whatever the
#: CUDA runtime says ("CUDA driver version is insufficient" is its answer to a missing driver).
DRIVER_LIBRARY = "libcuda.so.1"


def driver_present(library: str = DRIVER_LIBRARY) -> bool:
    try:
        ctypes.CDLL(library)
    except OSError:
        return False
    return True


def describe_gpu(index: int = 0, driver: Callable[[], bool] = driver_present) -> tuple[GpuInfo | None, str]:
    """(the GPU's facts, "") or (None, why there is none), in words true for this box: no
    driver means no NVIDIA GPU, not an old driver."""
    if not driver():
        return None, f"no NVIDIA GPU (no NVIDIA driver: {DRIVER_LIBRARY} is not installed)"
    try:
        return load_cuda().device_info(index), ""
    except CudaUnavailable as exc:
        return None, f"none usable ({exc})"
