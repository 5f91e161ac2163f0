"""A coarse head pose from one camera frame, offline: left, right, centre or none.

Uses the Haar cascades shipped in ``opencv-python-headless`` (4.x; 5.x ships none): the
frontal-face cascade firing means the person faces the screen ("centre"); the profile
cascade (trained on faces turned to one side) firing on the frame or on its mirror
image tells which way the head is turned. The camera is assumed in front of the
person, between the avatars, its image not mirrored: a head turned towards the
screen's left (Celia) shows its face pointing to the image's right.

This is coarse (three bins, no angle) and needs a lit face of at least 60 pixels; it
is the best an offline model from a package gives here. Without OpenCV the page keeps
the addressee rules "name in utterance" and "last avatar clicked".

Example::

    pose = estimate(open("frame.jpg", "rb").read())
    pose.yaw  # "left" | "right" | "centre" | "none"
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any

__all__ = ["Pose", "estimate", "headpose_available"]

MIN_FACE = 60


@dataclass(frozen=True)
class Pose:
    """``yaw``: where the person looks (their view); ``faces``: detections per cascade."""

    yaw: str
    faces: dict[str, int]
    why: str


def headpose_available() -> str | None:
    """Why head pose cannot run here (None when it can)."""
    try:
        import cv2
    except ImportError:
        return "opencv-python-headless is not installed (pip install 'opencv-python-headless<5')"
    if not hasattr(cv2, "CascadeClassifier"):
        return f"OpenCV {cv2.__version__} has no Haar cascades (use opencv-python-headless<5)"
    return None


@lru_cache(maxsize=1)
def _cascades() -> tuple[Any, Any]:
    import cv2

    root = str(getattr(cv2, "data").haarcascades)  # noqa: B009 (not in the stubs)
    frontal = cv2.CascadeClassifier(root + "haarcascade_frontalface_default.xml")
    profile = cv2.CascadeClassifier(root + "haarcascade_profileface.xml")
    return frontal, profile


def estimate(frame: bytes) -> Pose:
    """The coarse yaw of the largest face in an encoded image (JPEG, PNG)."""
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(frame, np.uint8), cv2.IMREAD_GRAYSCALE)
    if img is None:
        return Pose("none", {}, "the frame is not a readable image")
    img = cv2.equalizeHist(img)
    frontal, profile = _cascades()
    size = (MIN_FACE, MIN_FACE)
    found = {
        "frontal": len(frontal.detectMultiScale(img, 1.1, 5, minSize=size)),
        # the profile cascade finds faces pointing to the image's left: the person's
        # head turned to their right; on the mirror image, turned to their left
        "turned_right": len(profile.detectMultiScale(img, 1.1, 5, minSize=size)),
        "turned_left": len(profile.detectMultiScale(cv2.flip(img, 1), 1.1, 5, minSize=size)),
    }
    if found["frontal"] and not (found["turned_left"] or found["turned_right"]):
        return Pose("centre", found, "a frontal face")
    if found["turned_left"] > found["turned_right"]:
        return Pose("left", found, "a profile turned to the person's left")
    if found["turned_right"] > found["turned_left"]:
        return Pose("right", found, "a profile turned to the person's right")
    if found["frontal"]:
        return Pose("centre", found, "a frontal face (profiles undecided)")
    return Pose("none", found, "no face found")
