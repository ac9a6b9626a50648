"""Sentence encoders: tokeniser + ONNX graph + backend → L2-normalised embeddings."""

from engines.encoders.base import EncoderError, SentenceEncoder, load_encoder

__all__ = ["EncoderError", "SentenceEncoder", "load_encoder"]
