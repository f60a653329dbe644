"""The stages of a test machine, each cached (see :mod:`.cache`) and keyed on its inputs.

* ``rootfs``: Debian's packages (``GuestSpec.packages`` and the kernel) installed by
  ``mmdebstrap`` from this host's release and apt sources, read at run time, then made into
  an ext4 image with ``mkfs.ext4 -d``; its kernel and initramfs beside it.
* ``kmod-<name>``: a kernel module Debian does not build (gpio-sim), compiled out of tree
  from ``linux-source`` against the matching ``linux-headers``.
* ``wheels``: the Python requirements as wheels, built here with Debian's ``python3`` (the
  machine's release, so binary wheels fit), for a machine that has no network.

What a run brings that changes with every commit (the repository, the agent, the checks,
the boot steps) is not cached: :func:`payload_image` puts it on a small second disk.

To add to the machine: name the Debian packages in ``GuestSpec.packages``, the modules to
load in ``GuestSpec.modules``, a boot step in ``GuestSpec.boot_steps``, and the checks in
``tests/system/guest/``. A second machine (the Bluetooth tests' phone) is a second
GuestSpec; with the same packages it boots the same cached root filesystem.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tarfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from tests.system.harness.cache import Cache, file_digest
from tests.system.harness.machine import Image

HERE = Path(__file__).resolve().parent
#: Debian's own interpreter: the machine's (the same release), whatever python runs pytest.
DEBIAN_PYTHON = "/usr/bin/python3"


class BuildError(RuntimeError):
    """A stage could not be built; the message says what to install or fix."""


@dataclass(frozen=True)
class OutOfTreeModule:
    """A kernel module built from a few files of ``linux-source``.

    ``files`` maps a file name in the build directory to its path in the source tree;
    ``objects`` are the objects it links (``<name>.o`` for each); ``patch`` edits the copied
    sources (raising BuildError when the code it edits is not there), and ``patch_text``
    describes the patch for the cache key.
    """

    name: str
    files: dict[str, str]
    objects: tuple[str, ...]
    patch: Callable[[Path], None]
    patch_text: str


@dataclass(frozen=True)
class GuestSpec:
    """What the test machine holds; see the module docstring for how to add to it."""

    packages: tuple[str, ...]
    modules: tuple[str, ...] = ()
    out_of_tree: tuple[OutOfTreeModule, ...] = ()
    requirements: tuple[str, ...] = ()
    boot_steps: tuple[Path, ...] = ()
    checks: Path | None = None
    extra_files: dict[str, Path] = field(default_factory=dict)


def _run(argv: list[str], what: str, **kwargs) -> subprocess.CompletedProcess:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    except FileNotFoundError as exc:
        raise BuildError(f"{what}: {argv[0]} is not installed ({exc})") from None
    if done.returncode != 0:
        raise BuildError(
            f"{what} failed (exit {done.returncode}): {' '.join(argv)[:300]}\n"
            f"{done.stdout[-3000:]}{done.stderr[-3000:]}"
        )
    return done


# ------------------------------------------------------------------ the kernel


@dataclass(frozen=True)
class Kernel:
    """The kernel the machine boots: Debian's current ``linux-image-amd64``."""

    abi: str  # 6.1.0-56-amd64
    version: str  # 6.1.192-2 (the package's)

    @property
    def image_package(self) -> str:
        return f"linux-image-{self.abi}"

    @property
    def headers(self) -> Path:
        return Path(f"/usr/src/linux-headers-{self.abi}")

    @property
    def source_tarball(self) -> Path:
        series = ".".join(self.abi.split(".")[:2])  # 6.1
        return Path(f"/usr/src/linux-source-{series}.tar.xz")


def current_kernel() -> Kernel:
    """Which kernel the host's apt sources give now (``linux-image-amd64``'s dependency)."""
    shown = _run(["apt-cache", "show", "--no-all-versions", "linux-image-amd64"],
                 "looking up Debian's kernel (apt-get update first?)").stdout  # fmt: skip
    match = re.search(r"^Depends: linux-image-(\S+) \(= ([^)]+)\)", shown, re.M)
    if not match:
        raise BuildError(f"cannot read the kernel from apt-cache show linux-image-amd64:\n{shown}")
    return Kernel(match.group(1), match.group(2))


def _installed_version(package: str) -> str | None:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                          capture_output=True, text=True)  # fmt: skip
    return done.stdout.strip() or None if done.returncode == 0 else None


# ------------------------------------------------------------------ rootfs


