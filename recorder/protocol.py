"""One client frame in, one reply out: the recorder protocol shared by the websocket and HTTP routes.

Every frame gets exactly one reply, an `ack` (the highest contiguous seq stored) or an `error`
saying what was wrong. A refused frame stores nothing. Only an ended recording closes the
conversation; every other error leaves the connection serving valid frames.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypedDict

from pydantic import ValidationError
from sqlmodel import Session

from humantrace.recorder.models import Recording
from humantrace.recorder.schemas import (
    MAX_FRAME_BYTES,
    AckMessage,
    BatchMessage,
    ErrorMessage,
    MetaMessage,
    describe_validation_error,
    is_malformed_json,
    parse_client_message,
)
from humantrace.recorder.service import (
    BatchRefused,
    IngestResult,
    RecordingEnded,
    RecordingNotFound,
    SeqGap,
    check_sequence,
    saved_id,
    store_meta,
    stream_ack,
)
from humantrace.recorder.writer import IngestWriter, StoreBatch

logger = logging.getLogger("recorder")

POLICY_VIOLATION = 1008
"""Websocket close code for a token that is not (or no longer) valid."""


class UvicornWsOptions(TypedDict):
    """The keyword arguments of `uvicorn.Config` that `uvicorn_ws_options` sets."""

    ws_max_size: int
    ws_per_message_deflate: bool


def uvicorn_ws_options() -> UvicornWsOptions:
    """uvicorn's websocket settings for every server that mounts the recorder socket.

    `ws_max_size` at the frame limit makes the websocket protocol refuse an oversized message
    from its frame header (close 1009, "message too big") before reading its payload: with
    uvicorn's default of 16 MiB the server read every such message whole before the recorder
    could refuse it, and 40 of them at once took a server from 243 MB to 1.4 GB. Compression is
    off: recorder batches are a few KB and acks a few bytes, compressing them costs the server
    ~10% of its CPU per event (benchmarks/ingest.py) and saves nothing that matters.
    """
    return {"ws_max_size": MAX_FRAME_BYTES, "ws_per_message_deflate": False}


HTTP_STATUS = {
    "malformed_json": 400,
    "invalid": 400,
    "repeated_seq": 400,
    "not_contiguous": 400,
    "frame_too_large": 413,
    "gap": 409,
    "token_invalid": 401,
    "recording_ended": 410,
    "too_many_streams": 429,
    "internal": 503,
}


@dataclass(frozen=True)
class FrameOutcome:
    """The reply to one frame, its HTTP status, and whether the connection must close."""

    reply: AckMessage | ErrorMessage
    close: bool = False

    @property
    def http_status(self) -> int:
        if isinstance(self.reply, AckMessage):
            return 200
        return HTTP_STATUS.get(self.reply.code, 400)


def error(code: str, message: str, *, seq: int | None = None, close: bool = False) -> FrameOutcome:
    return FrameOutcome(ErrorMessage(code=code, message=message, seq=seq), close=close)


def check_frame_size(raw: str | bytes) -> FrameOutcome | None:
    """An error outcome when the frame exceeds `MAX_FRAME_BYTES`, else None."""
    if isinstance(raw, str):
        if len(raw) * 4 <= MAX_FRAME_BYTES:  # UTF-8 takes at most 4 bytes a character: no need to encode
            return None
        size = len(raw.encode("utf-8"))
    else:
        size = len(raw)
    if size > MAX_FRAME_BYTES:
        return error(
            "frame_too_large",
            f"frame is {size} bytes; the limit is {MAX_FRAME_BYTES} bytes (send fewer events per batch)",
        )
    return None


def parse_frame(raw: str | bytes) -> FrameOutcome | BatchMessage | MetaMessage:
    """The validated message, or the error outcome that says what was wrong with the frame."""
    too_large = check_frame_size(raw)
    if too_large is not None:
        return too_large
    try:
        message = parse_client_message(raw)
    except ValidationError as exc:
        if is_malformed_json(exc):
            return error("malformed_json", "frame is not valid JSON: " + describe_validation_error(exc))
        return error("invalid", describe_validation_error(exc))
    if isinstance(message, BatchMessage):
        try:
            check_sequence(message.events)
        except BatchRefused as exc:
            return error(exc.code, str(exc))
    return message


async def apply_message(
    *, writer: IngestWriter, recording: Recording, message: BatchMessage | MetaMessage, stream: int = 0
) -> FrameOutcome:
    """Store a message from `parse_frame` (validated, seqs checked) for this (detached) recording's
    stream through the group writer; the reply acks that stream."""
    recording_id = saved_id(recording)
    job: StoreBatch | Callable[[Session], int]
    if isinstance(message, BatchMessage):
        job = StoreBatch(
            recording_id, message.events, checked=True, stream=stream
        )  # parse_frame checked the seqs
    else:
        meta = message

        def store(session: Session) -> int:
            store_meta(session, recording=recording, meta=meta, commit=False)
            return stream_ack(session, recording_id=recording_id, stream=stream)

        job = store

    try:
        outcome = await writer.run(job)
    except SeqGap as exc:
        return error(exc.code, str(exc), seq=exc.acked_seq)
    except BatchRefused as exc:
        return error(exc.code, str(exc))
    except RecordingEnded as exc:
        return error(exc.code, str(exc), close=True)
    except RecordingNotFound:
        return error("token_invalid", "the recorder token names a recording that does not exist", close=True)
    except Exception as exc:
        logger.warning("recording %s: could not store a frame (%s)", recording_id, type(exc).__name__)
        return error("internal", "the server could not store this frame; resend it")
    acked = outcome.acked_seq if isinstance(outcome, IngestResult) else outcome
    return FrameOutcome(AckMessage(seq=acked))


async def process_frame(
    *, writer: IngestWriter, recording: Recording, raw: str | bytes, stream: int = 0
) -> FrameOutcome:
    """Validate and store one frame of a stream; the outcome is the reply to send."""
    parsed = parse_frame(raw)
    if isinstance(parsed, FrameOutcome):
        return parsed
    return await apply_message(writer=writer, recording=recording, message=parsed, stream=stream)
