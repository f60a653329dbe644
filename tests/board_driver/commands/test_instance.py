"""Several boards on one machine with one option each (issue 23): ``magboard run --sim
--instance N`` keeps its store and simulated board in ``instance-N`` of the state
directory and serves its page on ``[web] port`` + N, from one config file for all."""

from __future__ import annotations

import json
import socket
import urllib.request

from tests.board_driver.daemon_process import (  # noqa: F401
    DaemonProcess,
    no_daemon_left_running,
    run_magboard,
)


def free_ports_after(count: int) -> int:
    """A port P such that P + 1 .. P + count are free now (never 8080 and its neighbours)."""
    for _ in range(50):
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            base = probe.getsockname()[1]
        if 8070 <= base <= 8100 or base + count > 65535:
            continue
        try:
            for port in range(base + 1, base + count + 1):
                with socket.socket() as probe:
                    probe.bind(("127.0.0.1", port))
        except OSError:
            continue
        return base
    raise AssertionError("no free ports in a row")


def page_moves(port: int) -> list[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/state", timeout=10) as answer:
        return json.load(answer)["moves"]


def test_two_boards_on_one_machine_with_one_option_each(tmp_path):
    base = free_ports_after(2)
    directory = tmp_path / "club"
    directory.mkdir()
    (directory / "config.toml").write_text(f"[web]\nport = {base}\n")
    env = {"XDG_STATE_HOME": str(tmp_path / "state"), "STATE_DIRECTORY": "",
           "HOME": str(tmp_path / "home")}
    boards = {n: DaemonProcess(directory, "--instance", str(n), environ=env) for n in (1, 2)}
    try:
        for daemon in boards.values():
            daemon.wait_ready(30)
        boards[1].send("lift e2", "place e4")
        boards[2].send("lift d2", "place d4")
        for daemon in boards.values():
            assert daemon.wait_for(lambda d=daemon: len(d.moves_logged()) == 1), daemon.output()
        assert page_moves(base + 1) == ["e4"] and page_moves(base + 2) == ["d4"]
        state = tmp_path / "state" / "magboard"
        for n, san in ((1, "e4"), (2, "d4")):
            assert (state / f"instance-{n}" / "sim-board.json").is_file()
            done = run_magboard("pgn", "--config", str(directory / "config.toml"), "--instance",
                                str(n), env=env)
            assert done.returncode == 0 and f"1. {san} *" in done.stdout, done.stderr
            # `store` takes its options before or after the action, --instance included.
            for args in (("store", "--instance", str(n), "check"),
                         ("store", "check", "--instance", str(n))):
                done = run_magboard(*args, "--config", str(directory / "config.toml"), env=env)
                assert done.returncode == 0, done.stderr
                assert f"instance-{n}" in done.stdout and "1 games, 1 plies" in done.stdout
        assert not (state / "magboard.sqlite").exists()  # nobody's store is the default one
    finally:
        for daemon in boards.values():
            daemon.terminate()


def test_an_instance_refuses_a_config_naming_files_every_instance_would_share(tmp_path):
    config = tmp_path / "config.toml"
    config.write_text(f'[store]\npath = "{tmp_path / "games.sqlite"}"\n[web]\nenabled = false\n')
    done = run_magboard("run", "--sim", "--instance", "2", "--config", str(config),
                        env={"XDG_STATE_HOME": str(tmp_path / "state")})
    assert done.returncode == 2
    assert "[store] path: set, so every instance would share it" in done.stderr
    done = run_magboard("run", "--sim", "--instance", "100", "--config", str(config))
    assert done.returncode == 2 and "not a number from 1 to 99" in done.stderr