def host_apt_sources() -> list[Path]:
    """This host's apt sources for its own release (third-party repositories left out)."""
    codename = ""
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            codename = line.split("=", 1)[1].strip('"')
    files = [Path("/etc/apt/sources.list"), *sorted(Path("/etc/apt/sources.list.d").glob("*"))]
    chosen = []
    for path in files:
        if path.suffix not in (".list", ".sources") or not path.is_file():
            continue
        live = [ln for ln in path.read_text().splitlines() if ln.strip() and not ln.startswith("#")]
        if codename and any(codename in ln for ln in live):
            chosen.append(path)
    if not chosen:
        raise BuildError(f"no apt sources for this release ({codename!r}) in /etc/apt")
    return chosen


def rootfs(cache: Cache, spec: GuestSpec, kernel: Kernel) -> Image:
    """The root filesystem image with ``spec.packages`` and the kernel."""
    sources = host_apt_sources()
    customize = HERE / "customize.sh"
    packages = sorted({*spec.packages, kernel.image_package, "initramfs-tools"})
    inputs = {
        "packages": " ".join(packages),
        "customize": customize.read_bytes(),
        "sources": "".join(p.read_text() for p in sources),
        "mmdebstrap": _installed_version("mmdebstrap") or "?",
        "kernel": f"{kernel.abi} {kernel.version}",
    }

    def build(out: Path) -> None:
        tree = out / "tree"
        _run(
            ["mmdebstrap", "--variant=apt", "--aptopt=APT::Install-Recommends \"false\"",
             f"--include={','.join(packages)}",
             f"--customize-hook=sh {customize} \"$1\"",
             "--skip=cleanup/apt/lists",
             _codename(), str(tree), *map(str, sources)],
            "building the root filesystem with mmdebstrap",
            timeout=1800,
        )  # fmt: skip
        shutil.copy(tree / "boot" / f"vmlinuz-{kernel.abi}", out / "vmlinuz")
        shutil.copy(tree / "boot" / f"initrd.img-{kernel.abi}", out / "initrd.img")
        _run(["mkfs.ext4", "-q", "-F", "-L", "root", "-d", str(tree), str(out / "root.img"),
              "4G"], "making the root filesystem image")  # fmt: skip
        shutil.rmtree(tree)

    path = cache.stage("rootfs", inputs, build)
    return Image(path / "root.img", path / "vmlinuz", path / "initrd.img")


def _codename() -> str:
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip('"')
    raise BuildError("cannot tell this host's Debian release from /etc/os-release")


# ------------------------------------------------------------------ kernel modules


def kernel_module(cache: Cache, module: OutOfTreeModule, kernel: Kernel) -> Path:
    """The module built for ``kernel``: the path of its ``.ko``."""
    series = ".".join(kernel.abi.split(".")[:2])
    missing = [f"linux-headers-{kernel.abi}"] if not kernel.headers.is_dir() else []
    if not kernel.source_tarball.is_file():
        missing.append(f"linux-source-{series}")
    if missing:
        raise BuildError(
            f"building {module.name} for the machine's kernel {kernel.abi} needs "
            f"{' and '.join(missing)}: apt-get install {' '.join(missing)}"
        )
    inputs = {
        "kernel": f"{kernel.abi} {kernel.version}",
        "headers": _installed_version(f"linux-headers-{kernel.abi}") or "?",
        "source": _installed_version(f"linux-source-{series}") or "?",
        "files": repr(sorted(module.files.items())) + repr(module.objects),
        "patch": module.patch_text,
    }

    def build(out: Path) -> None:
        wanted = {f"linux-source-{series}/{p}": name for name, p in module.files.items()}
        with tarfile.open(kernel.source_tarball) as tar:
            for member in tar:
                name = wanted.pop(member.name, None)
                if name is not None:
                    extracted = tar.extractfile(member)
                    assert extracted is not None
                    (out / name).write_bytes(extracted.read())
                    if not wanted:
                        break
        if wanted:
            raise BuildError(f"not in {kernel.source_tarball}: {', '.join(wanted)}")
        module.patch(out)
        objects = " ".join(f"{o}.o" for o in module.objects)
        (out / "Kbuild").write_text(f"obj-m := {module.name}.o\n{module.name}-y := {objects}\n")
        _run(["make", "-C", str(kernel.headers), f"M={out}", "modules"],
             f"compiling the {module.name} module")  # fmt: skip

    return cache.stage(f"kmod-{module.name}", inputs, build) / f"{module.name}.ko"


# ------------------------------------------------------------------ wheels


