"""Web pages (Gradio) over the appliance's services: student, teacher, status.

Importing this package switches off everything in Gradio and huggingface_hub that could
reach the internet (analytics, telemetry, version checks) before Gradio is imported.
"""

import os

for _key, _value in (
    ("GRADIO_ANALYTICS_ENABLED", "False"),
    ("HF_HUB_OFFLINE", "1"),
    ("HF_HUB_DISABLE_TELEMETRY", "1"),
    ("GRADIO_RUN_HISTORY", "False"),
    ("GRADIO_SSR_MODE", "False"),
    ("GRADIO_MCP_SERVER", "False"),
    ("DO_NOT_TRACK", "1"),
):
    os.environ.setdefault(_key, _value)
