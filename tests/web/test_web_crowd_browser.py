"""A crowd participant's whole way in Chromium at 1280x720: consent, instructions (shown
as text), the task, then the completion code and the return link."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from accord.web.testing import ServerThread, enter_study, open_page

pytestmark = [pytest.mark.browser, pytest.mark.timeout(180)]

VIEWPORT = {"width": 1280, "height": 720}


def _within(page: Any, ids: list[str]) -> None:
    for i in ids:
        box = page.locator(f"#{i}").bounding_box()
        assert box is not None and box["y"] + box["height"] <= VIEWPORT["height"], (i, box)


def test_a_crowd_participant_reads_instructions_and_gets_the_code(
    tmp_path: Path, web_browser: Any
) -> None:
    from tiny_league import DESIGN, PAGES, Ultimatum

    from accord.web.study import Study, create_study_app

    design = DESIGN.model_copy(
        update={
            "rounds": 1,
            "instructions": "Split 100 points.\n\n<b>Bold?</b> No: this is text.",
            "completion_code": "PROLIFIC42",
            "return_url": "https://app.prolific.com/submissions/complete?cc=PROLIFIC42",
        }
    )
    study = Study(tmp_path / "s.sqlite", design, password="pw-view")
    app = create_study_app(study, Ultimatum(study), pages={"/": str(PAGES)})
    page = open_page(web_browser, viewport=VIEWPORT)
    with ServerThread(app) as srv:
        (inv,) = study.invite(1)
        enter_study(page, srv.url + inv.path, "/study/instructions.html")
        page.wait_for_selector("#begin:not([disabled])")
        assert "<b>Bold?</b> No: this is text." in page.inner_text("#text")
        _within(page, ["begin"])
        page.click("#begin")
        page.wait_for_url("**/task.html")
        page.click("#offer")
        page.wait_for_selector("#next:not(.hidden)")
        page.click("#next")
        page.wait_for_url("**/study/done.html")
        page.wait_for_selector("#completion:not([hidden])")
        assert page.inner_text("#code") == "PROLIFIC42"
        assert page.get_attribute("#return", "href") == design.return_url
        page.context.close()