def wheels(cache: Cache, requirements: tuple[str, ...]) -> Path:
    """A directory of wheels for ``requirements`` (and what they need), for Debian's python."""
    python_version = _run([DEBIAN_PYTHON, "-c", "import sys; print(sys.version)"],
                          "asking Debian's python3 its version").stdout  # fmt: skip
    inputs = {"requirements": "\n".join(sorted(requirements)), "python": python_version}

    def build(out: Path) -> None:
        venv = out / ".builder"
        _run([DEBIAN_PYTHON, "-m", "venv", str(venv)],
             "making a venv with Debian's python3 (apt-get install python3-venv)")  # fmt: skip
        _run([str(venv / "bin" / "pip"), "wheel", "--quiet", "--wheel-dir", str(out),
              *requirements], "building the wheels", timeout=1200)  # fmt: skip
        shutil.rmtree(venv)

    return cache.stage("wheels", inputs, build)


# ------------------------------------------------------------------ the run's payload


def repository_files(root: Path) -> list[str]:
    """The repository's files as a clone would have them, with the work tree's edits
    (tracked and new files, not ignored ones)."""
    listed = _run(["git", "-C", str(root), "ls-files", "-z", "--cached", "--others",
                   "--exclude-standard"], "listing the repository's files").stdout  # fmt: skip
    return [name for name in listed.split("\0") if name and (root / name).is_file()]


def payload_image(
    spec: GuestSpec,
    modules: list[Path],
    wheel_dir: Path,
    repository: Path | None,
    workdir: Path,
) -> Path:
    """The run's second disk (ext4, read-only in the machine at /srv/payload): the agent,
    ``boot.sh`` (load the modules, run the boot steps), the checks, the wheels and the
    repository to install (none for a machine that installs no magboard: the phone's)."""
    stage = workdir / "payload"
    shutil.rmtree(stage, ignore_errors=True)
    (stage / "modules").mkdir(parents=True)
    shutil.copy(HERE / "agent.py", stage / "agent.py")
    for ko in modules:
        shutil.copy(ko, stage / "modules" / ko.name)
    steps = stage / "boot.d"
    steps.mkdir()
    for number, step in enumerate(spec.boot_steps, 1):
        shutil.copy(step, steps / f"{number:02d}-{step.name}")
    (stage / "boot.sh").write_text(_boot_script(spec, modules))
    if spec.checks is not None:
        shutil.copytree(spec.checks, stage / "checks")
    for name, path in spec.extra_files.items():
        shutil.copy(path, stage / name)
    shutil.copytree(wheel_dir, stage / "wheels",
                    ignore=shutil.ignore_patterns(".*", "inputs.json"))  # fmt: skip
    for name in repository_files(repository) if repository is not None else ():
        target = stage / "repo" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(repository / name, target)  # type: ignore[operator]
    size_mb = 64 + sum(f.stat().st_size for f in stage.rglob("*") if f.is_file()) // 2**20 * 2
    image = workdir / "payload.img"
    image.unlink(missing_ok=True)
    _run(["mkfs.ext4", "-q", "-F", "-L", "payload", "-d", str(stage), str(image),
          f"{size_mb}M"], "making the payload disk")  # fmt: skip
    shutil.rmtree(stage)
    return image


def _boot_script(spec: GuestSpec, modules: list[Path]) -> str:
    lines = [
        "#!/bin/sh",
        "# Written by tests/system/harness/build.py: the machine's boot steps for this run.",
        "set -eu",
        "cd /srv/payload",
        # No network in the machine: pip finds packages in the wheels passed in, never an index.
        "printf '[global]\\nno-index = true\\nfind-links = /srv/payload/wheels\\n' > /etc/pip.conf",
        *(f"modprobe {m}" for m in spec.modules),
        *(f"insmod modules/{ko.name}" for ko in modules),
        "for step in boot.d/*; do [ -e \"$step\" ] && sh \"$step\"; done",
        "echo 'magboard-test-boot: ready'",
    ]
    return "\n".join(lines) + "\n"


def hash_of(paths: list[Path]) -> str:
    return "".join(file_digest(p) for p in paths)


def check_host_tools() -> None:
    """BuildError naming what to install when a tool the stages need is missing."""
    needed = {
        "qemu-system-x86_64": "qemu-system-x86",
        "qemu-img": "qemu-utils",
        "mmdebstrap": "mmdebstrap",
        "mkfs.ext4": "e2fsprogs",
        "make": "make",
        "gcc": "gcc",
    }
    missing = sorted({pkg for tool, pkg in needed.items() if shutil.which(tool) is None})
    if not Path(DEBIAN_PYTHON).exists():
        missing.append("python3")
    if missing:
        raise BuildError(f"the system tests need: apt-get install {' '.join(missing)}")
    if os.geteuid() != 0:
        raise BuildError("the system tests build a root filesystem: run them as root")
    if sys.platform != "linux":
        raise BuildError("the system tests run on Linux")
