"""The installed service under a real systemd: install.sh as a builder runs it, READY, the
watchdog, a SIGKILL mid-game, the state directory, the journal, the sandbox's score, the
page's token."""

from __future__ import annotations

import re

from tests.system import steps


def test_install_sh_installs_from_the_wheels_and_starts_the_service(machine, installed):
    result = installed.result
    assert result.ok, result.describe()
    out = result.stdout
    assert "magboard install: created venv: /opt/magboard" in out
    assert "magboard install: installed magboard[pi] into /opt/magboard" in out
    # The builder's config (written before, as on an update) is kept, not overwritten.
    assert "kept existing config: /etc/magboard/config.toml" in out
    assert "magboard install: done." in out
    # Nothing to fetch: the packages the installer needs are the machine's already.
    assert "apt-get" not in out
    assert machine.run("systemctl", "is-enabled", "magboard").stdout.strip() == "enabled"
    for module in ("gpiod", "neopixel_spi", "serial", "board_driver"):
        machine.run(steps.VENV_PYTHON, "-c", f"import {module}", check=True)
    link = machine.run("readlink", "/usr/local/bin/magboard").stdout.strip()
    assert link == "/opt/magboard/bin/magboard"
    print(f"install.sh took {installed.seconds:.0f} s in the machine")


def test_the_service_sends_ready_within_its_start_budget(service):
    # The first start, by install.sh: held to the unit's own TimeoutStartSec (30 s), not to
    # the emulation's allowance (steps.EMULATION_DROP_IN).
    props = steps.show(service, "ExecMainStartTimestampMonotonic",
                       "ActiveEnterTimestampMonotonic", "Type", "NotifyAccess")
    started = int(props["ExecMainStartTimestampMonotonic"])
    ready = int(props["ActiveEnterTimestampMonotonic"])
    assert props["Type"] == "notify"
    seconds = (ready - started) / 1e6
    assert 0 < seconds < steps.READY_BUDGET_S, f"READY {seconds:.1f} s after the start"
    print(f"READY {seconds:.1f} s after the process started (emulated machine)")


def test_the_state_directory_belongs_to_the_service_and_holds_the_games(service):
    listing = service.run("stat", "-c", "%U:%G %a %n", "/var/lib/magboard",
                          "/var/lib/magboard/magboard.sqlite", "/var/lib/magboard/web-token",
                          check=True).stdout.splitlines()  # fmt: skip
    directory, store, token = listing
    assert directory == "magboard:magboard 750 /var/lib/magboard"
    # UMask=0077: the games and the token are the service's alone.
    assert store.startswith("magboard:magboard 600 ")
    assert token.startswith("magboard:magboard 600 ")
    assert "magboard.sqlite" in service.run("ls", "/var/lib/magboard").stdout


def test_the_journal_says_where_the_board_is_and_what_it_plays(service):
    text = steps.journal(service)
    assert re.search(r"web page token for actions: \S+ \(kept in /var/lib/magboard/web-token\)",
                     text), text[-2000:]
    # The board itself (not the simulator), and where the games are.
    assert re.search(r"^ready: game \d+ at ply \d+, board, store "
                     r"/var/lib/magboard/magboard.sqlite$", text, re.M), text[-2000:]
    # The journal's own priority: nothing was logged as an error during a clean start.
    errors = service.run("journalctl", "-u", "magboard", "-b", "-p", "err", "--no-pager",
                         "-o", "cat").stdout  # fmt: skip
    assert "Traceback" not in errors, errors


def test_systemd_analyze_security_inside_rates_the_running_unit_at_most_1_5(service):
    out = service.run("systemd-analyze", "security", "--no-pager", "magboard.service",
                      timeout=120).stdout  # fmt: skip
    match = re.search(r"Overall exposure level for magboard.service: (\d+\.\d+)", out)
    assert match, out[-3000:]
    assert float(match.group(1)) <= 1.5, out[-3000:]
    print(f"systemd-analyze security inside: {match.group(1)}")


def test_the_page_serves_anyone_but_acts_only_with_the_token(service):
    state = steps.page(service, "GET", "/api/state")
    assert state["status"] == 200
    body = '{"button": "hint"}'
    assert steps.page(service, "POST", "/api/button", body)["status"] == 401
    assert steps.page(service, "POST", "/api/button", body, token="not-the-token")["status"] == 403
    token = service.run("cat", "/var/lib/magboard/web-token", check=True).stdout.strip()
    granted = steps.page(service, "POST", "/api/button", body, token=token)
    assert granted["status"] in (200, 409), granted  # 409: no engine to ask, but let in
    # The token the journal gives a builder is the one the page takes.
    assert token in steps.journal(service)


def test_a_stuck_loop_is_restarted_by_the_watchdog(service):
    before = steps.wait_active(service)
    cursor = steps.journal_cursor(service)
    service.run("kill", "-STOP", before["MainPID"], check=True)
    after = steps.wait_until(
        lambda: (p := steps.show(service, "ActiveState", "MainPID", "NRestarts"))["ActiveState"]
        == "active" and p["MainPID"] not in ("0", before["MainPID"]) and p,
        120, "systemd to restart the stopped daemon",
    )  # fmt: skip
    assert int(after["NRestarts"]) > int(before["NRestarts"])
    said = service.run("journalctl", "-u", "magboard", "-b", "--after-cursor", cursor,
                       "--no-pager").stdout  # fmt: skip
    assert "Watchdog timeout" in said, said[-2000:]
