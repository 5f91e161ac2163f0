"""Head pose from a camera frame (OpenCV's Haar cascades), through the page's camera.

Only a frontal portrait is at hand offline (matplotlib's sample photograph); it must
read as "centre" (nobody chosen by head pose), a blank frame as "none". Chromium's
fake camera plays the portrait to the immersive page, which posts frames to the server.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import httpx
import pytest
from hui_kit import CHROMIUM_ARGS, PERSON_KEY, join

from accord.web.testing import chromium_env

cv2 = pytest.importorskip("cv2", reason="opencv-python-headless<5 (the headpose extra)")
np = pytest.importorskip("numpy")

pytestmark = pytest.mark.timeout(300)  # a hang guard (a loaded machine is slow, not hung)


@pytest.fixture
def portrait() -> bytes:
    from accord.leagues.humaine.headpose import headpose_available

    if (why := headpose_available()) is not None:
        pytest.skip(why)
    cbook = pytest.importorskip("matplotlib.cbook")
    with cbook.get_sample_data("grace_hopper.jpg") as f:  # a frontal portrait
        return bytes(f.read())


def jpeg(img: Any) -> bytes:
    ok, buf = cv2.imencode(".jpg", img)
    assert ok
    return bytes(buf.tobytes())


def test_a_frontal_face_is_centre_a_blank_frame_none(portrait: bytes) -> None:
    from accord.leagues.humaine.headpose import estimate

    pose = estimate(portrait)
    assert (pose.yaw, pose.faces["frontal"]) == ("centre", 1)
    assert estimate(jpeg(np.full((240, 320, 3), 128, np.uint8))).yaw == "none"
    junk = estimate(b"not an image")
    assert (junk.yaw, junk.why) == ("none", "the frame is not a readable image")


def test_look_route_needs_the_person_and_maps_centre_to_nobody(stage, portrait: bytes) -> None:
    with httpx.Client(base_url=stage["urls"]["ui"], trust_env=False, timeout=30) as c:
        assert c.post("/api/immersive/look", content=portrait).status_code == 401
        join(c, roles=("person",))
        r = c.post("/api/immersive/look", content=portrait)
        assert r.status_code == 200, r.text
        assert r.json() | {"faces": None} == {
            "yaw": "centre", "focus": "", "why": "a frontal face", "faces": None
        }  # fmt: skip
        assert c.post("/api/immersive/look", content=b"").status_code == 422


def y4m(img: Any, path: Path, frames: int = 10) -> Path:
    """A Y4M video (I420) of ``img`` still, for Chromium's fake camera."""
    img = cv2.resize(img, (320, 376))
    h, w = img.shape[:2]
    yuv = cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420).tobytes()
    with open(path, "wb") as f:
        f.write(f"YUV4MPEG2 W{w} H{h} F10:1 Ip A1:1 C420jpeg\n".encode())
        for _ in range(frames):
            f.write(b"FRAME\n" + yuv)
    return path


@pytest.mark.browser
def test_the_page_sends_camera_frames_and_shows_the_head_pose(
    stage, portrait: bytes, playwright: Any, tmp_path: Path
) -> None:
    from playwright.sync_api import expect

    img = cv2.imdecode(np.frombuffer(portrait, np.uint8), cv2.IMREAD_COLOR)
    video = y4m(img, tmp_path / "face.y4m")
    ui = stage["urls"]["ui"]
    browser = playwright.chromium.launch(
        executable_path=shutil.which("chromium"),
        args=[
            *CHROMIUM_ARGS,
            "--use-fake-ui-for-media-stream",
            "--use-fake-device-for-media-stream",
            f"--use-file-for-fake-video-capture={video}",
        ],
        env=chromium_env(),
    )
    try:
        page = browser.new_page()
        page.set_default_timeout(30_000)
        page.goto(f"{ui}/join?key={PERSON_KEY}")
        expect(page.locator("#cam-row")).to_be_visible()
        page.check("#cam")
        expect(page.locator("#cam-msg")).to_have_text("head: centre")
        assert page.locator(".seat.focused").count() == 0
    finally:
        browser.close()
