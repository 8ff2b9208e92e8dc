"""Column types shared by the tables of every package."""

from __future__ import annotations

from enum import StrEnum
from typing import Any, TypeVar

from sqlalchemy import String
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

E = TypeVar("E", bound=StrEnum)


class EnumText(TypeDecorator[E]):
    """A `StrEnum` stored as its value in a short text column (the schema stays VARCHAR(n)).

    Rows read back as enum members, so code compares and assigns members, never `.value`; writing a
    string outside the enum fails before the database sees it, naming the column's allowed values."""

    impl = String
    cache_ok = True

    def __init__(self, enum: type[E], length: int = 16) -> None:
        super().__init__(length)
        self.enum = enum

    def process_bind_param(self, value: Any, dialect: Dialect) -> str | None:
        if value is None:
            return None
        try:
            return self.enum(value).value
        except ValueError:
            allowed = ", ".join(member.value for member in self.enum)
            raise ValueError(f"{value!r} is not a {self.enum.__name__} (one of {allowed})") from None

    def process_result_value(self, value: Any, dialect: Dialect) -> E | None:
        return None if value is None else self.enum(value)
