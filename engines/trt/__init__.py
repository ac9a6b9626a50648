"""TensorRT engines: one builder and one runtime for both flavours.

Full TensorRT (``tensorrt``, data-centre GPUs) and TensorRT-RTX
(``tensorrt_rtx_bindings``, GeForce/RTX cards) share the builder and runtime
code; their few differences live in :mod:`engines.trt.flavours`.
"""
