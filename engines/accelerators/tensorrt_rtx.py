"""TensorRT-RTX (``tensorrt_rtx_bindings`` or ``tensorrt_rtx``): GeForce/RTX GPUs; builds
ahead of time on a CPU for a given compute capability; refuses GPUs its builder cannot target
(Hopper, compute 9.0)."""

from engines.accelerators.tensorrt import TensorRtAccelerator
from engines.trt.cuda import GpuInfo
from engines.trt.flavours import TENSORRT_RTX


def runs_on(gpu: GpuInfo) -> str:
    """"" where TensorRT-RTX has kernels for ``gpu``'s compute capability, else why not."""
    module = TENSORRT_RTX.load()
    member = "SM" + gpu.compute_capability.replace(".", "")
    if getattr(module.ComputeCapability, member, None) is None:
        return f"does not support {gpu.name} (compute capability {gpu.compute_capability})"
    return ""


ACCELERATOR = TensorRtAccelerator(
    TENSORRT_RTX, "engines for GeForce/RTX GPUs (not compute 9.0), also built ahead of time on a CPU; "
                  "int8/fp16/fp32; runtime kernel cache", runs_on=runs_on)
