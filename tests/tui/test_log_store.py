"""The log store's batched append keeps what a line-by-line store would: the text read back
(from memory and from the file), the streams, the error lines and the width."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pto_tui.tui.widgets.log_store import ERROR_RE, STDERR, STREAM_CODES, LineStore, clean

WORDS = ["ok", "error", "Error:", "errors", "FAILED", "failure", "fatal", "Traceback",
         "test failed", "\x1b[31mred\x1b[0m", "\ttab", "é", "İstanbul", "ß", "日本", "warn"]
line_text = st.lists(st.sampled_from(WORDS), max_size=6).map(" ".join)
batch = st.lists(st.tuples(st.sampled_from(["stdout", "stderr", "meta"]), line_text),
                 min_size=1, max_size=30)


def expected_errors(batches: list[list[tuple[str, str]]]) -> list[int]:
    lines = [line for b in batches for line in b]
    return [i for i, (stream, text) in enumerate(lines)
            if stream == "stderr" or ERROR_RE.search(clean(text).lower())]


@settings(max_examples=200, deadline=None)
@given(st.lists(batch, min_size=1, max_size=5))
def test_batched_append_matches_line_by_line(batches: list[list[tuple[str, str]]]) -> None:
    store = LineStore(memory_lines=7)  # most lines are read back from the file
    try:
        for b in batches:
            store.append(b)
        lines = [line for b in batches for line in b]
        assert len(store) == len(lines)
        for i, (stream, text) in enumerate(lines):
            assert store.line(i) == clean(text)
            assert store.stream(i) == STREAM_CODES[stream]
        assert store.errors.tolist() == expected_errors(batches)
        assert store.width == max(len(clean(text)) for _s, text in lines)
    finally:
        store.close()


def test_error_words_are_whole_words_in_any_case() -> None:
    store = LineStore()
    try:
        store.append([("stdout", "3 errors found"), ("stdout", "ERROR: bad tile"),
                      ("stdout", "all ok"), ("stderr", "a warning"),
                      ("stdout", "kernel Test Failed"), ("stdout", "unfatal")])
        assert store.errors.tolist() == [1, 3, 4]
        assert store.stream(3) == STDERR
    finally:
        store.close()
