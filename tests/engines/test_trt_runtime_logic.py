"""TensorRtBackend's own logic (buffers, shapes, named I/O, slots, runtime cache) over fakes.

No GPU here, so the TensorRT module and the CUDA calls are replaced by small
fakes that keep "device" memory in numpy arrays and compute y = 2·x. The
real calls are the same names with the same arguments.
"""

from __future__ import annotations

import sys
import types
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from engines.backend import BackendError
from engines.trt.cuda import GpuInfo
from engines.trt.flavours import Flavour

PROFILE = ((1, 4), (2, 4), (8, 4))


class FakeCuda:
    name = "fake"

    def __init__(self):
        self.memory: dict[int, np.ndarray] = {}
        self.next = 1000
        self.streams = 0

    def device_info(self, index=0):
        return GpuInfo("Fake RTX", "8.6", "13.0", "13.0", 1 << 30)

    def _alloc(self, nbytes):
        self.next += 1
        self.memory[self.next] = np.zeros(nbytes, dtype=np.uint8)
        return self.next

    def malloc(self, nbytes):
        return self._alloc(nbytes)

    def malloc_host(self, nbytes):
        ptr = self._alloc(nbytes)
        return ptr, self.memory[ptr]

    def free(self, ptr):
        del self.memory[ptr]

    free_host = free

    def copy_to_device(self, dst, src, nbytes, stream):
        self.memory[dst][:nbytes] = self.memory[src][:nbytes]

    copy_to_host = copy_to_device

    def create_stream(self):
        self.streams += 1
        return self.streams

    def destroy_stream(self, stream):
        pass

    def synchronize(self, stream):
        pass


def fake_trt(cuda: FakeCuda, broken: bool = False):
    trt = types.SimpleNamespace(__version__="0.fake")

    class ILogger:
        class Severity:
            INTERNAL_ERROR, ERROR, WARNING, INFO, VERBOSE = range(5)

        def __init__(self):
            pass

    class Context:
        def __init__(self):
            self.shapes, self.addresses = {}, {}

        def set_input_shape(self, name, shape):
            self.shapes[name] = tuple(shape)
            return True

        def get_tensor_shape(self, name):
            return self.shapes["x"]

        def set_tensor_address(self, name, ptr):
            self.addresses[name] = ptr

        def execute_async_v3(self, stream):
            n = int(np.prod(self.shapes["x"])) * 4
            x = cuda.memory[self.addresses["x"]][:n].view(np.float32)
            cuda.memory[self.addresses["y"]][:n] = (2 * x).view(np.uint8)
            return True

    class Cache:
        def __init__(self):
            self.blob = b""

        def deserialize(self, blob):
            self.blob = blob
            return True

        def serialize(self):
            return b"kernels:" + self.blob

    class RuntimeConfig:
        def create_runtime_cache(self):
            return Cache()

        def set_runtime_cache(self, cache):
            self.cache = cache

        def get_runtime_cache(self):
            return self.cache

    class Engine:
        num_io_tensors = 2

        def get_tensor_name(self, i):
            return ["x", "y"][i]

        def get_tensor_mode(self, name):
            return "in" if name == "x" else "out"

        def get_tensor_dtype(self, name):
            return "float32"

        def get_tensor_profile_shape(self, name, index):
            return PROFILE

        def create_runtime_config(self):
            return RuntimeConfig()

        def create_execution_context(self, config=None):
            return Context()

    class Runtime:
        def __init__(self, logger):
            pass

        def deserialize_cuda_engine(self, blob):
            return None if broken or blob != b"engine" else Engine()

    trt.ILogger = ILogger
    trt.Runtime = Runtime
    trt.TensorIOMode = types.SimpleNamespace(INPUT="in", OUTPUT="out")
    trt.nptype = np.dtype
    return trt


@pytest.fixture
def setup(tmp_path, monkeypatch):
    cuda = FakeCuda()
    monkeypatch.setitem(sys.modules, "fake_tensorrt_for_tests", fake_trt(cuda))
    flavour = Flavour("tensorrt-rtx", ("fake_tensorrt_for_tests",), builds_without_gpu=True, has_runtime_cache=True,
                     has_timing_cache=False)
    engine = tmp_path / "m.engine"
    engine.write_bytes(b"engine")
    return cuda, flavour, engine


