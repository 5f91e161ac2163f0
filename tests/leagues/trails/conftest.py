"""Browser fixtures of the Colored Trails tests (from accord.web)."""

from accord.web.testing import screenshot, web_browser, web_page  # noqa: F401
