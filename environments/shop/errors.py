"""The one error the shop's services raise: an HTTP status and a message a shopper can act on."""

from __future__ import annotations


class ShopError(Exception):
    """A refused request; `detail` is shown to the shopper as is."""

    def __init__(self, status_code: int, detail: str) -> None:
        super().__init__(detail)
        self.status_code = status_code
        self.detail = detail
