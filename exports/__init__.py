"""humantrace: exports (offline; never imports the web app).

- `exports.bundle`: BundleWriter, verify_bundle, read_bundle (format in `exports.schema`)
- `exports.agents`: import_agent_runs; `exports.failure_modes`: classify_failure(s)
- `exports.compare`: compare(human_bundle_dir, agent_files, out_dir, ...) -> CompareResult
See docs/exports.md.
"""
