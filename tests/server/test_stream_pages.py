"""A stream's page reads no more events than it sends: each event read is decoded, so once a
page is cut at its size limit the next one reads only as many events as that page held, and a
page that held all it read lets the next read as many as fill a page at that size. The whole
history still arrives, in order, with nothing left out."""

from jupyter_plans import PlanStore
from jupyter_plans.server.sse import MAX_PAGE, MAX_PAGE_CHARS, _page

STEPS = [{"id": f"s{i}", "description": "x" * 200 + f" step {i}"} for i in range(12)]


def test_a_page_of_large_events_reads_what_it_sends(tmp_path):
    with PlanStore(tmp_path / "long.plans.sqlite") as store:
        session = store.session("default")
        for revision in range(1200):
            args = {"expected_revision": revision, "steps": STEPS}
            assert not session.call_tool("update_plan", args).is_error
        seen, after, limit, reads = [], 0, MAX_PAGE, []
        while True:
            text, last, more, _, following = _page(session, after, limit)
            reads.append(limit)
            seen += [int(line[4:]) for line in text.splitlines() if line.startswith("id: ")]
            assert len(text) < MAX_PAGE_CHARS + 10_000, len(text)
            after, limit = last, following
            if not more:
                break
        assert seen == list(range(1, session.cursor() + 1))
        held = len(seen) // (len(reads) - 1)
        # The first page read 1,000 events; each page after it read about what one page holds.
        assert reads[0] == MAX_PAGE and max(reads[1:]) <= held + 1, (reads, held)


def test_a_page_that_held_all_it_read_reads_more_next(tmp_path):
    with PlanStore(tmp_path / "short.plans.sqlite") as store:
        session = store.session("default")
        for revision in range(40):
            args = {"expected_revision": revision, "steps": STEPS[:1]}
            assert not session.call_tool("update_plan", args).is_error
        text, last, more, _, following = _page(session, 0, 10)
        fill = -(-10 * MAX_PAGE_CHARS // len(text))
        assert (last, more, following) == (10, True, min(MAX_PAGE, fill)) and following > 100
        _, last, more, _, following = _page(session, last, following)
        assert (last, more) == (40, False)
