"""Getting the recorder into pages: the middleware on environment pages, the snippet, the init script."""

from __future__ import annotations

import html
import json
import re

import httpx

from humantrace.recorder.inject import init_script, insert_script, snippet


def get(server, path: str, token: str | None = None) -> httpx.Response:
    cookies = {"htrec": token} if token else None
    with httpx.Client(base_url=server.base_url, cookies=cookies, timeout=10) as client:
        return client.get(path)


def test_environment_page_gets_the_script_before_head_close(live_server):
    rid, token = live_server.new_recording(mask_all_text=True, mousemove_sample_ms=40)
    r = get(live_server, "/env/plain.html", token)
    assert r.status_code == 200
    assert int(r.headers["content-length"]) == len(r.content)
    tag = re.search(r"<script [^>]*></script>", r.text).group(0)
    assert r.text.index(tag) < r.text.index("</head>")
    assert 'src="/recorder/recorder.js"' in tag and f'data-token="{token}"' in tag
    assert 'data-server=""' in tag and 'data-mask-all="true"' in tag and 'data-mousemove-ms="40"' in tag
    assert "Hello from a plain environment page." in r.text
    # Never cached or revalidated: a cached copy would carry an older attempt's token.
    assert (
        r.headers["cache-control"] == "no-store"
        and "etag" not in r.headers
        and "last-modified" not in r.headers
    )
    untouched = get(live_server, "/env/plain.html")
    with httpx.Client(base_url=live_server.base_url, cookies={"htrec": token}, timeout=10) as client:
        again = client.get("/env/plain.html", headers={"If-None-Match": untouched.headers["etag"]})
    assert again.status_code == 200 and tag in again.text


def test_page_without_head_gets_the_script_after_body_open(live_server):
    _, token = live_server.new_recording()
    r = get(live_server, "/env/nohead.html", token)
    assert re.search(r'<body class="x"><script src="/recorder/recorder.js"[^>]*></script><p>', r.text)
    assert int(r.headers["content-length"]) == len(r.content)


def test_pages_are_untouched_without_a_live_token(live_server):
    original = (live_server.base_url, "/env/plain.html")
    plain = get(live_server, original[1]).text
    assert "recorder.js" not in plain
    assert get(live_server, "/env/plain.html", "not-a-real-token").text == plain
    rid, token = live_server.new_recording()
    live_server.end(rid)
    assert get(live_server, "/env/plain.html", token).text == plain
    # Not HTML: never touched, even with a valid token.
    _, token = live_server.new_recording()
    assert get(live_server, "/env/data.json", token).json() == {"not": "html"}
    # Outside the environment prefix: never touched.
    assert "<script" not in get(live_server, "/recorder/events", token).text


def test_snippet_and_init_script_configure_the_recorder():
    tag = snippet(
        server_url="https://rec.example.org/", token="abc.DEF-1_2", mask_all_text=True, mousemove_sample_ms=0
    )
    assert tag.startswith('<script src="https://rec.example.org/recorder/recorder.js"')
    assert 'data-server="https://rec.example.org"' in tag and 'data-token="abc.DEF-1_2"' in tag
    assert 'data-mask-all="true"' in tag and 'data-mousemove-ms="0"' in tag
    assert html.escape('"><x>', quote=True) in snippet(server_url="https://a", token='"><x>')

    source = init_script(server_url="http://127.0.0.1:9/", token="tok", mousemove_sample_ms=25)
    first_line, rest = source.split("\n", 1)
    assert first_line.startswith("window.HUMANTRACE_RECORDER = ")
    config = json.loads(first_line[len("window.HUMANTRACE_RECORDER = ") : -1])
    assert config == {
        "server": "http://127.0.0.1:9",
        "token": "tok",
        "maskAllText": False,
        "mousemoveSampleMs": 25,
        "debug": False,
    }
    assert "humantrace recorder" in rest


def test_insert_script_positions():
    tag = b"<script></script>"
    assert insert_script(b"<html><HEAD><title>t</title></HEAD ><body></body></html>", tag) == (
        b"<html><HEAD><title>t</title><script></script></HEAD ><body></body></html>"
    )
    assert insert_script(b"<p>fragment</p>", tag) == b"<script></script><p>fragment</p>"
