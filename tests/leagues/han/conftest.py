"""Browser fixtures of the HAN league tests (from accord.web)."""

from accord.web.testing import screenshot, second_page, web_browser, web_page  # noqa: F401
