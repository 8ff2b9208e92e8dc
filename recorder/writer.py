"""The ingestion writer: one database thread per process that commits many batches at once.

Every connection hands its database work to the writer instead of opening its own transaction.
While one group commits, new work queues up; the next group takes all of it in one transaction
(group commit). This keeps the event loop free, keeps SQLite to a single writer (no lock waits),
and turns hundreds of small commits a second into a few larger ones. Event batches of a group
are stored together (`service.ingest_batches`: a few statements for the whole group); other jobs
are functions of the session. If a group fails for a reason other than a recorder error, each
job is retried alone so one bad job cannot sink others.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlmodel import Session

from humantrace.recorder.schemas import EventIn
from humantrace.recorder.service import IngestResult, RecorderError, ingest_batches

logger = logging.getLogger("recorder.writer")

T = TypeVar("T")


@dataclass(frozen=True)
class StoreBatch:
    """A job that stores one validated batch of a recording's stream; its result is an `IngestResult`."""

    recording_id: int
    events: Sequence[EventIn]
    checked: bool = False  # the seqs already passed `check_sequence`
    stream: int = 0


Job = Callable[[Session], Any] | StoreBatch


class IngestWriter:
    """Runs database jobs on one dedicated thread, committing each group of queued jobs together."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="recorder-writer")
        self._pending: list[tuple[Job, asyncio.Future[Any]]] = []
        self._drain_task: asyncio.Task[None] | None = None

    async def run(self, job: Callable[[Session], T] | StoreBatch) -> T | IngestResult:
        """Queue `job(session)` (or a batch to store); returns its result once its group is committed, or raises its error."""
        loop = asyncio.get_running_loop()
        future: asyncio.Future[T | IngestResult] = loop.create_future()
        self._pending.append((job, future))
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = loop.create_task(self._drain())
        return await future

    async def _drain(self) -> None:
        loop = asyncio.get_running_loop()
        while self._pending:
            group, self._pending = self._pending, []
            try:
                outcomes = await loop.run_in_executor(
                    self._executor, self._write_group, [job for job, _ in group]
                )
            except BaseException as exc:  # the executor itself failed: fail this group, keep serving
                outcomes = [exc] * len(group)
            for (_, future), outcome in zip(group, outcomes, strict=True):
                if future.done():  # the waiting connection went away
                    continue
                if isinstance(outcome, BaseException):
                    future.set_exception(outcome)
                else:
                    future.set_result(outcome)

    def _write_group(self, jobs: list[Job]) -> list[Any]:
        try:
            return self._run_in_one_transaction(jobs)
        except Exception as exc:
            if len(jobs) == 1:
                logger.warning("recorder write failed: %s", type(exc).__name__)
                return [exc]
        return [self._write_group([job])[0] for job in jobs]

    def _run_in_one_transaction(self, jobs: list[Job]) -> list[Any]:
        outcomes: list[Any] = [None] * len(jobs)
        batches = [(i, job) for i, job in enumerate(jobs) if isinstance(job, StoreBatch)]
        with Session(self.engine, expire_on_commit=False) as session:
            for i, job in enumerate(jobs):
                if isinstance(job, StoreBatch):
                    continue
                try:
                    outcomes[i] = job(session)
                except RecorderError as exc:
                    # Recorder errors are raised before the job writes anything: the group goes on.
                    outcomes[i] = exc
            if batches:
                stored = ingest_batches(
                    session,
                    [(job.recording_id, job.stream, job.events) for _, job in batches],
                    checked=[job.checked for _, job in batches],
                )
                for (i, _), outcome in zip(batches, stored, strict=True):
                    outcomes[i] = outcome
            session.commit()
        return outcomes

    def close(self) -> None:
        """Stop the writer thread once queued work is done."""
        self._executor.shutdown(wait=True)


def get_writer(state: Any) -> IngestWriter:
    """The app's writer (created on first use), kept on `app.state` next to the engine it writes to."""
    engine = state.engine
    writer = getattr(state, "recorder_writer", None)
    if writer is None or writer.engine is not engine:
        writer = IngestWriter(engine)
        state.recorder_writer = writer
    return writer
