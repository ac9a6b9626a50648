"""Model → fast inference: ONNX graphs, runtime backends, sentence encoders.

This package knows nothing about schools: it turns models into callables that take
named arrays and return named arrays.
"""
