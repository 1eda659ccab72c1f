"""Fetch a Debian source package's upstream tarball once, for benches that build third-party C/C++ code.

The machine's apt lists name binary packages only, so a private deb-src list (bookworm, main) is kept
under ``work/apt`` and ``apt-get source --download-only`` reads it; the user's apt configuration is not
touched.  Only the upstream (``.orig``) tarball is unpacked: the Debian patches are not applied.
"""

from __future__ import annotations

import subprocess
import tarfile
from pathlib import Path

SOURCES = """\
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
"""


def fetch_debian_source(package: str, dirname: str, work: Path) -> Path:
    """``work/dirname``: the upstream sources of Debian's ``package``, downloaded and extracted once."""
    root = work / dirname
    if root.is_dir():
        return root
    apt = work / "apt"
    (apt / "lists" / "partial").mkdir(parents=True, exist_ok=True)
    (apt / "bookworm-src.sources").write_text(SOURCES)
    opts = ["-o", "Dir::Etc::SourceList=/dev/null", "-o", f"Dir::Etc::SourceParts={apt}",
            "-o", f"Dir::State::Lists={apt / 'lists'}", "-q"]
    downloads = work / "debian"
    downloads.mkdir(parents=True, exist_ok=True)
    if not list(downloads.glob(f"{package}_*.orig.tar.*")):
        subprocess.run(["apt-get", *opts, "update"], check=True, capture_output=True)
        subprocess.run(["apt-get", *opts, "source", "--download-only", package], check=True,
                       capture_output=True, cwd=downloads)
    with tarfile.open(next(downloads.glob(f"{package}_*.orig.tar.*"))) as tar:
        tar.extractall(work)  # noqa: S202 - Debian's archive, just downloaded
    if not root.is_dir():
        raise FileNotFoundError(f"{package}: the tarball did not unpack into {root}")
    return root
