"""Browser fixtures of the HAN league tests (from accord.web)."""

from accord.web.testing import screenshot, web_browser, web_page  # noqa: F401
