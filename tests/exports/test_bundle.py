"""The bundle format: streaming writer, privacy guard, verification and reading back."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from humantrace.exports.bundle import BundleError, BundleWriter, read_bundle, verify_bundle
from humantrace.exports.schema import TABLES


def _attempt(**overrides) -> dict:
    row = {
        "attempt_id": 1,
        "annotator": "A1",
        "env_id": "shop",
        "task_id": "t1",
        "difficulty": "easy",
        "condition": "clean",
        "phase": "cold",
        "tier": "primary",
        "assignment_id": 1,
        "wall_clock_s": 12.5,
        "raw_events": 30,
        "score": 1.0,
        "passed": True,
        "outcome": "evaluated",
        "rolled_back": False,
    }
    row.update(overrides)
    return row


def test_fresh_bundle_verifies_and_manifest_describes_it(study_bundle: Path):
    assert verify_bundle(study_bundle) == []
    manifest = json.loads((study_bundle / "manifest.json").read_text())
    assert manifest["schema_version"] == "2.2"
    assert manifest["formats"] == ["parquet", "csv"]
    # 20 primary + 4 duplicate + 1 rolled back attempts; 3 attempts x 7 raw events; 2 checks per attempt.
    assert manifest["row_counts"] == {
        "attempts": 25,
        "events_raw": 21,
        "events_clean": 3,
        "verdicts": 50,
        "ratings": 1,
        "semantic_events": 2,
        "backend_audit": 3,
        "event_checks": 4,
    }
    assert manifest["study_settings"] == {"k_per_cell": 1, "seed": 42, "show_pass_fail": False}
    assert manifest["cleaning_config"]["scroll_window_ms"] == 400
    assert set(manifest["files"]) == {f"{t}.{f}" for t in TABLES for f in ("parquet", "csv")}
    assert all(len(meta["sha256"]) == 64 for meta in manifest["files"].values())
    assert manifest["created_at"] and manifest["package_version"]


def test_editing_one_byte_breaks_verification(study_bundle: Path):
    target = study_bundle / "attempts.csv"
    data = bytearray(target.read_bytes())
    position = data.index(b"A2")  # an annotator id inside a data row
    data[position + 1 : position + 2] = b"3"  # A2 -> A3: same size, one byte changed
    target.write_bytes(bytes(data))
    problems = verify_bundle(study_bundle)
    assert problems == ["attempts.csv: sha256 mismatch (the file changed after the bundle was written)"]


def test_missing_file_row_count_and_schema_version_are_reported(study_bundle: Path):
    (study_bundle / "ratings.parquet").unlink()
    manifest_path = study_bundle / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["schema_version"] = "9.9"
    manifest["files"]["verdicts.csv"]["rows"] = 49
    manifest_path.write_text(json.dumps(manifest))
    problems = verify_bundle(study_bundle)
    assert "ratings.parquet: missing file" in problems
    assert "verdicts.csv: 50 rows, manifest says 49" in problems
    assert any(p.startswith("unknown schema version '9.9'") for p in problems)


def test_not_a_bundle(tmp_path: Path):
    assert verify_bundle(tmp_path) == [f"{tmp_path}: no manifest.json; not a bundle"]


def test_chunks_stream_into_one_table_with_one_csv_header(tmp_path: Path):
    out = tmp_path / "b"
    events = [
        pd.DataFrame(
            {"attempt_id": [1] * 3, "seq": [i, i + 1, i + 2], "t_ms": [10 * i] * 3, "type": ["click"] * 3}
        )
        for i in (0, 3, 6)
    ]
    with BundleWriter(out, formats=("parquet", "csv")) as writer:
        for chunk in events:
            writer.append("events_raw", chunk)
        writer.close()
    text = (out / "events_raw.csv").read_text()
    assert text.count('"attempt_id","stream","seq"') == 1
    assert verify_bundle(out) == []
    for fmt in ("parquet", "csv"):
        if fmt == "parquet":
            back = read_bundle(out, tables=["events_raw"]).table("events_raw")
        else:
            (out / "events_raw.parquet").rename(out / "events_raw.hidden")
            back = read_bundle(out, tables=["events_raw"]).table("events_raw")
        assert back["seq"].tolist() == list(range(9))
        assert list(back.columns) == [c.name for c in TABLES["events_raw"].columns]


@pytest.mark.parametrize(
    "column", ["client_ip", "ip", "remote_addr", "recorder_token", "session_id", "password"]
)
def test_writer_refuses_forbidden_columns(tmp_path: Path, column: str):
    writer = BundleWriter(tmp_path / "b")
    with pytest.raises(BundleError, match="refused"):
        writer.append("attempts", pd.DataFrame([_attempt(**{column: "x"})]))


def test_writer_refuses_unknown_columns_bad_vocabulary_and_duplicate_ids(tmp_path: Path):
    writer = BundleWriter(tmp_path / "b")
    with pytest.raises(BundleError, match="unknown columns"):
        writer.append("attempts", pd.DataFrame([_attempt(favourite_colour="blue")]))
    with pytest.raises(BundleError, match="values \\['dirty'\\] not in"):
        writer.append("attempts", pd.DataFrame([_attempt(condition="dirty")]))
    with pytest.raises(BundleError, match="required column 'score' is missing"):
        writer.append("attempts", pd.DataFrame([_attempt()]).drop(columns=["score"]))
    writer.append("attempts", pd.DataFrame([_attempt()]))
    with pytest.raises(BundleError, match="duplicate attempt_id \\[1\\]"):
        writer.append("attempts", pd.DataFrame([_attempt()]))


def test_writer_needs_an_empty_directory(tmp_path: Path):
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "old.txt").write_text("x")
    with pytest.raises(BundleError, match="not empty"):
        BundleWriter(tmp_path / "b")


def test_comments_are_withheld_unless_asked_for(tmp_path: Path):
    rating = {
        "assignment_id": 7,
        "annotator": "A1",
        "task_id": "t1",
        "condition": "clean",
        "clarity": 2,
        "comments": "the button moved",
    }
    plain = BundleWriter(tmp_path / "plain", formats=("parquet", "csv"))
    with pytest.raises(BundleError, match="comments are withheld"):
        plain.append("ratings", pd.DataFrame([rating]))
    plain.append("ratings", pd.DataFrame([{k: v for k, v in rating.items() if k != "comments"}]))
    plain.append("attempts", pd.DataFrame([_attempt(clarity=2)]))
    plain.close()
    for table in ("ratings", "attempts"):
        assert "comments" not in getattr(read_bundle(tmp_path / "plain", tables=[table]), table).columns
        assert "comments" not in (tmp_path / "plain" / f"{table}.csv").read_text().splitlines()[0]

    full = BundleWriter(tmp_path / "full", include_comments=True)
    full.append("ratings", pd.DataFrame([rating]))
    full.close()
    back = read_bundle(tmp_path / "full", tables=["ratings"]).table("ratings")
    assert back["comments"].tolist() == ["the button moved"]
    assert json.loads((tmp_path / "full" / "manifest.json").read_text())["include_comments"] is True


def test_csv_only_bundle_reads_like_the_parquet_one(tmp_path: Path, make_study_bundle):
    both = read_bundle(make_study_bundle(tmp_path / "both")).table("attempts")
    csv_only = make_study_bundle(tmp_path / "csv", formats=("csv",))
    assert verify_bundle(csv_only) == []
    from_csv = read_bundle(csv_only).table("attempts")
    pd.testing.assert_frame_equal(both, from_csv)
    assert from_csv.loc[0, "primitives"] == "grounding;planning"
    assert str(from_csv["started_at"].dtype) == "datetime64[ms, UTC]"


def test_aborted_writer_leaves_no_manifest(tmp_path: Path):
    with pytest.raises(RuntimeError):
        with BundleWriter(tmp_path / "b") as writer:
            writer.append("attempts", pd.DataFrame([_attempt()]))
            raise RuntimeError("export interrupted")
    assert not (tmp_path / "b" / "manifest.json").exists()
    assert verify_bundle(tmp_path / "b") == [f"{tmp_path / 'b'}: no manifest.json; not a bundle"]


@pytest.mark.parametrize("content", ["[]", '"a bundle"', "3"])
def test_manifest_that_is_not_an_object_is_a_clear_error(tmp_path: Path, content: str):
    # Valid JSON that is not an object used to crash verify_bundle and read_bundle with an
    # AttributeError (`.get` on a list); it is a bundle problem like any other.
    (tmp_path / "manifest.json").write_text(content, encoding="utf-8")
    assert verify_bundle(tmp_path) == [f"{tmp_path / 'manifest.json'}: not a JSON object"]
    with pytest.raises(BundleError, match="not a JSON object"):
        read_bundle(tmp_path)


def _as_schema_2_0(root: Path, *, version: str = "2.0", drop: tuple[str, ...] = ("ui_profile",)) -> None:
    """Rewrite a fresh bundle as an older schema wrote it: without the attempts columns `drop`
    (2.0: no ui_profile; 2.1: no away_s)."""
    import hashlib

    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    manifest = json.loads((root / "manifest.json").read_text())
    for fmt in ("parquet", "csv"):
        file = root / f"attempts.{fmt}"
        if not file.is_file():
            continue
        data = pq.read_table(file) if fmt == "parquet" else pacsv.read_csv(file)
        data = data.drop_columns(list(drop))
        if fmt == "parquet":
            pq.write_table(data, file)
        else:
            pacsv.write_csv(data, file)
        manifest["files"][file.name]["sha256"] = hashlib.sha256(file.read_bytes()).hexdigest()
    manifest["schema_version"] = version
    (root / "manifest.json").write_text(json.dumps(manifest))


def test_ui_profile_is_written_and_a_2_0_bundle_reads_as_default(tmp_path: Path):
    out = tmp_path / "b"
    with BundleWriter(out, formats=("parquet", "csv")) as writer:
        writer.append(
            "attempts",
            pd.DataFrame([_attempt(ui_profile="default"), _attempt(attempt_id=2, ui_profile="icon-buttons")]),
        )
        writer.close()
    assert verify_bundle(out) == []
    assert read_bundle(out, tables=["attempts"]).table("attempts")["ui_profile"].tolist() == [
        "default",
        "icon-buttons",
    ]
    _as_schema_2_0(out)
    assert verify_bundle(out) == []
    for fmt in ("parquet", "csv"):
        if fmt == "csv":
            (out / "attempts.parquet").rename(out / "attempts.hidden")
        back = read_bundle(out, tables=["attempts"]).table("attempts")
        assert back["ui_profile"].tolist() == ["default", "default"]


def test_away_s_is_written_and_a_2_1_bundle_reads_it_as_null(tmp_path: Path):
    out = tmp_path / "b"
    with BundleWriter(out, formats=("parquet", "csv")) as writer:
        writer.append("attempts", pd.DataFrame([_attempt(away_s=41.5), _attempt(attempt_id=2, away_s=None)]))
        writer.close()
    written = read_bundle(out, tables=["attempts"]).table("attempts")["away_s"].tolist()
    assert written[0] == 41.5 and pd.isna(written[1])
    _as_schema_2_0(out, version="2.1", drop=("away_s",))
    assert verify_bundle(out) == []
    for fmt in ("parquet", "csv"):
        if fmt == "csv":
            (out / "attempts.parquet").rename(out / "attempts.hidden")
        back = read_bundle(out, tables=["attempts"]).table("attempts")
        assert back["away_s"].isna().all()
