"""Human reference bundles: a streaming writer, a verifier and a reader.

A bundle is a directory holding one file per table and format (`attempts.parquet`,
`attempts.csv`, ...) and `manifest.json`. The writer takes DataFrame chunks and streams them
to disk (one Parquet row group or one CSV block per chunk), so exporting a study never holds a
whole events table in memory. Column names, dtypes and vocabularies come from `exports.schema`.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from types import TracebackType
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq

from humantrace.exports.csv_safety import ESCAPE, escape_table, unescape_table
from humantrace.exports.schema import (
    ADDED_IN_2_1,
    LIST_SEPARATOR,
    SCHEMA_VERSION,
    SUPPORTED_SCHEMA_VERSIONS,
    TABLES,
    TABLES_BY_VERSION,
    ColumnSpec,
    TableSpec,
    forbidden_reason,
    join_list,
)

FORMATS = ("parquet", "csv")
MANIFEST = "manifest.json"
_CSV_READ = pacsv.ParseOptions(newlines_in_values=True, ignore_empty_lines=False)


class BundleError(ValueError):
    """A bundle cannot be written or read as asked; the message says why."""


def bundle_file_names() -> frozenset[str]:
    """The names of every file a bundle may hold (the only ones `overwrite` removes)."""
    return frozenset({MANIFEST, *(f"{table}.{fmt}" for table in TABLES for fmt in FORMATS)})


def prepare_output_dir(
    path: str | Path, *, owned: frozenset[str], overwrite: bool = False, what: str = "a bundle"
) -> Path:
    """Create `path` as an empty directory for `what`; a clear `BundleError` when it cannot be.

    A file in the way, a place that cannot be created or written, and a directory that already
    holds files are refused. With `overwrite`, the files named in `owned` (what `what` writes)
    are removed first and any other file is left alone.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise BundleError(
            f"{path} is a file; {what} is written into a directory (give a new directory's path)"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        existing = sorted(p.name for p in path.iterdir())
    except OSError as exc:
        raise BundleError(f"cannot create or open {path}: {exc.strerror or exc}") from exc
    if existing and not overwrite:
        listed = ", ".join(existing[:5]) + (", ..." if len(existing) > 5 else "")
        raise BundleError(
            f"{path} is not empty ({listed}); give a new directory, or --force to replace {what} in it"
        )
    try:
        for name in existing:
            if name in owned and (path / name).is_file():
                (path / name).unlink()
        probe = path / ".humantrace-write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise BundleError(f"cannot write into {path}: {exc.strerror or exc}") from exc
    return path


def resumable_output_dir(path: str | Path, *, owned: Iterable[str], what: str) -> Path:
    """Create or reopen `path` as the directory `what` is written into, run after run.

    Unlike :func:`prepare_output_dir` the directory may already hold files (a rerun resumes it),
    so what it would write through is checked instead: `path` itself, or any of the `owned`
    names in it (files and folders `what` writes), being a symbolic link is refused, because a
    write through it would land outside `path`; so is a file in the way. Each refusal is one
    `BundleError` line.
    """
    path = Path(path)
    if path.is_symlink():
        raise BundleError(f"{path} is a symbolic link; {what} is written only into a real directory")
    if path.exists() and not path.is_dir():
        raise BundleError(
            f"{path} is a file; {what} is written into a directory (give a new directory's path)"
        )
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".humantrace-write-check"
        probe.touch()
        probe.unlink()
    except OSError as exc:
        raise BundleError(f"cannot create or write into {path}: {exc.strerror or exc}") from exc
    for name in owned:
        inside = path / name
        if inside.is_symlink():
            raise BundleError(
                f"{inside} is a symbolic link; {what} writes its files only inside {path} (remove the link)"
            )
        if inside.is_dir():
            links = sorted(p.name for p in inside.iterdir() if p.is_symlink())
            if links:
                raise BundleError(
                    f"{inside / links[0]} is a symbolic link; {what} reads and writes only files "
                    f"inside {path} (remove the link)"
                )
    return path


def _package_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("humantrace")
    except PackageNotFoundError:
        return "0+unknown"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _has_list(series: pd.Series) -> bool:
    return bool(series.dtype == object and series.map(lambda v: isinstance(v, (list, tuple))).any())


def _to_arrow_column(spec_col: ColumnSpec, series: pd.Series, table: str) -> pa.Array:
    where = f"{table}.{spec_col.name}"
    try:
        if spec_col.dtype == "str" and _has_list(series):
            series = series.map(join_list)
        if spec_col.dtype == "timestamp":
            series = pd.to_datetime(series, utc=True)
        return pa.array(series, type=spec_col.arrow_type, from_pandas=True)
    except (pa.ArrowInvalid, pa.ArrowTypeError, ValueError, TypeError) as exc:
        raise BundleError(f"{where}: values do not fit dtype {spec_col.dtype}: {exc}") from exc


class BundleWriter:
    """Stream tables into a new bundle directory, then write its manifest on `close`.

    `formats` is any of ("parquet", "csv"). `out_dir` must be absent or empty; with `overwrite`,
    the bundle files already in it are replaced (other files are left). Free-text `comments` are refused unless
    `include_comments=True`; columns that look like addresses, tokens, session ids or credentials
    are always refused. Columns missing from a chunk are written as null (required ones excepted).
    """

    def __init__(
        self,
        out_dir: str | Path,
        *,
        formats: Iterable[str] = ("parquet",),
        include_comments: bool = False,
        overwrite: bool = False,
    ) -> None:
        formats = tuple(dict.fromkeys(formats))
        if not formats or any(f not in FORMATS for f in formats):
            raise BundleError(f"formats must be a non-empty subset of {FORMATS}, got {formats}")
        self.out_dir = prepare_output_dir(out_dir, owned=bundle_file_names(), overwrite=overwrite)
        self.formats = formats
        self.include_comments = include_comments
        self._schemas = {n: s.arrow_schema(include_comments=include_comments) for n, s in TABLES.items()}
        self._parquet: dict[str, pq.ParquetWriter] = {}
        self._csv: dict[str, pacsv.CSVWriter] = {}
        self._csv_sinks: dict[str, pa.NativeFile] = {}
        self._rows = dict.fromkeys(TABLES, 0)
        self._attempt_ids: set[int] = set()
        self._closed = False

    def __enter__(self) -> BundleWriter:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc_type is not None and not self._closed:
            self._close_files()  # leave no manifest: an aborted bundle must not verify
            self._closed = True

    def _path(self, table: str, fmt: str) -> Path:
        return self.out_dir / f"{table}.{fmt}"

    def _convert(self, spec: TableSpec, frame: pd.DataFrame) -> pa.Table:
        columns = [str(c) for c in frame.columns]
        refused = [r for c in columns if (r := forbidden_reason(c, include_comments=self.include_comments))]
        if refused:
            raise BundleError(f"{spec.name}: refused: " + "; ".join(refused))
        known = spec.column_names(include_comments=True)
        unknown = [c for c in columns if c not in known]
        if unknown:
            raise BundleError(f"{spec.name}: unknown columns {unknown}; the bundle schema has {known}")
        schema = self._schemas[spec.name]
        arrays = []
        for name in schema.names:
            col = spec.column(name)
            if name not in frame.columns:
                if col.required:
                    raise BundleError(f"{spec.name}: required column {name!r} is missing")
                arrays.append(pa.nulls(len(frame), type=col.arrow_type))
                continue
            arr = _to_arrow_column(col, frame[name], spec.name)
            if col.required and arr.null_count:
                raise BundleError(f"{spec.name}.{name}: {arr.null_count} null value(s) in a required column")
            if col.allowed is not None:
                bad = sorted({v for v in arr.to_pylist() if v is not None and v not in col.allowed})
                if bad:
                    raise BundleError(f"{spec.name}.{name}: values {bad} not in {list(col.allowed)}")
            arrays.append(arr)
        return pa.Table.from_arrays(arrays, schema=schema)

    def append(self, table: str, frame: pd.DataFrame) -> int:
        """Validate one chunk of `table` and stream it to every format; returns rows written."""
        if self._closed:
            raise BundleError("the bundle writer is closed")
        spec = TABLES.get(table)
        if spec is None:
            raise BundleError(f"unknown table {table!r}; tables are {list(TABLES)}")
        data = self._convert(spec, frame)
        if table == "attempts":
            ids = data.column("attempt_id").to_pylist()
            repeated = {i for i, n in Counter(ids).items() if n > 1}
            dup = sorted(repeated | (set(ids) & self._attempt_ids))
            if dup:
                raise BundleError(f"attempts: duplicate attempt_id {dup[:10]}")
            self._attempt_ids.update(ids)
        self._write(table, data)
        rows: int = data.num_rows
        self._rows[table] += rows
        return rows

    def _write(self, table: str, data: pa.Table) -> None:
        if "parquet" in self.formats:
            if table not in self._parquet:
                self._parquet[table] = pq.ParquetWriter(
                    self._path(table, "parquet"), data.schema, compression="zstd"
                )
            self._parquet[table].write_table(data)
        if "csv" in self.formats:
            if table not in self._csv:
                sink = pa.OSFile(str(self._path(table, "csv")), "wb")
                self._csv_sinks[table] = sink
                self._csv[table] = pacsv.CSVWriter(sink, data.schema)
            self._csv[table].write_table(escape_table(data))  # no text cell a spreadsheet would run

    def _close_files(self) -> None:
        for writer in self._parquet.values():
            writer.close()
        for writer in self._csv.values():
            writer.close()
        for sink in self._csv_sinks.values():
            sink.close()

    def close(
        self, *, study_settings: dict[str, Any] | None = None, cleaning_config: dict[str, Any] | None = None
    ) -> Path:
        """Finish every file (empty tables get a header-only file) and write `manifest.json`."""
        if self._closed:
            raise BundleError("the bundle writer is already closed")
        for table, schema in self._schemas.items():
            if self._rows[table] == 0:
                self._write(table, schema.empty_table())
        self._close_files()
        self._closed = True
        files: dict[str, dict[str, Any]] = {}
        for table in TABLES:
            for fmt in self.formats:
                path = self._path(table, fmt)
                files[path.name] = {
                    "table": table,
                    "format": fmt,
                    "rows": self._rows[table],
                    "bytes": path.stat().st_size,
                    "sha256": _sha256(path),
                }
        manifest = {
            "schema_version": SCHEMA_VERSION,
            "package": "humantrace",
            "package_version": _package_version(),
            "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "formats": list(self.formats),
            "include_comments": self.include_comments,
            "list_separator": LIST_SEPARATOR,
            "csv_formula_escape": ESCAPE,
            "study_settings": study_settings or {},
            "cleaning_config": cleaning_config or {},
            "row_counts": dict(self._rows),
            "tables": {
                name: {
                    "description": spec.description,
                    "columns": [
                        {"name": c.name, "dtype": c.dtype, "description": c.description}
                        for c in spec.columns
                        if c.name in self._schemas[name].names
                    ],
                }
                for name, spec in TABLES.items()
            },
            "files": files,
        }
        path = self.out_dir / MANIFEST
        path.write_text(json.dumps(manifest, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
        return path


def _count_rows(path: Path, fmt: str) -> int:
    if fmt == "parquet":
        rows: int = pq.ParquetFile(path).metadata.num_rows
        return rows
    header = pacsv.open_csv(path, parse_options=_CSV_READ).schema.names
    as_text = pacsv.ConvertOptions(column_types={n: pa.string() for n in header})
    reader = pacsv.open_csv(path, parse_options=_CSV_READ, convert_options=as_text)
    return sum(batch.num_rows for batch in reader)


def read_manifest(path: str | Path) -> dict[str, Any]:
    """The parsed `manifest.json` of a bundle directory."""
    file = Path(path) / MANIFEST
    if not file.is_file():
        raise BundleError(f"{path}: no {MANIFEST}; not a bundle")
    try:
        manifest = json.loads(file.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BundleError(f"{file}: not valid JSON ({exc})") from exc
    if not isinstance(manifest, dict):
        raise BundleError(f"{file}: not a JSON object")
    return manifest


def verify_bundle(path: str | Path) -> list[str]:
    """Every problem found in a bundle (empty list: it verifies).

    Checks: the manifest exists and parses, its schema version is supported, every table has a
    file, and every listed file exists with the recorded sha256 and row count.
    """
    root = Path(path)
    if not root.is_dir():
        return [f"{root}: not a directory"]
    try:
        manifest = read_manifest(root)
    except BundleError as exc:
        return [str(exc)]
    problems = []
    version = manifest.get("schema_version")
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        problems.append(
            f"unknown schema version {version!r} (supported: {sorted(SUPPORTED_SCHEMA_VERSIONS)})"
        )
    files = manifest.get("files") or {}
    listed_tables = {meta.get("table") for meta in files.values()}
    for table in TABLES_BY_VERSION.get(version, tuple(TABLES)) if isinstance(version, str) else tuple(TABLES):
        if table not in listed_tables:
            problems.append(f"table {table!r} has no file in the manifest")
    for name, meta in sorted(files.items()):
        file = root / name
        if not file.is_file():
            problems.append(f"{name}: missing file")
            continue
        if _sha256(file) != meta.get("sha256"):
            problems.append(f"{name}: sha256 mismatch (the file changed after the bundle was written)")
        try:
            rows = _count_rows(file, meta.get("format", file.suffix.lstrip(".")))
        except (pa.ArrowException, OSError) as exc:
            problems.append(f"{name}: cannot be read ({exc})")
            continue
        if rows != meta.get("rows"):
            problems.append(f"{name}: {rows} rows, manifest says {meta.get('rows')}")
    return problems


def _pandas_types(dtype: pa.DataType) -> pd.api.extensions.ExtensionDtype | None:
    # Nullable integer and boolean columns keep their type instead of turning into floats/objects.
    if pa.types.is_integer(dtype):
        return pd.Int64Dtype()
    if pa.types.is_boolean(dtype):
        return pd.BooleanDtype()
    return None


@dataclass
class Bundle:
    """A bundle read into DataFrames (a table that was not asked for is None)."""

    path: Path
    manifest: dict[str, Any]
    attempts: pd.DataFrame | None = None
    events_raw: pd.DataFrame | None = None
    events_clean: pd.DataFrame | None = None
    verdicts: pd.DataFrame | None = None
    ratings: pd.DataFrame | None = None
    semantic_events: pd.DataFrame | None = None
    backend_audit: pd.DataFrame | None = None
    event_checks: pd.DataFrame | None = None

    @property
    def schema_version(self) -> str:
        return str(self.manifest.get("schema_version"))

    def table(self, name: str) -> pd.DataFrame:
        """A table that was read (a clear BundleError for one that was not asked for)."""
        frame = getattr(self, name, None)
        if not isinstance(frame, pd.DataFrame):
            raise BundleError(f"{self.path}: table {name!r} was not read")
        return frame


def _empty_table(table: str) -> pd.DataFrame:
    """A table with its schema's columns and no rows (a table an older bundle version lacks)."""
    schema = TABLES[table].arrow_schema(include_comments=False)
    frame: pd.DataFrame = schema.empty_table().to_pandas(types_mapper=_pandas_types)
    return frame


def _add_missing_columns(table: str, frame: pd.DataFrame) -> pd.DataFrame:
    """Columns added to the schema after the bundle's version read back as null (or as the value
    an older bundle implies: `ui_profile` 'default')."""
    implied = ADDED_IN_2_1.get(table, {})
    for col in TABLES[table].columns:
        if col.name in implied and col.name not in frame.columns:
            frame[col.name] = pd.Series([implied[col.name]] * len(frame), index=frame.index, dtype=object)
        elif col.name not in frame.columns and col.name != "comments":
            frame[col.name] = pd.Series(
                pa.nulls(len(frame), type=col.arrow_type).to_pandas(types_mapper=_pandas_types),
                index=frame.index,
            )
    return frame


def _read_table(root: Path, table: str, fmt: str, *, csv_escape: str | None = None) -> pd.DataFrame:
    file = root / f"{table}.{fmt}"
    if fmt == "parquet":
        data = pq.read_table(file)
    else:
        header = pacsv.open_csv(file, parse_options=_CSV_READ).schema.names
        spec = TABLES[table]
        known = {c.name: c.arrow_type for c in spec.columns}
        types = {n: known.get(n, pa.string()) for n in header}
        convert = pacsv.ConvertOptions(
            column_types=types, strings_can_be_null=True, quoted_strings_can_be_null=False
        )
        data = pacsv.read_csv(file, parse_options=_CSV_READ, convert_options=convert)
        if csv_escape == ESCAPE:  # written with formula neutralisation (schema 2.0 on): undo it
            data = unescape_table(data)
    frame: pd.DataFrame = data.to_pandas(types_mapper=_pandas_types)
    return frame


def read_bundle(path: str | Path, *, tables: list[str] | None = None, verify: bool = False) -> Bundle:
    """Read a bundle's tables into DataFrames, from Parquet when present, else from CSV.

    `tables` limits what is loaded (events tables can be large). With `verify=True` a bundle
    that fails `verify_bundle` raises BundleError listing the problems. A schema-1.0 bundle reads
    with the tables added in 2.0 empty and the columns added in 2.0 null.
    """
    root = Path(path)
    if verify:
        problems = verify_bundle(root)
        if problems:
            raise BundleError(f"{root} does not verify: " + "; ".join(problems))
    manifest = read_manifest(root)
    version = manifest.get("schema_version")
    if version not in SUPPORTED_SCHEMA_VERSIONS:
        raise BundleError(
            f"{root}: unknown schema version {version!r} (supported: {sorted(SUPPORTED_SCHEMA_VERSIONS)})"
        )
    present = TABLES_BY_VERSION[version]
    wanted = list(TABLES) if tables is None else tables
    loaded: dict[str, pd.DataFrame] = {}
    for table in wanted:
        if table not in TABLES:
            raise BundleError(f"unknown table {table!r}")
        if table not in present:
            loaded[table] = _empty_table(table)
            continue
        fmt = next((f for f in FORMATS if (root / f"{table}.{f}").is_file()), None)
        if fmt is None:
            raise BundleError(f"{root}: table {table!r} has neither a Parquet nor a CSV file")
        loaded[table] = _add_missing_columns(
            table, _read_table(root, table, fmt, csv_escape=manifest.get("csv_formula_escape"))
        )
    return Bundle(path=root, manifest=manifest, **loaded)
