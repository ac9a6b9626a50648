"""Small pieces every room may use: the clock, the micro-batcher, text normalisation."""
