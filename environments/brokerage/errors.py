"""The one error Northbeam's services raise: an HTTP status and a message an investor can act on."""

from __future__ import annotations


class BrokerError(Exception):
    """A refused request; `detail` is shown to the investor as is."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
