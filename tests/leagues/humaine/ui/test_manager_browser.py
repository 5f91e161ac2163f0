"""The competition manager's pages in real Chromium, against a real orchestrator."""

from __future__ import annotations

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.timeout(120)]


@pytest.mark.parametrize("platform", ["manager"], indirect=True)
def test_admin_registers_contestants_plans_pools_runs_a_round_and_sees_the_leaderboard(
    browser, platform, tmp_path
):
    from playwright.sync_api import expect

    base = platform["urls"]["manager"]
    ports = platform["ports"]
    ctx = browser.new_context(viewport={"width": 1440, "height": 900})
    ctx.set_default_timeout(30_000)
    page = ctx.new_page()
    page.on("dialog", lambda d: d.accept())

    # admin pages need a login; a wrong password is refused
    page.goto(f"{base}/index.html")
    expect(page).to_have_url(f"{base}/login.html?next=index.html")
    page.fill("input[name=password]", "wrong-password")
    page.click("button[type=submit]")
    expect(page.locator("#msg")).to_have_text("wrong user name or password")
    page.fill("input[name=password]", "manager-pw")
    page.click("button[type=submit]")
    expect(page).to_have_url(f"{base}/index.html")
    expect(page.locator("#who")).to_have_text("admin: admin")

    # register three agents (two real services, one sharing a service) and two humans
    for name, port in (
        ("kleene", ports["Celia"]),
        ("jok", ports["Watson"]),
        ("py", ports["Celia"]),
    ):
        page.fill("#add-agent input[name=name]", name)
        page.fill("#add-agent input[name=port]", str(port))
        page.click("#add-agent button")
        expect(page.locator(f"#agents tr[data-name={name}]")).to_contain_text(str(port))
    page.fill("#add-agent input[name=name]", "kleene")
    page.fill("#add-agent input[name=port]", "1")
    page.click("#add-agent button")
    expect(page.locator("#agent-msg")).to_contain_text("already registered")
    for name in ("alice", "bob"):
        page.fill("#add-human input[name=name]", name)
        page.click("#add-human button")
        expect(page.locator(f"#humans tr[data-name={name}]")).to_be_visible()

    # settings: one pool, short rounds; a dummy agent fills nothing (3 agents, 1 pool)
    page.fill("#settings input[name=nPools]", "1")
    page.select_option("#settings select[name=advance]", "2")
    page.fill("#settings input[name=warmUp]", "0")
    page.fill("#settings input[name=round]", "2")
    page.fill("#settings input[name=post]", "1")
    page.click("#settings button")
    expect(page.locator("#settings-msg")).to_have_text("Settings saved.")
    page.screenshot(path=tmp_path / "manager_contestants.png", full_page=True)
    page.click("#make-pools")
    expect(page.locator("#plan-msg")).to_contain_text("Scheduled 6 pool rounds in 1 pool(s).")

    # the schedule: the pool, six rounds, who uses which utility; show one utility
    expect(page).to_have_url(f"{base}/schedule.html")
    expect(page.locator("#stages [data-group=A]")).to_contain_text("kleene")
    expect(page.locator("#rounds tbody tr")).to_have_count(6)
    page.locator("#rounds tr[data-number='1'] .util-link").first.click()
    expect(page.locator("#utility-title")).to_contain_text("(seller)")
    expect(page.locator("#utility-table")).to_contain_text("egg")

    # start round 1: it runs on the orchestrator and its totals come back to the manager
    page.locator("#rounds tr[data-number='1'] button").click()
    expect(page.locator("#round-msg")).to_have_text("Round 1 started.")
    expect(page.locator("#rounds tr[data-number='1'] .tag")).to_have_text("running")
    expect(page.locator("#rounds tr[data-number='1'] .tag")).to_have_text("done", timeout=30_000)
    expect(page.locator("#rounds tr[data-number='1']")).to_contain_text("0.00 / 0.00 / 0.00")
    page.screenshot(path=tmp_path / "manager_schedule.png", full_page=True)
    page.locator("#next-stage").click()
    expect(page.locator("#stage-msg")).to_contain_text("pool is not finished")

    # the other pool rounds' results (entered by the admin), then the championship final
    skill = {"kleene": 3.0, "jok": 2.0, "py": 1.0}
    earned = dict.fromkeys(skill, 0.0)  # round 1 earned nothing
    for n in range(2, 7):
        row = page.locator(f"#rounds tr[data-number='{n}'] td").all_inner_texts()
        celia, watson = row[4].split(" / ")[0], row[5].split(" / ")[0]
        totals = {"Celia": {"utility": {"value": skill[celia]}},
                  "Watson": {"utility": {"value": skill[watson]}},
                  "Human": {"utility": {"value": 20.0}}}  # fmt: skip
        earned[celia] += skill[celia]
        earned[watson] += skill[watson]
        r = page.request.post(f"{base}/api/rounds/{n}/totals", data={"roundTotals": totals})
        assert r.ok, r.text()
    page.locator("#next-stage").click()
    expect(page.locator("#stage-msg")).to_have_text("Planned the final: 2 rounds.")
    expect(page.locator("#stages [data-group=F]")).to_contain_text("kleene")
    expect(page.locator("#stages [data-group=F]")).to_contain_text("jok")
    expect(page.locator("#rounds tbody tr")).to_have_count(8)

    # the public leaderboard (logged out): accumulated utilities, pool standings
    page.click("#logout")
    expect(page).to_have_url(f"{base}/login.html")
    page.goto(f"{base}/leaderboard.html")
    expect(page.locator("#progress")).to_contain_text("6 of 8 rounds finished; stages: pool, final")
    expect(page.locator("#agents tbody tr").first).to_contain_text("kleene")
    assert earned == {"kleene": 9.0, "jok": 8.0, "py": 3.0}  # 3, 4 and 3 rounds after round 1
    for name, total in earned.items():
        expect(page.locator(f"#agents tr[data-name={name}]")).to_contain_text(f"{total:.2f}")
    expect(page.locator("#humans tbody tr")).to_have_count(2)
    page.screenshot(path=tmp_path / "manager_leaderboard.png", full_page=True)
    ctx.close()
