"""What Amazon SQS allows, as hookline relies on it: one home for its limits. Pure.

The settings check their values against these (hookline.core.settings), the
queue adapters clamp and chunk by them (hookline.adapters.queues,
hookline.adapters.dlq), and the services that pace work in SQS delays keep
within them (hookline.services.jobs, hookline.services.drain).
"""

from __future__ import annotations

MAX_DELAY_SECONDS = 900  # the longest DelaySeconds of a message (15 minutes)
MAX_BATCH_ENTRIES = 10  # entries of one SendMessageBatch or DeleteMessageBatch, messages of one ReceiveMessage