def test_runs_named_io_with_preallocated_buffers(setup, tmp_path):
    from engines.trt.runtime import TensorRtBackend

    cuda, flavour, engine = setup
    cache = tmp_path / "m.runtime-cache"
    cache.write_bytes(b"old")
    backend = TensorRtBackend(engine, flavour, streams=2, runtime_cache=cache, cuda=cuda)
    assert backend.input_names == ("x",) and backend.output_names == ("y",)
    assert backend.name == "tensorrt-rtx"
    buffers = len(cuda.memory)
    assert buffers == 2 * 2 * 2  # 2 slots x 2 tensors x (device + pinned host)
    for rows in (1, 3, 8):
        x = np.arange(rows * 4, dtype=np.float32).reshape(rows, 4)
        np.testing.assert_array_equal(backend.run({"x": x})["y"], 2 * x)
    assert len(cuda.memory) == buffers  # nothing allocated per call
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda i: backend.run({"x": np.full((2, 4), i, np.float32)})["y"], range(16)))
    assert [float(o[0, 0]) for o in outs] == [2.0 * i for i in range(16)]
    backend.close()
    assert cache.read_bytes() == b"kernels:old" and not cuda.memory


def test_rejects_shapes_outside_the_profile(setup):
    from engines.trt.runtime import TensorRtBackend

    cuda, flavour, engine = setup
    backend = TensorRtBackend(engine, flavour, cuda=cuda)
    with pytest.raises(BackendError, match="outside the engine's profile"):
        backend.run({"x": np.zeros((9, 4), np.float32)})
    with pytest.raises(BackendError, match="missing input x"):
        backend.run({})


def test_undeserializable_engine_is_a_backend_error(setup, monkeypatch):
    from engines.trt.runtime import TensorRtBackend

    cuda, flavour, engine = setup
    engine.write_bytes(b"garbage")
    with pytest.raises(BackendError, match="could not deserialize"):
        TensorRtBackend(engine, flavour, cuda=cuda)


def _gpu_present() -> bool:
    from engines.trt.cuda import probe_gpu

    return probe_gpu() is not None


@pytest.mark.gpu
@pytest.mark.skipif(not _gpu_present(), reason="needs an NVIDIA GPU (none here)")
def test_real_cuda_path_with_an_identity_engine(tmp_path, monkeypatch):
    """Real cuda.bindings calls (device + pinned buffers, async copies, streams); the fake
    engine's 'kernel' is a device-to-device copy, so y == x proves the data path."""
    from cuda.bindings import runtime as rt

    from engines.trt.cuda import CudaBindingsApi
    from engines.trt.runtime import TensorRtBackend

    cuda = CudaBindingsApi()
    trt = fake_trt(FakeCuda())

    class Context(trt.Runtime(None).deserialize_cuda_engine(b"engine").create_execution_context().__class__):
        def execute_async_v3(self, stream):
            n = int(np.prod(self.shapes["x"])) * 4
            kind = rt.cudaMemcpyKind.cudaMemcpyDeviceToDevice
            return rt.cudaMemcpyAsync(self.addresses["y"], self.addresses["x"], n, kind, stream)[0] == 0

    engine_cls = trt.Runtime(None).deserialize_cuda_engine(b"engine").__class__
    monkeypatch.setattr(engine_cls, "create_execution_context", lambda self, config=None: Context())
    monkeypatch.setitem(sys.modules, "fake_tensorrt_for_tests", trt)
    flavour = Flavour("tensorrt-rtx", ("fake_tensorrt_for_tests",), builds_without_gpu=True, has_runtime_cache=True,
                     has_timing_cache=False)
    engine = tmp_path / "m.engine"
    engine.write_bytes(b"engine")
    backend = TensorRtBackend(engine, flavour, streams=2, cuda=cuda)
    assert backend.gpu.name and backend.gpu.compute_capability
    for rows in (1, 5, 8):
        x = np.random.default_rng(rows).standard_normal((rows, 4)).astype(np.float32)
        np.testing.assert_array_equal(backend.run({"x": x})["y"], x)
    with ThreadPoolExecutor(4) as pool:
        outs = list(pool.map(lambda i: backend.run({"x": np.full((2, 4), i, np.float32)})["y"], range(32)))
    assert [float(o[0, 0]) for o in outs] == [float(i) for i in range(32)]
    backend.close()
