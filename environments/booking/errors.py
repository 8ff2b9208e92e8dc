"""The one error Staywell's services raise: an HTTP status and a message a traveller can act on."""

from __future__ import annotations


class BookingError(Exception):
    """A refused request; `detail` is shown to the traveller as is."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
